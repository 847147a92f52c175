package archixml

import (
	"bytes"
	"testing"
)

// SavesAs agrees with comparing Save's bytes: for the bytes Save gives, and for bytes that differ
// at the start, within a piece, at a piece's edge, at the end, or in length, on a model of many
// pieces (100k bytes compared a piece of 64 KiB at a time).
func TestSavesAs_IsSaveEqual(t *testing.T) {
	m, err := Synthesize(SynthOptions{Elements: 500, Seed: 7})
	must(t, err)
	if err := m.Rename(m.Elements()[3].ID(), "Edited"); err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	if len(data) < 3*comparePiece {
		t.Fatalf("the model is only %d bytes", len(data))
	}
	if !m.SavesAs(data) {
		t.Fatal("SavesAs refused Save's own bytes")
	}
	flip := func(at int) []byte {
		d := bytes.Clone(data)
		d[at] ^= 1
		return d
	}
	for what, other := range map[string][]byte{
		"first byte":      flip(0),
		"within a piece":  flip(comparePiece + 100),
		"a piece's last":  flip(comparePiece - 1),
		"a piece's first": flip(2 * comparePiece),
		"last byte":       flip(len(data) - 1),
		"one byte short":  data[:len(data)-1],
		"one byte more":   append(bytes.Clone(data), '\n'),
		"nothing":         nil,
		"twice":           append(bytes.Clone(data), data...),
	} {
		if m.SavesAs(other) {
			t.Errorf("%s: SavesAs took bytes Save does not give", what)
		}
	}
}

// SavesAs compares a model read from a file, whose unchanged parts are copied whole (strings of
// more than a piece, compared where they are): a byte changed inside them is seen.
func TestSavesAs_CopiedWhole(t *testing.T) {
	built, err := Synthesize(SynthOptions{Elements: 3000, Seed: 7})
	must(t, err)
	src, _ := built.Save()
	m, err := Load(src)
	must(t, err)
	els := m.Elements()
	must(t, m.Rename(els[len(els)-1].ID(), "Edited"))
	data, _ := m.Save()
	if !m.SavesAs(data) {
		t.Fatal("SavesAs refused Save's own bytes")
	}
	for _, at := range []int{len(data) / 4, len(data) / 2, comparePiece + 1} {
		d := bytes.Clone(data)
		d[at] ^= 1
		if m.SavesAs(d) {
			t.Errorf("a byte changed at %d of %d: SavesAs took bytes Save does not give", at, len(data))
		}
	}
}
