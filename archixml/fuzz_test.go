package archixml

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzLoad feeds the loader malformed XML, DOCTYPE and entity tricks and huge attributes: it must
// never panic, and what it accepts must save back to the same bytes and load again.
func FuzzLoad(f *testing.F) {
	valid, _ := Example().Save()
	f.Add(valid)
	f.Add(valid[:len(valid)/3])
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><archimate:model xmlns:archimate="x" name="&b;"/>`))
	f.Add([]byte(`<archimate:model xmlns:archimate="x"><!-- --><![CDATA[<x>]]><folder name="` + strings.Repeat("A", 1<<10) + `"/></archimate:model>`))
	f.Add([]byte(`<archimate:model xmlns:archimate="x" xmlns:xsi="y"><folder type="business"><element xsi:type="archimate:BusinessActor" id="a" name="&lt;&#x1;"/></folder></archimate:model>`))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Load(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotModel) && !errors.Is(err, ErrDoctype) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("uncoded error: %v", err)
			}
			return
		}
		out, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		if !m.Archived() && !bytes.Equal(out, data) {
			t.Fatal("an unchanged model saved to other bytes")
		}
		// an edit on whatever loaded gives a file that loads again
		for _, e := range m.Elements() {
			if e.ID() == "" {
				continue // malformed input may hold elements without ids; they cannot be named
			}
			if err := m.Rename(e.ID(), "re<na>&med\n"); err != nil {
				t.Fatal(err)
			}
			out, err := m.Save()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Load(out); err != nil {
				t.Fatalf("edited model does not load: %v", err)
			}
			break
		}
	})
}
