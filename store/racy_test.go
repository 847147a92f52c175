package store

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// published is a workspace whose model archiplan last wrote (Publish) and whose index was written
// a tick later (its mtime set an hour ahead: a coarse clock may give both the same tick, and a
// test does not wait for one to pass): what a cold command finds after an apply. It gives the
// model's bytes and blob.
func published(t *testing.T) (ws *Workspace, dir string, model []byte, blob string) {
	t.Helper()
	ws, dir = newRepo(t)
	model = bytes.Repeat([]byte("<element name=\"a\"/>\n"), 500)
	if _, err := ws.Publish(Change{Base: run(t, dir, "rev-parse", "HEAD"), Files: map[string][]byte{"model.archimate": model},
		Message: "plan: x\n", Author: Signature{"a", "a@a"}, When: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, blob, _ = ws.HeadBlob(); blob != BlobID(model) {
		t.Fatal("HEAD does not hold the model published")
	}
	indexAt(t, ws, time.Now().Add(time.Hour))
	return ws, dir, model, blob
}

func indexAt(t *testing.T, ws *Workspace, at time.Time) {
	t.Helper()
	if err := os.Chtimes(ws.GitPath("index"), at, at); err != nil {
		t.Fatal(err)
	}
}

func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// After an apply, a cold command knows the model clean from git's index, as git status does,
// without hashing tens of megabytes again: the dirty check and the read of the model at HEAD
// both take the work tree's bytes as proved.
func TestCleanByIndex_ProvesWhatArchiplanWrote(t *testing.T) {
	ws, _, model, blob := published(t)
	cold, err := Open(ws.Root, ws.Model) // a process of its own: nothing remembered
	if err != nil {
		t.Fatal(err)
	}
	if !cold.CleanByIndex(blob) {
		t.Fatal("the index archiplan wrote does not prove the model it wrote")
	}
	if cold.CleanByIndex(BlobID([]byte("another model\n"))) {
		t.Fatal("the index proved the model is a blob its entry does not name")
	}
	before := hashed.Load()
	if dirty, err := cold.Dirty(blob); err != nil || dirty {
		t.Fatalf("dirty %v, %v", dirty, err)
	}
	data, same, err := cold.WorkTreeModel(blob)
	if err != nil || !same() || !bytes.Equal(data, model) {
		t.Fatalf("the work tree's model: %v, same %v", err, same != nil && same())
	}
	at, err := cold.ReadModel()
	if err != nil || at.Dirty || !bytes.Equal(at.Data, model) {
		t.Fatalf("the model at HEAD: %v", err)
	}
	if n := hashed.Load() - before; n != 0 {
		t.Errorf("%d bytes hashed to know a model the index proves clean", n)
	}
}

// git's racy-clean rule: the stat data proves nothing unless the file's mtime is strictly older
// than the index's (a write in the tick the mtime names keeps it).
func TestCleanByIndex_RacyIsNotTrusted(t *testing.T) {
	ws, _, _, blob := published(t)
	m := modTime(t, ws.ModelPath())
	for _, c := range []struct {
		index time.Time
		trust bool
	}{{m, false}, {m.Add(-time.Nanosecond), false}, {m.Add(-time.Hour), false}, {m.Add(time.Nanosecond), true}} {
		indexAt(t, ws, c.index)
		if got := ws.CleanByIndex(blob); got != c.trust {
			t.Errorf("index at model's mtime %+v: trusted %v, want %v", c.index.Sub(m), got, c.trust)
		}
	}
}

// An edit after the commit is seen however it keeps the size and the mtime: written in place
// (its ctime moves), the file replaced by another (its inode), touched (its mtime), the index
// missing or racy (then the bytes are hashed).
func TestCleanByIndex_EditsAreDirty(t *testing.T) {
	edit := func(model []byte) []byte { return bytes.Replace(model, []byte(`"a"`), []byte(`"b"`), 1) }
	for _, c := range []struct {
		name  string
		do    func(t *testing.T, ws *Workspace, model []byte)
		dirty bool
	}{
		{"same size in place, mtime kept", func(t *testing.T, ws *Workspace, model []byte) {
			m := modTime(t, ws.ModelPath())
			f, err := os.OpenFile(ws.ModelPath(), os.O_WRONLY, 0) // the same inode, as an editor saving in place
			if err != nil {
				t.Fatal(err)
			}
			f.Write(edit(model))
			f.Close()
			os.Chtimes(ws.ModelPath(), m, m)
		}, true},
		{"replaced by rename, mtime kept", func(t *testing.T, ws *Workspace, model []byte) {
			m := modTime(t, ws.ModelPath())
			tmp := ws.ModelPath() + ".new"
			os.WriteFile(tmp, edit(model), 0o644)
			os.Chtimes(tmp, m, m)
			if err := os.Rename(tmp, ws.ModelPath()); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"touched", func(t *testing.T, ws *Workspace, model []byte) {
			at := time.Now().Add(-time.Minute)
			os.Chtimes(ws.ModelPath(), at, at)
		}, false},
		{"index missing", func(t *testing.T, ws *Workspace, model []byte) {
			os.Remove(ws.GitPath("index"))
		}, false},
		{"index missing, edited", func(t *testing.T, ws *Workspace, model []byte) {
			os.Remove(ws.GitPath("index"))
			os.WriteFile(ws.ModelPath(), edit(model), 0o644)
		}, true},
		{"racy index, edited in place", func(t *testing.T, ws *Workspace, model []byte) {
			m := modTime(t, ws.ModelPath())
			os.WriteFile(ws.ModelPath(), edit(model), 0o644)
			os.Chtimes(ws.ModelPath(), m, m)
			indexAt(t, ws, m)
		}, true},
		{"removed", func(t *testing.T, ws *Workspace, model []byte) {
			os.Remove(ws.ModelPath())
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, _, model, blob := published(t)
			c.do(t, ws, model)
			if ws.CleanByIndex(blob) {
				t.Error("the index proved a model changed since it was written")
			}
			if dirty, err := ws.Dirty(blob); err != nil || dirty != c.dirty {
				t.Errorf("dirty %v (%v), want %v", dirty, err, c.dirty)
			}
			if data, same, err := ws.WorkTreeModel(blob); err == nil && same() != bytes.Equal(data, model) {
				t.Errorf("the work tree's model said the blob: %v", same())
			}
			at, err := ws.ReadModel()
			if err != nil || !bytes.Equal(at.Data, model) || at.Dirty != c.dirty {
				t.Errorf("the model at HEAD: %v, dirty %v, HEAD's bytes %v", err, at != nil && at.Dirty, at != nil && bytes.Equal(at.Data, model))
			}
		})
	}
}
