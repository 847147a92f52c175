package store

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A loose object compressed in pieces reads back as one zlib stream (the checksum included, which
// the reader verifies) at every size around the pieces' bounds.
func TestLooseObject_ReadsBack(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 100, 1<<20 - 1, 1 << 20, 1<<20 + 1, 3<<20 + 17, 9 << 20} {
		data := make([]byte, n)
		for i := range data { // text-like: compressible, not uniform
			data[i] = "<element name=\"ab\" id=\"0123456789\"/>\n"[r.Intn(37)]
		}
		header := fmt.Sprintf("blob %d\x00", n)
		zr, err := zlib.NewReader(bytes.NewReader(bytes.Join(looseObject(header, data), nil)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, append([]byte(header), data...)) {
			t.Fatalf("%d bytes: read back otherwise", n)
		}
	}
}

func TestAdler32Combine(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 200; i++ {
		a, b := make([]byte, r.Intn(200000)), make([]byte, r.Intn(200000))
		r.Read(a)
		r.Read(b)
		if got, want := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), len(b)), adler32.Checksum(append(a, b...)); got != want {
			t.Fatalf("%d+%d bytes: %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// git itself reads a large blob archiplan wrote in pieces, and git fsck finds nothing wrong.
func TestWriteBlob_GitReadsIt(t *testing.T) {
	w, dir := newRepo(t)
	data := bytes.Repeat([]byte("<element xsi:type=\"archimate:BusinessActor\" name=\"Clerk\" id=\"id-1\"/>\n"), 100000)
	data = append(data, "end\n"...)
	h, err := w.writeBlob(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", dir, "cat-file", "blob", h.String()).Output()
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("git cat-file: %v, %d bytes of %d", err, len(out), len(data))
	}
	run(t, dir, "fsck", "--strict")
}

// Recover removes the temporary files a killed writer left: in .git, in git's objects, beside the
// model, and in the folders of the files an unfinished change was writing.
func TestRecover_CleansTemps(t *testing.T) {
	w, dir := newRepo(t)
	head, _ := w.Head()
	archive := filepath.Join(dir, ".archiplan", "applied", "p-1")
	os.MkdirAll(archive, 0o755)
	os.MkdirAll(filepath.Join(w.gitDir, "objects", "ab"), 0o755)
	temps := []string{
		filepath.Join(w.gitDir, ".archiplan-inflight.json.tmp-1"),
		filepath.Join(w.gitDir, "objects", ".abcdef.tmp-2"),
		filepath.Join(dir, ".model.archimate.tmp-3"),
		filepath.Join(archive, ".plan.json.tmp-4"),
	}
	for _, p := range temps {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the change that was writing the archive never moved the branch: its record names the paths
	rec, _ := json.Marshal(inflight{Base: head, Commit: strings.Repeat("0", 40), Paths: []string{".archiplan/applied/p-1/plan.json"}})
	os.WriteFile(w.inflightPath(), rec, 0o644)
	if _, err := w.Recover(); err != nil {
		t.Fatal(err)
	}
	for _, p := range temps {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left", p)
		}
	}
}

// BlobOf gives the blob id of any bytes: of the very slice writeBlob wrote without hashing again,
// and of any other slice (the same bytes elsewhere, a shorter slice of them) by hashing.
func TestBlobOf(t *testing.T) {
	w, _ := newRepo(t)
	data := bytes.Repeat([]byte("<model>one</model>\n"), rememberFrom/10)
	if _, err := w.writeBlob(data); err != nil {
		t.Fatal(err)
	}
	for what, d := range map[string][]byte{"the slice written": data, "a copy": bytes.Clone(data), "a shorter slice": data[:5], "nothing": nil} {
		if got, want := w.BlobOf(d), BlobID(d); got != want {
			t.Errorf("%s: %s, want %s", what, got, want)
		}
	}
	w.ids[0].id = "remembered"
	if w.BlobOf(data) != "remembered" {
		t.Error("the slice written was hashed again")
	}
}

// A model written ahead of its commit (WriteBlob, while the apply proves its inverse) is hashed
// once: Publish finds its id remembered instead of hashing tens of megabytes again, after the
// archive's files, which sort before it (they pushed it out of the memo once). The commit names
// the right blob.
func TestPublish_HashesAModelWrittenAheadOnce(t *testing.T) {
	w, dir := newRepo(t)
	// the size of a model of 1,000 elements (400 KB): hashed once as a larger one is (issue 41)
	model := bytes.Repeat([]byte("<element xsi:type=\"archimate:BusinessActor\" name=\"Clerk\" id=\"id-1\"/>\n"), 6000)
	if err := w.WriteBlob(model); err != nil {
		t.Fatal(err)
	}
	head, _ := w.Head()
	before := hashed.Load()
	files := map[string][]byte{"model.archimate": model}
	for _, f := range []string{"plan.json", "preview.md", "report.json", "inverse.json", "a.png", "b.png"} {
		files[".archiplan/applied/p/"+f] = []byte(f + "\n")
	}
	if _, err := w.Publish(Change{Base: head, When: time.Now(), Message: "apply\n", Files: files}); err != nil {
		t.Fatal(err)
	}
	if n := hashed.Load() - before; n >= int64(len(model)) {
		t.Errorf("publishing hashed %d bytes: the model (%d bytes) was hashed again", n, len(model))
	}
	if got := strings.TrimSpace(run(t, dir, "rev-parse", "HEAD:model.archimate")); got != BlobID(model) {
		t.Errorf("the commit names blob %s, want %s", got, BlobID(model))
	}
	run(t, dir, "fsck", "--strict")
}
