package render

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/archiplan/archiplan/internal/hidden"
)

// shown is a text as a person is to read it in a picture: each of its lines with every character
// a person cannot see (a tag character, a bidi override, a zero-width joiner) written as its code
// by hidden.Show, as the preview's words write it, so the picture and the words agree; a tab is a
// space, as Archi draws it.
func shown(text string) string { return hidden.ShowLines(text) }

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

// advance is a rune's advance width in Liberation Sans's font units (Arial's metrics), bold or
// not; runes outside the table count as the average of a lowercase letter.
func advance(r rune, bold bool) int {
	i := 0
	for _, rg := range metricsRanges {
		if r >= rg[0] && r <= rg[1] {
			if bold {
				return int(metricsBold[i+int(r-rg[0])])
			}
			return int(metricsRegular[i+int(r-rg[0])])
		}
		i += int(rg[1]-rg[0]) + 1
	}
	if r >= 0x2e80 { // CJK and beyond: a full em
		return metricsUnitsPerEm
	}
	return metricsUnitsPerEm / 2
}

// textWidthF is how wide a line is drawn in Liberation Sans (the font the SVG names) at the
// style's size, in pixels.
func textWidthF(s string, st style) float64 {
	u := 0
	for _, r := range s {
		u += advance(r, st.bold)
	}
	return float64(u) * st.fontSize / metricsUnitsPerEm
}

// textWidth is textWidthF rounded up to whole pixels, as SWT measures text.
func textWidth(s string, st style) int { return int(math.Ceil(textWidthF(s, st) - 1e-9)) }

// lineHeight and ascent are the font's, in whole pixels as SWT's FontMetrics gives them.
func lineHeight(st style) float64 {
	return math.Round(st.fontSize*metricsAscent/metricsUnitsPerEm) + math.Round(st.fontSize*metricsDescent/metricsUnitsPerEm)
}

func ascent(st style) float64 { return math.Round(st.fontSize * metricsAscent / metricsUnitsPerEm) }

// wrap breaks text into lines no wider than width, at spaces and after hyphens where it can, as
// Archi's text flow does (a line break opportunity of Java's BreakIterator); the text's own line
// breaks are kept.
func wrap(text string, width int, st style) []string {
	var out []string
	text = shown(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"))
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line := ""
		for _, part := range hyphenParts(words) {
			w, sep := part[0], part[1]
			for textWidth(w, st) > width && width > 0 && utf8.RuneCountInString(w) > 1 {
				// a word wider than the box is broken where it overflows
				rs := []rune(w)
				n, used := 0, 0.0
				for n < len(rs) {
					a := float64(advance(rs[n], st.bold)) * st.fontSize / metricsUnitsPerEm
					if used+a > float64(width) {
						break
					}
					used += a
					n++
				}
				n = max(n, 1)
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
			case textWidth(line+sep+w, st) <= width:
				line += sep + w
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

// hyphenParts splits words at their line break opportunities: each part with what joins it to
// the one before on one line (a space between words, nothing after a hyphen inside a word).
func hyphenParts(words []string) [][2]string {
	alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	var out [][2]string
	for _, w := range words {
		sep, rs, start := " ", []rune(w), 0
		for i := 1; i+1 < len(rs); i++ {
			// a break after a hyphen between letters or digits
			if rs[i] == '-' && alnum(rs[i-1]) && alnum(rs[i+1]) {
				out = append(out, [2]string{string(rs[start : i+1]), sep})
				start, sep = i+1, ""
			}
		}
		out = append(out, [2]string{string(rs[start:]), sep})
	}
	return out
}

// writeText draws a label inside area, within margin of its sides, wrapped, aligned and
// positioned as the style says (Archi's text control: a FlowPage in a GridLayout with that margin);
// lines that do not fit the box's height are left out, as Archi clips them.
func writeText(b *bytes.Buffer, text string, area rect, st style, margin int, keepAll bool) {
	lines := wrap(text, area.w-2*margin, st)
	if len(lines) == 0 {
		return
	}
	lh := lineHeight(st)
	if fit := int((float64(area.h) - float64(margin)) / lh); !keepAll && fit >= 1 && len(lines) > fit {
		lines = lines[:fit]
	} else if keepAll && fit >= 0 && len(lines) > max(fit, 1) {
		lines = lines[:max(fit, 1)]
	}
	total := lh * float64(len(lines))
	y := float64(area.y + margin)
	switch st.pos {
	case 1:
		y = float64(area.y) + math.Floor((float64(area.h)-total)/2)
	case 2:
		y = float64(area.y+area.h-margin) - total
	}
	x, anchor := float64(area.x)+float64(area.w)/2, "middle"
	switch st.align {
	case 1:
		x, anchor = float64(area.x+margin), "start"
	case 4:
		x, anchor = float64(area.x+area.w-margin), "end"
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
	a := ascent(st)
	for i, l := range lines {
		fmt.Fprintf(b, `<tspan x="%s" y="%s">%s</tspan>`, f2(x), f2(y+lh*float64(i)+a), esc(l))
	}
	b.WriteString("</text>\n")
}
