package archixml

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// corpusFiles returns the corpus models, skipping the test when ARCHIPLAN_CORPUS is unset.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir := os.Getenv("ARCHIPLAN_CORPUS")
	if dir == "" {
		t.Skip("ARCHIPLAN_CORPUS not set")
	}
	var out []string
	for _, sub := range []string{"archi", "realworld"} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.archimate"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, files...)
	}
	if len(out) == 0 {
		t.Fatalf("no models in %s", dir)
	}
	return out
}

// emfLoadable reports whether Archi's EMF opens the file as it is: it converts the 2.6 files and
// the zipped one on open, so those are only checked for round trips.
func emfLoadable(path string) bool {
	base := filepath.Base(path)
	return !strings.Contains(base, "-2.6") && !strings.Contains(base, "zipped")
}

// archiEMF runs the archi-emf tool (check or canonical) on files, skipping when ARCHI_EMF is unset.
func archiEMF(t testing.TB, mode string, files ...string) {
	t.Helper()
	tool := os.Getenv("ARCHI_EMF")
	if tool == "" {
		t.Skip("ARCHI_EMF not set")
	}
	out, err := exec.Command(tool, append([]string{mode}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("archi-emf %s: %v\n%s", mode, err, out)
	}
}
