package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// -update rewrites the journeys' golden transcripts (testdata/golden/journeys) from this run.
var update = flag.Bool("update", false, "rewrite the golden transcripts of the journeys and docs/reference/*.md")

// transcriptFile is where a script gathers what the person reads, step by step.
const transcriptFile = ".transcript"

// Journey scripts keep what the person reads at each step, as Atlantis keeps its golden files:
// "transcript TITLE FILE..." adds the files (stdout and stderr included) under a title, and
// "golden NAME" compares the whole with testdata/golden/journeys/NAME. What differs from run to
// run (commit ids, hashes, times, the work folder) is written as a placeholder.
var (
	hash64 = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	hash40 = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	hash12 = regexp.MustCompile(`\b[0-9a-f]{12}\b`)
	stamp  = regexp.MustCompile(`\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?( UTC|Z)?`)
)

func normalize(ts *testscript.TestScript, s string) string {
	s = strings.ReplaceAll(s, ts.Getenv("WORK"), "$WORK")
	if c := ts.Getenv("ARCHIPLAN_CORPUS"); c != "" {
		s = strings.ReplaceAll(s, c, "$ARCHIPLAN_CORPUS")
	}
	return normalizeIDs(s)
}

// normalizeIDs writes what differs from run to run (hashes, commit ids, times) as placeholders.
func normalizeIDs(s string) string {
	s = hash64.ReplaceAllString(s, "<sha256>")
	s = hash40.ReplaceAllString(s, "<commit>")
	s = hash12.ReplaceAllString(s, "<hash>")
	return stamp.ReplaceAllString(s, "<time>")
}

func transcript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: transcript TITLE FILE...")
	}
	var b bytes.Buffer
	b.WriteString("=== " + args[0] + "\n")
	for _, f := range args[1:] {
		if len(args) > 2 {
			b.WriteString("--- " + f + "\n")
		}
		b.WriteString(normalize(ts, ts.ReadFile(f)))
		if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	path := filepath.Join(ts.Getenv("WORK"), transcriptFile)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	_, err = f.Write(b.Bytes())
	ts.Check(err)
	ts.Check(f.Close())
}

func golden(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: golden NAME")
	}
	got, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), transcriptFile))
	ts.Check(err)
	path := filepath.Join(ts.Getenv("GOLDEN_DIR"), args[0])
	if *update {
		ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
		ts.Check(os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		ts.Fatalf("%v (go test ./cmd/archiplan -run TestScripts/%s -update writes it)", err, strings.TrimSuffix(args[0], ".txt"))
	}
	if !bytes.Equal(got, want) {
		ts.Logf("what the person reads:\n%s", got)
		ts.Fatalf("the transcript differs from %s (go test ./cmd/archiplan -run TestScripts -update, then review the diff)", args[0])
	}
}

// follow PLAN-NAME: does what the rejection of plans/PLAN-NAME.rejected says to do next, word
// for word: the command after "Next: " in its report's reason, up to the first "(", is run as
// the archiplan binary would be.
func follow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: follow NAME")
	}
	var report struct {
		Reason string `json:"reason"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(filepath.Join("plans", args[0]+".report.json"))), &report))
	_, next, ok := strings.Cut(report.Reason, "Next: ")
	if !ok {
		ts.Fatalf("the rejection of %s names no step: %q", args[0], report.Reason)
	}
	step, _, _ := strings.Cut(next, "(")
	words := strings.Fields(step)
	if len(words) < 2 || words[0] != "archiplan" {
		ts.Fatalf("the step %q is not an archiplan command", step)
	}
	ts.Logf("follow: %s", strings.Join(words, " "))
	err := ts.Exec(words[0], words[1:]...)
	if err != nil != neg {
		ts.Fatalf("%s: %v", strings.Join(words, " "), err)
	}
}
