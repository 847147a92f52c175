package plans

import (
	"strings"
	"testing"
)

// PlainText undoes MDEscape (a terminal shows the words as written), drops bold markers, keeps
// fenced blocks as they are, and keeps a character a person cannot see shown as its code.
func TestPlainText_UndoesMDEscape(t *testing.T) {
	for _, s := range []string{`Rename <Customer> & friends (x_y) *now*`, "a\\b `c` [d](e) #f !g |h ~i .j :k {l}",
		"&lt; stays as written", "ünïcödé ✓", "**not bold**"} {
		if got := string(PlainText([]byte(MDEscape(s) + "\n"))); got != s+"\n" {
			t.Errorf("PlainText(MDEscape(%q)) = %q", s, got)
		}
	}
	md := "**Verdict** \\(ok\\)\n```mermaid\n  n1[\"a \\(b\\)\"]\n```\n" + MDEscape("bell\a") + "\n"
	want := "Verdict (ok)\n```mermaid\n  n1[\"a \\(b\\)\"]\n```\nbell\\u{0007}\n"
	if got := string(PlainText([]byte(md))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if strings.Contains(string(PlainText([]byte(MDEscape("\u202e")))), "\u202e") {
		t.Error("a bidi override reached the terminal")
	}
}
