// Package testenv reads the paths the README's test command passes to the tests
// (ARCHIPLAN_CORPUS, ARCHI_EMF). The command runs from the module's root and gives them relative
// to it, while each package's tests run in their own folder: a relative path is taken from the
// module's root, whatever package asks.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Path reads a path from the environment; a relative one is made absolute from the module's root
// (the folder above the working folder holding go.mod). Empty when unset.
func Path(name string) string {
	p := os.Getenv(name)
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if root := ModuleRoot(); root != "" {
		return filepath.Join(root, p)
	}
	return p
}

// ModuleRoot is the nearest folder at or above the working folder holding go.mod ("" if none).
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Corpus is the corpus folder of ARCHIPLAN_CORPUS; the test is skipped when it is unset and fails
// when it is set but missing (a wrong path must not pass as "nothing to test").
func Corpus(t testing.TB) string {
	t.Helper()
	dir := Path("ARCHIPLAN_CORPUS")
	if dir == "" {
		t.Skip("ARCHIPLAN_CORPUS is not set")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("ARCHIPLAN_CORPUS=%s is not a folder (relative paths are taken from the module's root)", os.Getenv("ARCHIPLAN_CORPUS"))
	}
	return dir
}

// CorpusModels lists the corpus's .archimate models (one folder down); it fails when there are none.
func CorpusModels(t testing.TB) []string {
	t.Helper()
	return models(t, Corpus(t))
}

// CorpusModelsIfSet is CorpusModels for a test that runs on its own models too: nil when
// ARCHIPLAN_CORPUS is unset (no skip), and a failure, as CorpusModels's, when it is set wrong.
func CorpusModelsIfSet(t testing.TB) []string {
	t.Helper()
	if os.Getenv("ARCHIPLAN_CORPUS") == "" {
		return nil
	}
	return CorpusModels(t)
}

func models(t testing.TB, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.archimate"))
	if len(files) == 0 {
		t.Fatalf("no models under %s", dir)
	}
	return files
}

// CorpusFile is the path of a file of the corpus, named relative to it with slashes
// ("archi/Archisurance.archimate"): skipped when ARCHIPLAN_CORPUS is unset, a failure when the
// corpus or the file is not there.
func CorpusFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Corpus(t), filepath.FromSlash(rel))
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the corpus has no %s (ARCHIPLAN_CORPUS=%s)", rel, os.Getenv("ARCHIPLAN_CORPUS"))
	}
	return p
}

// EMF is the archi-emf tool of ARCHI_EMF (Archi's own EMF load and save): "" when unset, so the
// caller skips or logs, and a failure when it is set but names no executable file.
func EMF(t testing.TB) string {
	t.Helper()
	p := Path("ARCHI_EMF")
	if p == "" {
		return ""
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("ARCHI_EMF=%s is not an executable file (relative paths are taken from the module's root)", os.Getenv("ARCHI_EMF"))
	}
	return p
}

// Beside runs each again and again while the work that ends by sending on done (or closing it)
// runs, and once after: a reader checked against a writer for as long as the writer writes. It
// returns how many times each ran, and the writer's error or else the first of each's.
func Beside(done <-chan error, each func() error) (int, error) {
	for n := 1; ; n++ {
		var werr error
		finished := false
		select {
		case werr = <-done:
			finished = true
		default:
		}
		if werr != nil {
			return n - 1, werr
		}
		if err := each(); err != nil {
			return n, err
		}
		if finished {
			return n, nil
		}
	}
}
