package render

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// esc escapes text for an SVG attribute or text node. Characters XML cannot hold are dropped, so
// whatever a model holds, the SVG stays well-formed and holds no markup of the model's making.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		case '\t', '\n', '\r':
			b.WriteByte(' ')
		default:
			if r == utf8.RuneError || r < 0x20 || (r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// textWidth estimates how wide a line is drawn: the average advance of a sans-serif font.
func textWidth(s string, st style) int {
	k := 0.55
	if st.bold {
		k = 0.6
	}
	return int(float64(utf8.RuneCountInString(s))*st.fontSize*k + 0.5)
}

// wrap breaks text into lines no wider than width, at spaces where it can, as Archi's text flow
// does; the text's own line breaks are kept.
func wrap(text string, width int, st style) []string {
	var out []string
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line := ""
		for _, w := range words {
			for textWidth(w, st) > width && width > 0 && utf8.RuneCountInString(w) > 1 {
				// a word wider than the box is broken where it overflows
				n := max(1, int(float64(width)/(st.fontSize*0.55)))
				rs := []rune(w)
				if n >= len(rs) {
					break
				}
				if line != "" {
					out = append(out, line)
					line = ""
				}
				out = append(out, string(rs[:n]))
				w = string(rs[n:])
			}
			switch {
			case line == "":
				line = w
			case textWidth(line+" "+w, st) <= width:
				line += " " + w
			default:
				out = append(out, line)
				line = w
			}
		}
		out = append(out, line)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// writeText draws a label inside r, wrapped, aligned and positioned as the style says; lines that
// do not fit the box's height are left out, as Archi clips them.
func writeText(b *bytes.Buffer, text string, r rect, st style, keepAll bool) {
	lines := wrap(text, r.w-2*padding, st)
	if len(lines) == 0 {
		return
	}
	lh := st.fontSize * 1.25
	if fit := int((float64(r.h) - 2*padding) / lh); !keepAll && fit >= 1 && len(lines) > fit {
		lines = lines[:fit]
	} else if keepAll && fit >= 0 && len(lines) > max(fit, 1) {
		lines = lines[:max(fit, 1)]
	}
	total := lh * float64(len(lines))
	y := float64(r.y) + padding
	switch st.pos {
	case 1:
		y = float64(r.y) + (float64(r.h)-total)/2
	case 2:
		y = float64(r.y+r.h) - padding - total
	}
	x, anchor := float64(r.x)+float64(r.w)/2, "middle"
	switch st.align {
	case 1:
		x, anchor = float64(r.x+padding), "start"
	case 4:
		x, anchor = float64(r.x+r.w-padding), "end"
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s" fill="%s" font-size="%s"`, f2(x), f2(y), anchor, st.fontColor, f2(st.fontSize))
	if st.font != defaultFont {
		fmt.Fprintf(b, ` font-family="%s"`, esc(st.font))
	}
	if st.bold {
		b.WriteString(` font-weight="bold"`)
	}
	if st.italic {
		b.WriteString(` font-style="italic"`)
	}
	b.WriteString(">")
	for i, l := range lines {
		fmt.Fprintf(b, `<tspan x="%s" y="%s">%s</tspan>`, f2(x), f2(y+lh*float64(i)+st.fontSize), esc(l))
	}
	b.WriteString("</text>\n")
}
