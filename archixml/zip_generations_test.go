package archixml

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/internal/testenv"
)

// A zipped model's bytes follow from its content, not from how many saves it went through: two
// edits made on the model as Archi saved it, in memory, save to the same bytes as the first edit
// saved, loaded again and given the second (a daemon keeps the model in memory; the proof that a
// commit applied a plan replays it on the parent's model as committed). Each save of model.xml
// appended another extended-timestamp field to the header it was loaded with, so a plan applied
// by the daemon was not recognised as applied, and was applied twice.
func TestSave_ZippedGenerationsSame(t *testing.T) {
	corpus := testenv.Path("ARCHIPLAN_CORPUS")
	if corpus == "" {
		t.Skip("ARCHIPLAN_CORPUS not set")
	}
	data, err := os.ReadFile(filepath.Join(corpus, "archi", "model_zipped.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	const view = "id-9e7f2e0dbf484497b1e0f3937033e5cb"
	edits := []func(*Model) error{
		func(m *Model) error { return m.Rename(view, "First") },
		func(m *Model) error { return m.SetDocumentation(view, "Second") },
		func(m *Model) error { return m.Rename(view, "Third") },
	}
	// kept in memory: every edit made on the model as Archi saved it, saved after each
	kept, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	// reloaded: each edit made on the bytes the edit before saved
	saved := data
	for i, edit := range edits {
		if err := edit(kept); err != nil {
			t.Fatal(err)
		}
		inMemory, err := kept.Save()
		if err != nil {
			t.Fatal(err)
		}
		m, err := Load(saved)
		if err != nil {
			t.Fatal(err)
		}
		if err := edit(m); err != nil {
			t.Fatal(err)
		}
		if saved, err = m.Save(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(inMemory, saved) {
			t.Fatalf("after edit %d the same model saves to other bytes once reloaded (%d bytes kept in memory, %d reloaded)", i, len(inMemory), len(saved))
		}
	}
}
