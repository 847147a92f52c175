package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/internal/testenv"
)

// Issue 19: every kind of change, applied with `archiplan apply` and undone with `archiplan
// revert` (the built binary, in a real repository), comes back byte for byte: on Archisurance from
// the corpus when ARCHIPLAN_CORPUS is set, else on the example model.
func TestRevert_EveryKindThroughTheBinary(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	model := filepath.Join("..", "..", "testdata", "models", "example.archimate")
	if os.Getenv("ARCHIPLAN_CORPUS") != "" {
		model = testenv.CorpusFile(t, "archi/Archisurance.archimate")
	}
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "archiplan")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, ws
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("archiplan %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cmd := exec.Command(bin, "init", ws, "--model", model)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	modelPath := filepath.Join(ws, "model.archimate")
	applied := regexp.MustCompile(`applied (\S+) in commit`)
	kinds := map[string]bool{}
	for k, s := range opsamples.For(m) {
		name := fmt.Sprintf("op%d", k)
		if err := os.WriteFile(filepath.Join(ws, "plans", name+".json"), s.Plan(), 0o644); err != nil {
			t.Fatal(err)
		}
		out := run("apply", "plans/"+name+".json")
		id := applied.FindStringSubmatch(out)
		if id == nil {
			t.Fatalf("%s: %s", s.Name(), out)
		}
		if now, _ := os.ReadFile(modelPath); bytes.Equal(now, data) {
			t.Fatalf("%s: the apply changed nothing", s.Name())
		}
		run("revert", id[1])
		if now, _ := os.ReadFile(modelPath); !bytes.Equal(now, data) {
			t.Fatalf("%s: archiplan revert does not give back the model", s.Name())
		}
		kinds[s.Name()] = true
	}
	// the fourteen kinds of change issue 19 tried, among them
	for _, k := range []string{"style_view_object", "move_view_object", "layout_view", "set_specialization", "create_element",
		"change_type", "merge_elements", "update_relationship/access_type", "create_relationship", "create_folder",
		"create_note", "create_group", "add_connection_to_view", "remove_from_view"} {
		if !kinds[k] {
			t.Errorf("no %s was reverted", k)
		}
	}
}
