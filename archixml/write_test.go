package archixml

import (
	"bytes"
	"testing"
)

// SavesAs agrees with comparing Save's bytes: for the bytes Save gives, and for bytes that differ
// at the start, within a piece, at a piece's edge, at the end, or in length, on a model of many
// pieces (100k bytes compared a piece of 64 KiB at a time), built or read (then Save copies what
// an edit left as it was whole, in stretches longer than a piece).
func TestSavesAs_IsSaveEqual(t *testing.T) {
	built, err := Synthesize(SynthOptions{Elements: 500, Seed: 7})
	must(t, err)
	src, _ := built.Save()
	read, err := Load(src)
	must(t, err)
	for _, m := range []*Model{built, read} {
		savesAsIsSaveEqual(t, m, m.Elements()[3].ID())
	}
}

func savesAsIsSaveEqual(t *testing.T, m *Model, edited string) {
	t.Helper()
	if err := m.Rename(edited, "Edited"); err != nil {
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
		"far in the copy": flip(len(data) - 3*comparePiece/2),
	} {
		if m.SavesAs(other) {
			t.Errorf("%s: SavesAs took bytes Save does not give", what)
		}
	}
}

// SavesAs compares a piece at a time, the subtrees it copies whole included: it allocates far
// less than the model's size (an apply's proof runs it on a 4 MB model at 10,000 elements, where
// buffering a copied folder held megabytes at the apply's peak).
func TestSavesAs_KeepsAPiece(t *testing.T) {
	m, err := Synthesize(SynthOptions{Elements: 2000, Seed: 7})
	must(t, err)
	data, _ := m.Save()
	m, err = Load(data)
	must(t, err)
	if err := m.Rename(m.Elements()[1000].ID(), "Edited"); err != nil {
		t.Fatal(err)
	}
	data, _ = m.Save()
	var same bool
	if n := allocated(func() { same = m.SavesAs(data) }); n > uint64(len(data)/8) {
		t.Errorf("SavesAs allocated %d bytes comparing a model of %d", n, len(data))
	}
	if !same {
		t.Error("SavesAs refused Save's own bytes")
	}
	for _, at := range []int{len(data) / 3, len(data) / 2, 2 * len(data) / 3} {
		other := bytes.Clone(data)
		other[at] ^= 1
		if m.SavesAs(other) {
			t.Errorf("SavesAs took bytes that differ at %d of %d", at, len(data))
		}
	}
}
