package osfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A symbolic link is refused, never followed: what it leads to is neither read nor written.
func TestOpenNoFollow_RefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_CREATE} {
		if f, err := OpenNoFollow(link, flag, 0o644); !errors.Is(err, syscall.ELOOP) {
			if f != nil {
				f.Close()
			}
			t.Fatalf("flag %#x: %v, want ELOOP", flag, err)
		}
	}
	f, err := OpenNoFollow(target, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// An exclusive lock excludes another open of the same file, shared or exclusive, until it is
// released; shared locks share.
func TestLock_ExcludesUntilUnlocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := Lock(a, Exclusive|NoWait); err != nil {
		t.Fatal(err)
	}
	if err := Lock(b, Shared|NoWait); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("shared beside exclusive: %v", err)
	}
	if err := Lock(b, Exclusive|NoWait); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("exclusive beside exclusive: %v", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := Lock(a, Shared|NoWait); err != nil {
		t.Fatal(err)
	}
	if err := Lock(b, Shared|NoWait); err != nil {
		t.Fatalf("shared beside shared: %v", err)
	}
}

// A hard link has its file's identity, a copy does not; a symbolic link has its own.
func TestID_SameFileOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, i, err := ID(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p, filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "copy"), []byte("x"), 0o644)
	os.Symlink(p, filepath.Join(dir, "sym"))
	for name, same := range map[string]bool{"a": true, "hard": true, "copy": false, "sym": false} {
		ld, li, err := LstatID(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if (ld == d && li == i) != same {
			t.Errorf("%s: same file %v, want %v", name, !same, same)
		}
	}
	fi, err := Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := Links(fi); !ok || n != 2 {
		t.Errorf("links %d %v, want 2", n, ok)
	}
}
