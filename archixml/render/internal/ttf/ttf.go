// Package ttf reads what text layout needs from a TrueType font: units per em, the vertical
// metrics and each character's advance width. It serves the generator of render's metrics table
// and the tests that check the table and the wrapping against the font itself.
package ttf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// ErrFont is returned for a file that is not a TrueType font with a Unicode character map.
var ErrFont = errors.New("not a TrueType font with a Unicode cmap")

// Font is a font's metrics.
type Font struct {
	UnitsPerEm               int
	Ascent, Descent, LineGap int
	advance                  []uint16
	glyph                    func(rune) int
}

// Open reads a .ttf file.
func Open(path string) (*Font, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Parse reads a font from its bytes.
func Parse(data []byte) (f *Font, err error) {
	defer func() {
		if recover() != nil {
			f, err = nil, ErrFont
		}
	}()
	u16 := func(o int) int { return int(binary.BigEndian.Uint16(data[o:])) }
	s16 := func(o int) int { return int(int16(binary.BigEndian.Uint16(data[o:]))) }
	u32 := func(o int) int { return int(binary.BigEndian.Uint32(data[o:])) }
	tables := map[string]int{}
	for i := 0; i < u16(4); i++ {
		rec := 12 + 16*i
		tables[string(data[rec:rec+4])] = u32(rec + 8)
	}
	for _, t := range []string{"head", "hhea", "hmtx", "cmap"} {
		if _, ok := tables[t]; !ok {
			return nil, fmt.Errorf("no %s table: %w", t, ErrFont)
		}
	}
	f = &Font{UnitsPerEm: u16(tables["head"] + 18)}
	hh := tables["hhea"]
	f.Ascent, f.Descent, f.LineGap = s16(hh+4), -s16(hh+6), s16(hh+8)
	hm := tables["hmtx"]
	for i := 0; i < u16(hh+34); i++ {
		f.advance = append(f.advance, uint16(u16(hm+4*i)))
	}
	cm, sub := tables["cmap"], -1
	for i := 0; i < u16(cm+2); i++ {
		rec := cm + 4 + 8*i
		if u16(rec) == 3 && u16(rec+2) == 1 {
			sub = cm + u32(rec+4)
		}
	}
	if sub < 0 || u16(sub) != 4 {
		return nil, ErrFont
	}
	segs := u16(sub+6) / 2
	ends, starts := sub+14, sub+16+2*segs
	deltas, offs := starts+2*segs, starts+4*segs
	f.glyph = func(c rune) int {
		for s := 0; s < segs; s++ {
			if int(c) > u16(ends+2*s) {
				continue
			}
			if int(c) < u16(starts+2*s) {
				return 0
			}
			ro := u16(offs + 2*s)
			if ro == 0 {
				return (int(c) + s16(deltas+2*s)) & 0xffff
			}
			g := u16(offs + 2*s + ro + 2*(int(c)-u16(starts+2*s)))
			if g != 0 {
				g = (g + s16(deltas+2*s)) & 0xffff
			}
			return g
		}
		return 0
	}
	return f, nil
}

// Advance is a character's advance width in font units (the missing glyph's for one the font
// lacks).
func (f *Font) Advance(r rune) int {
	g := f.glyph(r)
	if g >= len(f.advance) {
		g = len(f.advance) - 1
	}
	return int(f.advance[g])
}
