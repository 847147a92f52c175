package inbox

import (
	"os"
	"path/filepath"
	"testing"
)

// A listing taken while a plan was being renamed to .approved misses it; the outputs and record
// of that NAME must not be removed as a gone plan's, or the approval finds no record.
func TestRemoveOutputs_KeepsAPlanRenamedSinceTheListing(t *testing.T) {
	dir := t.TempDir()
	b := New(filepath.Join(dir, "plans"), filepath.Join(dir, "state"))
	os.MkdirAll(b.Dir, 0o755)
	if err := b.Submit("p07", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish("p07", Outputs{Preview: []byte("preview"), Report: []byte("{}")}, &Record{File: "p07.json"}); err != nil {
		t.Fatal(err)
	}
	l, _ := b.List()
	outputs := l.Outputs["p07"]
	// the person renames it after the listing; the listing's view of p07 is now wrong
	if err := os.Rename(b.Path("p07.json"), b.Path("p07.approved")); err != nil {
		t.Fatal(err)
	}
	if b.RemoveOutputs("p07", outputs) {
		t.Fatal("the outputs of a plan that is there were removed")
	}
	if _, err := b.Record("p07"); err != nil {
		t.Fatalf("the record went: %v", err)
	}
	for _, f := range outputs {
		if _, err := os.Stat(b.Path(f)); err != nil {
			t.Fatalf("%s went", f)
		}
	}
	// gone for real: then they go
	os.Remove(b.Path("p07.approved"))
	if !b.RemoveOutputs("p07", outputs) {
		t.Fatal("the outputs of a gone plan stay")
	}
	if _, err := b.Record("p07"); err == nil {
		t.Fatal("the record of a gone plan stays")
	}
}
