package store

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FileAt reads a loose blob itself, in one pass, and gives the bytes git gives; a packed one
// through go-git; a loose object that is not a whole blob of the size its header says is an
// error, never part of a file.
func TestFileAt_LooseBlobs(t *testing.T) {
	ws, dir := newRepo(t)
	body := strings.Repeat("<element id=\"x\" name=\"a model line\"/>\n", 40000) // 1.5 MB
	os.WriteFile(filepath.Join(dir, "model.archimate"), []byte(body), 0o644)
	run(t, dir, "commit", "-q", "-am", "a bigger model")
	head := run(t, dir, "rev-parse", "HEAD")
	blob := run(t, dir, "rev-parse", "HEAD:model.archimate")
	path := filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])
	got, ok, err := ws.FileAt(head, "model.archimate")
	if err != nil || !ok || string(got) != body {
		t.Fatalf("FileAt: %d bytes, %v, %v; want the %d bytes committed", len(got), ok, err, len(body))
	}
	if data, loose, err := ws.looseBlob(plumbing.NewHash(blob)); !loose || err != nil || string(data) != body {
		t.Fatalf("the loose blob was not read as one: %v %v", loose, err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	forge := func(t *testing.T, raw string) {
		t.Helper()
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write([]byte(raw))
		zw.Close()
		os.Chmod(path, 0o644)
		if err := os.WriteFile(path, b.Bytes(), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		write func(t *testing.T)
	}{
		{"cut short", func(t *testing.T) { os.Chmod(path, 0o644); os.WriteFile(path, good[:len(good)/2], 0o444) }},
		{"longer than its header", func(t *testing.T) { forge(t, "blob 3\x00abcd") }},
		{"shorter than its header", func(t *testing.T) { forge(t, "blob 9\x00abcd") }},
		{"a huge size", func(t *testing.T) { forge(t, "blob 99999999999\x00abcd") }},
		{"no size", func(t *testing.T) { forge(t, "blob x\x00abcd") }},
		{"a tree", func(t *testing.T) { forge(t, "tree 4\x00abcd") }},
		{"bad checksum", func(t *testing.T) {
			os.Chmod(path, 0o644)
			bad := bytes.Clone(good)
			bad[len(bad)-1] ^= 1
			os.WriteFile(path, bad, 0o444)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.write(t)
			if got, ok, err := ws.FileAt(head, "model.archimate"); err == nil || ok || got != nil {
				t.Fatalf("FileAt of a loose object %s: %d bytes, %v, %v", c.name, len(got), ok, err)
			}
		})
	}
	os.Chmod(path, 0o644)
	os.WriteFile(path, good, 0o444)
	// packed: no loose file, read through go-git
	run(t, dir, "gc", "--prune=now", "--quiet")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("git gc left the loose object: %v", err)
	}
	if _, loose, err := ws.looseBlob(plumbing.NewHash(blob)); loose || err != nil {
		t.Fatalf("a packed blob read as loose: %v %v", loose, err)
	}
	got, ok, err = ws.FileAt(head, "model.archimate")
	if err != nil || !ok || string(got) != body {
		t.Fatalf("FileAt of a packed blob: %d bytes, %v, %v", len(got), ok, err)
	}
}
