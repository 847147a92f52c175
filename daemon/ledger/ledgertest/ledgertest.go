// Package ledgertest builds what the tests of the ledger and the daemon share: real git
// repositories (a bare remote and workspaces cloned from it), ledgers on them, plans, and the
// checks every team test makes of the remote (a linear history, each model read by Archi's EMF).
// It is for tests only.
package ledgertest

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/archiplan/archiplan/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/store"
)

// Origin is the team remote every workspace of Team pulls from and pushes to.
var Origin = ledger.Remote{Name: "origin", Pull: true, Push: true}

// Signature is the approver of test applies.
var Signature = store.Signature{Name: "t", Email: "t@t"}

// Git runs git in dir and returns its output, trimmed; it fails the test when git does.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := GitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

// GitErr runs git in dir, for a caller that is not a test (a worker process).
func GitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Team makes a bare remote holding the example model and n workspaces cloned from it (the first
// made by archiplan init and pushed), each with its inbox folder.
func Team(t testing.TB, n int) (string, []*store.Workspace) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	Git(t, root, "init", "-q", "--bare", "-b", "main", bare)
	seed, _ := archixml.Example().Save()
	first := filepath.Join(root, "w0")
	if _, _, err := store.Init(first, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: Signature}); err != nil {
		t.Fatal(err)
	}
	Git(t, first, "remote", "add", "origin", bare)
	Git(t, first, "push", "-q", "origin", "main")
	Git(t, first, "branch", "-q", "--set-upstream-to=origin/main")
	var wss []*store.Workspace
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("w%d", i))
		if i > 0 {
			Git(t, root, "clone", "-q", bare, dir)
			if err := os.MkdirAll(filepath.Join(dir, "plans"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		ws, err := store.Open(dir, "model.archimate")
		if err != nil {
			t.Fatal(err)
		}
		wss = append(wss, ws)
	}
	return bare, wss
}

// Inbox is a workspace's inbox (plans/), with its records where archiplan keeps them.
func Inbox(ws *store.Workspace) *inbox.Inbox {
	return inbox.New(filepath.Join(ws.Root, "plans"), ws.GitPath("archiplan/inbox"))
}

// Ledger is a ledger on a workspace and its inbox, syncing with Origin.
func Ledger(ws *store.Workspace) *ledger.Ledger {
	return ledger.New(ledger.Config{Workspace: ws, Inbox: Inbox(ws), ApprovedBy: Signature, Remote: Origin})
}

// Rename is a plan renaming one element.
func Rename(id, to string) []byte {
	return []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"rename to %s","actions":[{"op":"rename_element","element_id":%q,"new_name":%q}]}`, to, id, to))
}

// RenameIn renames an object in a model file as Archi saves it (archixml writes what Archi
// writes): a person's edit in Archi, in tests.
func RenameIn(t testing.TB, path, id, name string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Rename(id, name); err != nil {
		t.Fatal(err)
	}
	out, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Model is the model at HEAD's bytes.
func Model(t testing.TB, ws *store.Workspace) []byte {
	t.Helper()
	h, err := ws.ReadModel()
	if err != nil {
		t.Fatal(err)
	}
	return h.Data
}

// Elements are the ids of the model's elements at HEAD, in document order.
func Elements(t testing.TB, ws *store.Workspace) []string {
	t.Helper()
	m, err := archixml.Load(Model(t, ws))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range m.Elements() {
		ids = append(ids, e.ID())
	}
	return ids
}

// Preview submits a plan to a ledger's inbox and previews it, as the daemon does: the plan is
// NAME.json with its preview, report and record.
func Preview(t testing.TB, l *ledger.Ledger, name string, raw []byte) inbox.Entry {
	t.Helper()
	b := l.Inbox()
	if err := b.Submit(name, raw); err != nil {
		t.Fatal(err)
	}
	e, err := b.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Check(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Publish(c); err != nil {
		t.Fatal(err)
	}
	return e
}

// Approve renames a previewed plan to NAME.approved and has the ledger apply it.
func Approve(t testing.TB, l *ledger.Ledger, name string) (*ledger.Result, error) {
	t.Helper()
	b := l.Inbox()
	if err := b.Approve(name); err != nil {
		t.Fatal(err)
	}
	e, err := b.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return l.Approve(context.Background(), e)
}

// Linear fails the test when the remote's branch holds a merge commit, and returns its subjects,
// newest first.
func Linear(t testing.TB, bare string) []string {
	t.Helper()
	if merges := Git(t, bare, "log", "--merges", "--format=%H %s", "main"); merges != "" {
		t.Fatalf("merge commits on the remote:\n%s", merges)
	}
	return strings.Split(Git(t, bare, "log", "--format=%s", "main"), "\n")
}

// Applied counts the apply commits of each plan NAME on a repository's branch (by Plan-Id).
func Applied(t testing.TB, repo string) map[string]int {
	t.Helper()
	applied := map[string]int{}
	for _, line := range strings.Split(Git(t, repo, "log", "--format=%(trailers:key=Plan-Id,valueonly)", "main"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			applied[ledger.PlanName(line)]++
		}
	}
	return applied
}

// CheckRemoteModels has Archi's EMF check every model in the history of a repository's main
// branch (merges' sides included), when ARCHI_EMF is set.
func CheckRemoteModels(t testing.TB, repo string) {
	t.Helper()
	tool := testenv.EMF(t)
	if tool == "" {
		return
	}
	dir := t.TempDir()
	var files []string
	for _, c := range strings.Fields(Git(t, repo, "log", "--format=%H", "main")) {
		out := Git(t, repo, "show", c+":model.archimate")
		f := filepath.Join(dir, c+".archimate")
		if err := os.WriteFile(f, []byte(out+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if out, err := exec.Command(tool, append([]string{"check"}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("archi-emf check: %v\n%s", err, out)
	}
}

// SynthWorkspace makes a workspace holding a generated model of n elements (archiplan synth's),
// and returns the model as loaded.
func SynthWorkspace(t testing.TB, n int) (*store.Workspace, *archixml.Model) {
	t.Helper()
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	ws, _, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: data, Author: Signature})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = archixml.Load(data); err != nil {
		t.Fatal(err)
	}
	return ws, m
}

// Plan100 is a 100-action plan: 60 renames, 20 properties, 10 new elements with a relationship
// each, spread over the whole model; round makes every plan different.
func Plan100(m *archixml.Model, round int) []byte {
	return plan100(m, round, func(i int) int { return i * 7919 }, func(i int) int { return i*104729 + 1 }, func(i int) int { return i })
}

// Plan100Within is a plan like Plan100 that touches only the 100 elements from first on: plans
// whose ranges do not overlap are independent approvals.
func Plan100Within(m *archixml.Model, round, first int) []byte {
	return plan100(m, round, func(i int) int { return first + i }, func(i int) int { return first + 60 + i }, func(i int) int { return first + 80 + i })
}

func plan100(m *archixml.Model, round int, renamed, property, source func(int) int) []byte {
	els := m.Elements()
	el := func(i int) string { s, _ := json.Marshal(els[i%len(els)].ID()); return string(s) }
	var acts []string
	for i := 0; i < 60; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d.%d"}`, el(renamed(i)), round, i))
	}
	for i := 0; i < 20; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"set_property","element_id":%s,"key":"round","value":"%d"}`, el(property(i)), round))
	}
	for i := 0; i < 10; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"create_element","type":"Goal","name":"Goal %d.%d","ref_id":"g%d"}`, round, i, i),
			fmt.Sprintf(`{"op":"create_relationship","source_id":%s,"target_id":"g%d","relationship_type":"Association"}`, el(source(i)), i))
	}
	return []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"round %d","actions":[%s]}`, round, strings.Join(acts, ",")))
}

// PicturesUnderLabels is a script for a browser showing a preview's views (archiplan's own page, a
// forge's comment): called with the element holding the preview, it returns "" when each view's
// pictures read in order, each under its own label ("before:" above the before picture, which is
// above "after:", above the after picture), or what it saw otherwise (issue 38: a forge that set
// each label under its picture made a reader take the before picture for the after one).
const PicturesUnderLabels = `((root) => {
	const seen = [];
	const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		let side, box;
		if (n.nodeType === Node.TEXT_NODE) {
			const m = /^\s*(before|after):\s*$/.exec(n.textContent);
			if (!m) continue;
			const r = document.createRange();
			r.selectNodeContents(n);
			side = m[1] + " label"; box = r.getBoundingClientRect();
		} else if (n.tagName === "IMG" && /^(before|after)$/.test(n.alt)) {
			side = n.alt + " picture"; box = n.getBoundingClientRect();
		} else continue;
		seen.push({side, top: Math.round(box.top + scrollY), bottom: Math.round(box.bottom + scrollY)});
	}
	const say = (s) => s + ": " + JSON.stringify(seen);
	if (!seen.some((s) => s.side.endsWith(" picture"))) return say("no picture");
	for (let i = 0; i < seen.length; i++) {
		const s = seen[i], prev = seen[i - 1];
		if (s.side.endsWith(" picture") && (!prev || prev.side !== s.side.replace("picture", "label")))
			return say(s.side + " (item " + i + ") follows no label of its own");
		if (prev && prev.bottom > s.top) return say(s.side + " (item " + i + ") is not below " + prev.side);
	}
	return "";
})`
