package archixml

import (
	"github.com/archiplan/archiplan/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// corpusFiles returns the corpus models, skipping the test when ARCHIPLAN_CORPUS is unset.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	return testenv.CorpusModels(t)
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
	tool := testenv.EMF(t)
	if tool == "" {
		t.Skip("ARCHI_EMF not set")
	}
	out, err := exec.Command(tool, append([]string{mode}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("archi-emf %s: %v\n%s", mode, err, out)
	}
}

// testModel is the built-in example, saved and loaded back as from a file.
func testModel(t testing.TB) *Model {
	t.Helper()
	data, err := Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustID finds the object with this name.
func mustID(t testing.TB, m *Model, name string) string {
	t.Helper()
	for _, k := range []Kind{KindElement, KindView, KindRelationship} {
		for _, o := range m.All(k) {
			if o.Name() == name {
				return o.ID()
			}
		}
	}
	t.Fatalf("no object named %q", name)
	return ""
}

// mustFolder returns the top-level folder of the type.
func mustFolder(t testing.TB, m *Model, typ string) string {
	t.Helper()
	f, ok := m.TopFolder(typ)
	if !ok {
		t.Fatalf("no %s folder", typ)
	}
	return f.ID()
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
