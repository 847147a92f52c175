package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// fails runs f with a testing.TB of its own and says whether f failed it (Fatal ends f's goroutine).
func fails(f func(t testing.TB)) (failed, skipped bool) {
	tb := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(tb)
	}()
	<-done
	return tb.Failed(), tb.Skipped()
}

type recorder struct {
	testing.T
	failed, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }
func (r *recorder) Skip(...any)           { r.skipped = true; runtime.Goexit() }
func (r *recorder) Failed() bool          { return r.failed }
func (r *recorder) Skipped() bool         { return r.skipped }

// A path set wrong fails the test that reads it, never skips it or lets it test less; unset, it
// skips (or, for the optional readers, gives nothing).
func TestPaths_SetWrongFails(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "corpus", "archi"), 0o755)
	os.WriteFile(filepath.Join(dir, "corpus", "archi", "a.archimate"), []byte("<model/>"), 0o644)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	tool := filepath.Join(dir, "archi-emf")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)

	for _, c := range []struct {
		name, corpus, emf string
		f                 func(t testing.TB)
		fail, skip        bool
	}{
		{"corpus unset", "", "", func(t testing.TB) { Corpus(t) }, false, true},
		{"corpus missing", filepath.Join(dir, "nowhere"), "", func(t testing.TB) { Corpus(t) }, true, false},
		{"corpus a file", plain, "", func(t testing.TB) { Corpus(t) }, true, false},
		{"corpus right", filepath.Join(dir, "corpus"), "", func(t testing.TB) { Corpus(t) }, false, false},
		{"no models", filepath.Join(dir, "empty"), "", func(t testing.TB) { CorpusModels(t) }, true, false},
		{"models unset, optional", "", "", func(t testing.TB) {
			if CorpusModelsIfSet(t) != nil {
				t.Fatalf("models")
			}
		}, false, false},
		{"models set wrong, optional", filepath.Join(dir, "nowhere"), "", func(t testing.TB) { CorpusModelsIfSet(t) }, true, false},
		{"models set empty, optional", filepath.Join(dir, "empty"), "", func(t testing.TB) { CorpusModelsIfSet(t) }, true, false},
		{"models right", filepath.Join(dir, "corpus"), "", func(t testing.TB) {
			if len(CorpusModels(t)) != 1 {
				t.Fatalf("models")
			}
		}, false, false},
		{"a file the corpus lacks", filepath.Join(dir, "corpus"), "", func(t testing.TB) { CorpusFile(t, "archi/b.archimate") }, true, false},
		{"a file of the corpus", filepath.Join(dir, "corpus"), "", func(t testing.TB) { CorpusFile(t, "archi/a.archimate") }, false, false},
		{"emf unset", "", "", func(t testing.TB) {
			if EMF(t) != "" {
				t.Fatalf("emf")
			}
		}, false, false},
		{"emf missing", "", filepath.Join(dir, "nowhere"), func(t testing.TB) { EMF(t) }, true, false},
		{"emf not executable", "", plain, func(t testing.TB) { EMF(t) }, true, false},
		{"emf a folder", "", dir, func(t testing.TB) { EMF(t) }, true, false},
		{"emf right", "", tool, func(t testing.TB) {
			if EMF(t) != tool {
				t.Fatalf("emf")
			}
		}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("ARCHIPLAN_CORPUS", c.corpus)
			t.Setenv("ARCHI_EMF", c.emf)
			failed, skipped := fails(c.f)
			if failed != c.fail || skipped != c.skip {
				t.Fatalf("failed %v, skipped %v; want %v, %v", failed, skipped, c.fail, c.skip)
			}
		})
	}
}
