package main

import (
	"os"
	"strings"
	"testing"
)

// The README's five minutes are run by the suite: every command its loop shows is a command of
// testdata/script/readme_loop.txtar, and the plan it shows is the script's plan, byte for byte.
func TestREADME_LoopIsTheScript(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/readme_loop.txtar")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	start, end := strings.Index(s, "## Five minutes on your own model"), strings.Index(s, "## The daemon and the review page")
	if start < 0 || end < start {
		t.Fatal("the README has no five-minute section before the daemon's")
	}
	loop := s[start:end]
	var cmds []string
	for _, line := range strings.Split(loop, "\n") {
		if cmd, ok := strings.CutPrefix(line, "    "); ok && !strings.HasPrefix(cmd, " ") &&
			(strings.HasPrefix(cmd, "archiplan ") || strings.HasPrefix(cmd, "git ") || strings.HasPrefix(cmd, "cd ")) {
			cmds = append(cmds, strings.TrimSpace(cmd))
		}
	}
	if len(cmds) < 8 {
		t.Fatalf("found %d commands in the README's loop: %q", len(cmds), cmds)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(script), "\n") {
		lines[strings.TrimPrefix(l, "exec ")] = true
	}
	for _, c := range cmds {
		if !lines[c] {
			t.Errorf("the README's command %q is not run by readme_loop.txtar", c)
		}
	}
	_, block, ok := strings.Cut(loop, "```json\n")
	if !ok {
		t.Fatal("the README's loop shows no plan")
	}
	block, _, _ = strings.Cut(block, "```")
	_, plan, ok := strings.Cut(string(script), "-- rename-customer.json --\n")
	if !ok || plan != block {
		t.Errorf("the README's plan is not the script's:\n%s\n---\n%s", block, plan)
	}
}
