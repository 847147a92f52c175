package main

import (
	"os"
	"strings"
	"testing"
)

// docs/teams-merge.md shows a merge of branches edited in Archi, a conflict and its resolution,
// log --object and review, with their output: every command it shows ("    $ CMD") is a step of
// testdata/script/docs_teams_merge.txtar (a transcript titled CMD), and every line of output it
// shows under a command is a line of that step's transcript, ids and times aside. The script's
// golden transcript is its real output, so the page says what the commands print.
func TestDocs_TeamsMergeIsTheScript(t *testing.T) {
	page, err := os.ReadFile("../../docs/teams-merge.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../testdata/golden/journeys/teams_merge_docs.txt")
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]map[string]bool{} // transcript title -> its lines
	var cur map[string]bool
	for _, l := range strings.Split(string(golden), "\n") {
		if title, ok := strings.CutPrefix(l, "=== "); ok {
			cur = map[string]bool{}
			steps[title] = cur
			continue
		}
		if cur != nil {
			cur[l] = true
		}
	}
	s := string(page)
	start, end := strings.Index(s, "## A merge of two people's branches"), strings.Index(s, "## Limits")
	if start < 0 || end < start {
		t.Fatal("docs/teams-merge.md has no merge section before its limits")
	}
	var cmds []string
	var out map[string]bool
	shown := 0
	for _, l := range strings.Split(s[start:end], "\n") {
		if cmd, ok := strings.CutPrefix(l, "    $ "); ok {
			cmds = append(cmds, cmd)
			out = steps[cmd]
			if out == nil {
				t.Errorf("the page's command %q is not a step of docs_teams_merge.txtar", cmd)
			}
			continue
		}
		line, indented := strings.CutPrefix(l, "    ")
		switch {
		case !indented && strings.TrimSpace(l) != "":
			out = nil // prose: the command's output ended
		case indented && out != nil && strings.TrimSpace(line) != "":
			shown++
			if !out[normalizeIDs(line)] {
				t.Errorf("under %q the page shows a line its run does not print:\n%s", cmds[len(cmds)-1], line)
			}
		}
	}
	for _, want := range []string{"git merge bob", "git merge carol", "archiplan resolve 1368", "archiplan log --object", "archiplan review main.."} {
		found := false
		for _, c := range cmds {
			found = found || strings.HasPrefix(c, want)
		}
		if !found {
			t.Errorf("the page shows no %q", want)
		}
	}
	if shown < 40 {
		t.Errorf("the page shows %d lines of output: the parse found too few", shown)
	}
}
