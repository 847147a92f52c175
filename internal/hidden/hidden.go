// Package hidden is the one rule of what a person cannot see in a text, and the one way such a
// character is shown: as its code, \u{202e}. Names, documentation and property values of a model
// come from planners and colleagues; a tag character (U+E0000-E007F) spells a sentence nobody
// sees, a bidi override reorders what is read, a zero-width joiner makes two names differ
// unseen. Every surface that shows such a text (the preview, the page, the pictures, the command
// line, the reports, the MCP answers) shows it through this package, so the words and the
// pictures say the same.
package hidden

import (
	"fmt"
	"strings"
	"unicode"
)

// Is says whether r is a character a person cannot see, one that could hide or reorder text:
// every control (Cc), format (Cf: bidirectional marks, overrides and isolates, zero-width
// characters, the Arabic letter mark, the tag block's letters that spell a hidden sentence),
// private-use (Co), line and paragraph separator (Zl, Zp), the whole tag block U+E0000-E007F (its
// unassigned points too), and the variation selectors. A no-break space or a letter of another
// script that looks like a Latin one is seen, so shown as it is: a created name that reads like
// an existing one is a DUPLICATE_NAME warning instead (UTS #39 confusables).
func Is(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp) ||
		r >= 0xe0000 && r <= 0xe007f || // the tag block, its unassigned points too
		r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef || r >= 0x180b && r <= 0x180f // variation selectors
}

// Code is how a hidden character is shown: \u{202e}, at least four hex digits.
func Code(r rune) string { return fmt.Sprintf("\\u{%04x}", r) }

// Show writes every hidden character of s as its Code; the rest of s is left as it is.
func Show(s string) string {
	if !has(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case Is(r):
			b.WriteString(Code(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ShowLines is Show for a text of several lines (a documentation, a label on a picture): its
// line breaks stay line breaks (\r\n and \r become \n), a tab is a space, and every other hidden
// character of each line is its Code.
func ShowLines(text string) string {
	if !has(text) {
		return text
	}
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"), "\n")
	for i, l := range lines {
		lines[i] = Show(strings.ReplaceAll(l, "\t", " "))
	}
	return strings.Join(lines, "\n")
}

// has reports whether s holds a hidden character.
func has(s string) bool {
	return strings.IndexFunc(s, Is) >= 0
}

// Quote is s in double quotes, as the preview's sentences quote a name: a '"' and a '\' take a
// backslash, a line break is \n, a tab \t, and every other hidden character is its Code, so
// "Desk\u{e0041}" reads the same in a preview, a report, a picture and a terminal.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case Is(r):
			b.WriteString(Code(r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// JSON rewrites encoded JSON so that no hidden character appears in its text: each is written
// as JSON's own escape (\u202e, a surrogate pair above U+FFFF). The values decode exactly as
// before (an id or a name a program or a planner copies back stays exact), while whoever reads
// the text, a person or a model, sees the code instead of obeying the character. Outside
// strings JSON holds no such character, so the text is rewritten as it stands.
func JSON(data []byte) []byte {
	if !has(string(data)) {
		return data
	}
	var b strings.Builder
	b.Grow(len(data) + 32)
	for _, r := range string(data) {
		if !Is(r) || r == '\n' || r == '\t' || r == '\r' { // the encoder's own layout
			b.WriteRune(r)
			continue
		}
		if r > 0xffff {
			hi, lo := surrogates(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return []byte(b.String())
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
