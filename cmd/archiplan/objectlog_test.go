package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
)

// log --object: a plan's apply (with its summary and approver), a commit made by hand as Archi
// writes files, and the commit that created the object, newest first, read from the models.
func TestLog_Object(t *testing.T) {
	seed, err := os.ReadFile(corpusModel(t, "archi/Archisurance.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	r := newGitRepo(t, seed)
	const id = "1368" // Business Role "Insurant", shown on views
	plan := `{"schema_version":"3.1","status":"ready","summary":"Rename the insurant","actions":[` +
		`{"op":"rename_element","element_id":"1368","new_name":"Policy holder"},` +
		`{"op":"set_property","element_id":"1368","key":"Owner","value":"Sales"}]}`
	pf := filepath.Join(r.dir, "plans", "rename.json")
	if err := os.WriteFile(pf, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := archiplan(t, "apply", "--repo", r.dir, pf); code != 0 {
		t.Fatalf("apply: %s %s", out, errs)
	}
	// read once: the index under .git/ is made, then brought up to date by the next read
	if out, errs, code := archiplan(t, "log", "--repo", r.dir, "--object", id); code != 0 || !strings.Contains(out, "Rename the insurant") {
		t.Fatalf("log before the hand edit: %s %s", out, errs)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "archiplan", "objlog", "current")); err != nil {
		t.Fatalf("no index of object histories under .git: %v", err)
	}
	// a person edits in Archi: the name again, and the object moved on a view
	m := string(r.model())
	m = strings.Replace(m, `name="Policy holder" id="1368"`, `name="Insured" id="1368"`, 1)
	if err := os.WriteFile(filepath.Join(r.dir, "model.archimate"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	r.git("commit", "-q", "-am", "renamed in Archi")
	out, errs, code := archiplan(t, "log", "--repo", r.dir, "--object", id, "--json")
	if code != 0 {
		t.Fatalf("log: %s", errs)
	}
	var got struct {
		Entries []ledger.ObjectEntry
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 3 {
		t.Fatalf("%d entries, want 3: %s", len(got.Entries), out)
	}
	hand, apply, created := got.Entries[0], got.Entries[1], got.Entries[2]
	if !strings.Contains(strings.Join(hand.Changes, "\n"), `renamed "Policy holder" to "Insured"`) || hand.PlanID != "" || !strings.Contains(hand.Author, "Ada") {
		t.Errorf("the hand edit: %+v", hand)
	}
	words := strings.Join(apply.Changes, "\n")
	if apply.PlanID == "" || apply.Summary != "Rename the insurant" || !strings.Contains(words, `renamed "Insurant" to "Policy holder"`) || !strings.Contains(words, "Owner") {
		t.Errorf("the apply: %+v", apply)
	}
	if !strings.HasPrefix(created.Changes[0], `created as Business Role "Insurant"`) {
		t.Errorf("the creation: %+v", created)
	}
	text, _, _ := archiplan(t, "log", "--repo", r.dir, "--object", id)
	if !strings.Contains(text, "plan "+apply.PlanID+": Rename the insurant") {
		t.Errorf("log --object:\n%s", text)
	}
}
