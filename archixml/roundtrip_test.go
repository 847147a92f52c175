package archixml

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestLoad_CorpusRoundTrip(t *testing.T) {
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Load(in)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if m.Len() == 0 {
				t.Fatal("indexed no objects")
			}
			out, err := m.Save()
			if err != nil {
				t.Fatalf("save: %v", err)
			}
			if m.Archived() {
				assertSameEntries(t, in, out)
				return
			}
			if !bytes.Equal(in, out) {
				t.Fatalf("save without a change differs: %s", firstDiff(in, out))
			}
		})
	}
}

func assertSameEntries(t *testing.T, a, b []byte) {
	t.Helper()
	read := func(data []byte) ([]string, map[string][]byte) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		content := map[string][]byte{}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			names = append(names, f.Name)
			content[f.Name] = body
		}
		return names, content
	}
	an, ac := read(a)
	bn, bc := read(b)
	if len(an) != len(bn) {
		t.Fatalf("entries %v, then %v", an, bn)
	}
	for i := range an {
		if an[i] != bn[i] || !bytes.Equal(ac[an[i]], bc[bn[i]]) {
			t.Fatalf("entry %d: %s (%d bytes) became %s (%d bytes)", i, an[i], len(ac[an[i]]), bn[i], len(bc[bn[i]]))
		}
	}
}

// firstDiff names the first line where two files differ.
func firstDiff(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y []byte
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if !bytes.Equal(x, y) {
			return fmt.Sprintf("line %d:\n  was: %s\n  now: %s", i+1, x, y)
		}
	}
	return "no line differs"
}
