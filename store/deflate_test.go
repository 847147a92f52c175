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

// synthModel is a model-like file of n objects: one line each, with an id, and a property line
// that repeats (the lines a piece is never found by).
func synthModel(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<archimate:model name=\"m\" id=\"id-model\">\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    <element xsi:type=\"archimate:BusinessActor\" name=\"Actor %d\" id=\"id-%08x%08x\">\n", i, i, r.Uint32())
		b.WriteString("      <property key=\"owner\" value=\"Team 22\"/>\n    </element>\n")
	}
	b.WriteString("</archimate:model>\n")
	return b.Bytes()
}

// readsAs fails unless z is a zlib stream of header and data (the reader checks the checksum).
func readsAs(t *testing.T, z [][]byte, header string, data []byte) {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(bytes.Join(z, nil)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append([]byte(header), data...)) {
		t.Fatalf("read back otherwise (%d bytes, want %d)", len(got), len(header)+len(data))
	}
}

// A model written again after an apply changed it in a few places is compressed only where it
// changed: the pieces of the model written before that it holds unchanged are taken as they are,
// and git reads the object as the new model (git fsck clean). Before, every write compressed the
// whole model: a third of an approval's CPU at 10,000 elements.
func TestWriteBlob_CompressesOnlyWhatChanged(t *testing.T) {
	w, dir := newRepo(t)
	r := rand.New(rand.NewSource(3))
	model := synthModel(r, 30000) // about 4 MB
	if _, err := w.writeBlob(model); err != nil {
		t.Fatal(err)
	}
	edit := func(b []byte, at int, old, new string) []byte {
		i := bytes.Index(b[at:], []byte(old))
		if i < 0 {
			t.Fatalf("no %q after %d", old, at)
		}
		return append(append(append([]byte(nil), b[:at+i]...), new...), b[at+i+len(old):]...)
	}
	renamed := edit(model, len(model)/2, "name=\"Actor", "name=\"Renamed actor")
	spread := edit(edit(edit(renamed, 1000, "Team 22", "Team 7"), len(model)/3, "</element>\n", "</element>\n<element xsi:type=\"archimate:Node\" name=\"new\" id=\"id-new\"/>\n"), len(model)*9/10, "name=\"Actor 2", "name=\"A 2")
	for _, c := range []struct {
		name   string
		data   []byte
		places int
	}{{"one rename", renamed, 1}, {"three places", spread, 3}} {
		before := deflated.Load()
		h, err := w.writeBlob(c.data)
		if err != nil {
			t.Fatal(err)
		}
		// a place costs a piece, or two where it crosses a cut
		if n := deflated.Load() - before; n > int64(2*c.places*(pieceSize+pieceSize/2)) {
			t.Errorf("%s: %d bytes of %d compressed again", c.name, n, len(c.data))
		}
		out, err := exec.Command("git", "-C", dir, "cat-file", "blob", h.String()).Output()
		if err != nil || !bytes.Equal(out, c.data) {
			t.Fatalf("%s: git cat-file: %v, %d bytes of %d", c.name, err, len(out), len(c.data))
		}
	}
	run(t, dir, "fsck", "--strict")
}

// Whatever changed between two writes (pieces cut, moved, repeated, removed, a file of other
// bytes, lines without ids), the stream is the new bytes exactly: a piece is taken only where the
// new bytes hold it byte for byte.
func TestCompressed_AnyEdit(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	base := synthModel(r, 12000)
	header := func(b []byte) string { return fmt.Sprintf("blob %d\x00", len(b)) }
	z, prev := compressed(header(base), base, nil)
	readsAs(t, z, header(base), base)
	taken := 0
	for round := 0; round < 60; round++ {
		data := append([]byte(nil), prev.data...)
		for k := 0; k < 1+r.Intn(4); k++ {
			at, n := r.Intn(len(data)), r.Intn(pieceSize/2)
			end := min(len(data), at+n)
			switch r.Intn(5) {
			case 0: // a range removed
				data = append(data[:at:at], data[end:]...)
			case 1: // a range repeated in place (anchors found twice)
				data = append(data[:end:end], data[at:]...)
			case 2: // a range moved to the front
				data = append(append(append([]byte(nil), data[at:end]...), data[:at]...), data[end:]...)
			case 3: // a few bytes changed
				data[at] ^= 1
			case 4: // a line without an id inserted many times
				data = append(data[:at:at], append(bytes.Repeat([]byte("<p/>\n"), r.Intn(20000)), data[at:]...)...)
			}
		}
		if round%20 == 19 {
			data = bytes.Repeat([]byte("x"), r.Intn(2*pieceSize)) // other bytes altogether
		}
		z, p := compressed(header(data), data, prev)
		readsAs(t, z, header(data), data)
		was := map[*byte]bool{}
		for _, b := range prev.z {
			was[&b[0]] = true
		}
		for i := range p.z {
			if got := adler32.Checksum(data[p.at[i]:p.at[i+1]]); got != p.sum[i] {
				t.Fatalf("round %d: piece %d's checksum %08x, want %08x", round, i, p.sum[i], got)
			}
			if was[&p.z[i][0]] {
				taken++
			}
		}
		prev = p
	}
	if taken < 80 {
		t.Errorf("%d pieces taken from the write before in 60 rounds: the edits were not what this test is about", taken)
	}
}
