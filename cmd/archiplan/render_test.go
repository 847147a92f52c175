package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
)

func TestFileName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"id-5f0c9a", "id-5f0c9a"},
		{"../../etc/passwd", "_.._etc_passwd"},
		{"..", "view"},
		{"a/b\\c d", "a_b_c_d"},
		{"", "view"},
	}
	for _, tt := range tests {
		if got := fileName(tt.id); got != tt.want {
			t.Errorf("fileName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestPickViews(t *testing.T) {
	m := archixml.Example()
	second, err := m.CreateView("Main view", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := pickViews(m, []string{second}); err != nil || len(got) != 1 || got[0].ID() != second {
		t.Errorf("by id: %v %v", got, err)
	}
	if _, err := pickViews(m, []string{"Main view"}); err == nil {
		t.Error("two views of one name: no error")
	}
	if _, err := pickViews(m, []string{"nope"}); !errors.Is(err, render.ErrNoView) {
		t.Errorf("no such view: %v", err)
	}
	if got, _ := pickViews(m, nil); len(got) != 2 {
		t.Errorf("all views: %d", len(got))
	}
}

func TestWriteAtomic_RefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "v.svg")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(link, []byte("<svg/>")); !errors.Is(err, errSymlink) {
		t.Fatalf("write through a symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatal("the symlink's target was written")
	}
	if err := writeAtomic(filepath.Join(dir, "w.svg"), []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".render-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
