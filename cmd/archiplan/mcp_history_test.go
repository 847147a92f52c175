package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
)

// object_history (blame) answers as log --object does, from the same index: a commit made by
// hand in Archi renaming the customer, then its creation; read-only, the workspace untouched.
func TestMCP_ObjectHistory(t *testing.T) {
	dir := exampleWorkspace(t)
	m := archixml.Example()
	var customer string
	for _, e := range m.Elements() {
		if e.Name() == "Customer" {
			customer = e.ID()
		}
	}
	if err := m.Rename(customer, "Client"); err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	if err := os.WriteFile(filepath.Join(dir, "model.archimate"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "commit", "-qam", "renamed in Archi").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	before, headBefore := snapshot(t, dir), head(t, dir)
	cs := mcpSession(t, dir)
	text, isErr := call(t, cs, "object_history", map[string]any{"id": customer})
	var got struct {
		Object  string
		Entries []ledger.ObjectEntry
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil || isErr || got.Object != customer || len(got.Entries) != 2 {
		t.Fatalf("object_history: %s", text)
	}
	if e := got.Entries[0]; !strings.Contains(e.Author, "Ada") || !strings.Contains(strings.Join(e.Changes, "\n"), `renamed "Customer" to "Client"`) {
		t.Errorf("the hand commit: %+v", e)
	}
	if !strings.HasPrefix(got.Entries[1].Changes[0], "created as") {
		t.Errorf("the creation: %+v", got.Entries[1])
	}
	if text, isErr := call(t, cs, "object_history", map[string]any{"id": customer, "limit": 1}); isErr || !strings.Contains(text, `"more": 1`) {
		t.Errorf("limit 1: %s", text)
	}
	if after := snapshot(t, dir); !maps.Equal(before, after) || head(t, dir) != headBefore {
		t.Error("object_history changed the workspace")
	}
}
