package plans

import (
	"strings"
	"testing"
)

// MDEscape: text from a plan shows as text in a preview. Nothing it holds becomes markup, starts a
// line of its own, or reorders what a person reads (bidirectional overrides are shown as codes).
func TestMDEscape(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb":                           `a ↵ b`,
		"a\r\n# Approved":                `a ↵ \# Approved`,
		"| x | y |":                      `\| x \| y \|`,
		"<script>&":                      `&lt;script&gt;&amp;`,
		"[link](http://x)":               `\[link\]\(http\://x\)`,
		"abc\u202edcba":                  `abc\u{202e}dcba`,
		"\u202a\u202b\u202c\u202d\u202e": `\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}`,
		"\u2066x\u2069":                  `\u{2066}x\u{2069}`,
		"a\u2028b\u2029c":                `a\u{2028}b\u{2029}c`,
		"bell\a\x1b[31m":                 `bell\u{0007}\u{001b}\[31m`,
		"tab\there":                      `tab here`,
		"plain words, é ✓":               `plain words, é ✓`,
	} {
		if got := MDEscape(in); got != want {
			t.Errorf("MDEscape(%q) = %q, want %q", in, got, want)
		}
		if got := MDEscape(in); strings.ContainsAny(got, "\n\r\u202e") {
			t.Errorf("MDEscape(%q) = %q keeps a line break or an override", in, got)
		}
	}
}
