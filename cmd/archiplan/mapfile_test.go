package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file made shorter while import reads its mapping is an error of its, not the end of the
// process (a fault past the file's new end).
func TestMapFile_ShortenedWhileRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.xml")
	if err := os.WriteFile(path, []byte(strings.Repeat("<a/>", 1<<16)), 0o644); err != nil {
		t.Fatal(err)
	}
	data, unmap, err := mapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum int
	err = readMapped(path, func() error {
		for i := 0; i < len(data); i += 4096 {
			sum += int(data[i])
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("reading a mapping past the file's end: %v (sum %d)", err, sum)
	}
}

// What cannot be mapped is read: an empty file, and a file that is not a regular one.
func TestMapFile_NotMapped(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.xml")
	os.WriteFile(empty, nil, 0o644)
	if data, unmap, err := mapFile(empty); err != nil || len(data) != 0 {
		t.Fatalf("an empty file: %q, %v", data, err)
	} else {
		unmap()
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString("<model/>"); w.Close() }()
	defer r.Close()
	data, unmap, err := mapFile(fmt.Sprintf("/dev/fd/%d", r.Fd()))
	if err != nil || string(data) != "<model/>" {
		t.Fatalf("a pipe: %q, %v", data, err)
	}
	unmap()
}
