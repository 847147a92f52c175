package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// Every link the README and the docs give to a file of the repository leads to a file that is
// there: a newcomer follows links, and a page moved or renamed leaves them pointing at nothing.
func TestDocs_LinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	refs, err := filepath.Glob("../../docs/reference/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, refs...), "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)`)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(text), "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1] + m[2]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
					t.Errorf("%s:%d links to %s, which is not there", filepath.Base(page), n+1, target)
				}
				checked++
			}
		}
	}
	if checked < 30 {
		t.Fatalf("found only %d links in the README and docs/", checked)
	}
}
