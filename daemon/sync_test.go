package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// team makes a bare remote holding the example model and n workspaces cloned from it.
func team(t testing.TB, n int) (string, []*store.Workspace) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", bare)
	seed, _ := archixml.Example().Save()
	first := filepath.Join(root, "w0")
	if _, _, err := store.Init(first, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		t.Fatal(err)
	}
	gitIn(t, first, "remote", "add", "origin", bare)
	gitIn(t, first, "push", "-q", "origin", "main")
	gitIn(t, first, "branch", "-q", "--set-upstream-to=origin/main")
	var wss []*store.Workspace
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("w%d", i))
		if i > 0 {
			gitIn(t, root, "clone", "-q", bare, dir)
			os.MkdirAll(filepath.Join(dir, "plans"), 0o755)
		}
		ws, err := store.Open(dir, "model.archimate")
		if err != nil {
			t.Fatal(err)
		}
		wss = append(wss, ws)
	}
	return bare, wss
}

func rename(id, to string) []byte {
	return []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"rename to %s","actions":[{"op":"rename_element","element_id":%q,"new_name":%q}]}`, to, id, to))
}

var origin = Remote{Name: "origin", Pull: true, Push: true}

func applyAndSync(t *testing.T, ws *store.Workspace, name string, raw []byte) *SyncResult {
	t.Helper()
	if _, err := Apply(context.Background(), ws, Request{Name: name, File: name + ".json", Raw: raw,
		ApprovedBy: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		t.Fatalf("apply %s: %v", name, err)
	}
	res, err := Sync(context.Background(), ws, origin, plans.Options{})
	if err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
	return res
}

// linear checks that the remote's branch has no merge commit.
func linear(t *testing.T, bare string) []string {
	t.Helper()
	lines := strings.Split(gitIn(t, bare, "log", "--format=%P %s", "main"), "\n")
	for _, l := range lines {
		if parents := strings.Fields(strings.SplitN(l, " plan:", 2)[0]); len(parents) > 1 && !strings.Contains(l, "plan:") {
			t.Fatalf("a merge commit on the remote: %s", l)
		}
	}
	return lines
}

func TestSync_RebasesWhenTheRemoteMoved(t *testing.T) {
	bare, w := team(t, 2)
	m, _ := archixml.Load(mustModel(t, w[0]))
	customer, desk := m.Elements()[0].ID(), m.Elements()[1].ID()

	// a pushes first
	if res := applyAndSync(t, w[0], "client", rename(customer, "Client")); !res.Pushed {
		t.Fatal("not pushed")
	}
	// b applied on the old base: its push is rejected, its plan made again on top, then pushed
	res := applyAndSync(t, w[1], "desk", rename(desk, "Front Desk"))
	if !res.Pushed || res.Rebased != 1 || len(res.Dropped) != 0 {
		t.Fatalf("%+v", res)
	}
	log := gitIn(t, bare, "log", "--format=%s", "main")
	if !strings.Contains(log, "rename to Client") || !strings.Contains(log, "rename to Front Desk") {
		t.Fatalf("remote history:\n%s", log)
	}
	if parents := gitIn(t, bare, "log", "--merges", "--format=%H", "main"); parents != "" {
		t.Fatal("a merge commit on the remote")
	}
	model, _ := os.ReadFile(w[1].ModelPath())
	if !strings.Contains(string(model), `name="Client"`) || !strings.Contains(string(model), `name="Front Desk"`) {
		t.Fatal("b's work tree is not the remote's model")
	}

	// the same object changed on the remote: b's plan is dropped as stale, naming the remote commit
	if err := Pull(context.Background(), w[0], origin); err != nil {
		t.Fatal(err)
	}
	applyAndSync(t, w[0], "client2", rename(customer, "Customer Ltd"))
	res = applyAndSync(t, w[1], "client3", rename(customer, "Patron"))
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0].Reason, "stale: remote commit") ||
		!strings.Contains(res.Dropped[0].Reason, "rename to Customer Ltd") {
		t.Fatalf("%+v", res)
	}
	if a, _, _ := w[1].AheadBehind("origin"); a != 0 {
		t.Fatalf("b still %d ahead", a)
	}
	model, _ = os.ReadFile(w[1].ModelPath())
	if strings.Contains(string(model), "Patron") || !strings.Contains(string(model), "Customer Ltd") {
		t.Fatal("the dropped plan is still in b's model")
	}
	if out := gitIn(t, w[1].Root, "status", "--porcelain"); out != "" {
		t.Fatalf("b's git status: %s", out)
	}
	checkRemoteModels(t, bare)
}

func TestSync_UnreachableRemote(t *testing.T) {
	bare, w := team(t, 1)
	m, _ := archixml.Load(mustModel(t, w[0]))
	moved := bare + ".away"
	if err := os.Rename(bare, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), w[0], Request{Name: "p", File: "p.json", Raw: rename(m.Elements()[0].ID(), "Client"),
		ApprovedBy: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(context.Background(), w[0], origin, plans.Options{}); !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("got %v, want ErrUnreachable", err)
	}
	if err := Pull(context.Background(), w[0], origin); !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("pull: %v", err)
	}
	if a, _, _ := w[0].AheadBehind("origin"); a != 1 {
		t.Fatalf("%d ahead, want 1 (the commit stays local)", a)
	}
	if rs := w[0].RemoteState(); rs.LastPushError == "" {
		t.Fatal("the failed push is not recorded")
	}
	os.Rename(moved, bare)
	res, err := Sync(context.Background(), w[0], origin, plans.Options{})
	if err != nil || !res.Pushed {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(gitIn(t, bare, "log", "--format=%s", "main"), "rename to Client") {
		t.Fatal("not on the remote")
	}
}

// A colleague's commit pushed between a preview and its approval makes the approval stale.
func TestSync_ColleagueCommitMakesApprovalStale(t *testing.T) {
	_, w := team(t, 2)
	data := mustModel(t, w[0])
	m, _ := archixml.Load(data)
	raw := rename(m.Elements()[0].ID(), "Client")
	head, _ := w[0].ReadModel()
	preview := plans.Check(raw, m, plans.Options{}).Report("p.json", plans.ModelInfo{Path: "model.archimate", Commit: head.Commit, Blob: head.Blob})
	applyAndSync(t, w[1], "colleague", rename(m.Elements()[1].ID(), "Front Desk"))
	if err := Pull(context.Background(), w[0], origin); err != nil {
		t.Fatal(err)
	}
	res, err := Apply(context.Background(), w[0], Request{Name: "p", File: "p.json", Raw: raw, Previewed: preview,
		ApprovedBy: store.Signature{Name: "t", Email: "t@t"}})
	if !errors.Is(err, ErrRefused) || res.Report.Verdict != VerdictStale {
		t.Fatalf("%v %+v", err, res)
	}
}

func mustModel(t testing.TB, ws *store.Workspace) []byte {
	t.Helper()
	h, err := ws.ReadModel()
	if err != nil {
		t.Fatal(err)
	}
	return h.Data
}

// checkRemoteModels has Archi's EMF check every model in the remote's history, when ARCHI_EMF is set.
func checkRemoteModels(t *testing.T, bare string) {
	t.Helper()
	tool := os.Getenv("ARCHI_EMF")
	if tool == "" {
		return
	}
	if !filepath.IsAbs(tool) {
		tool = filepath.Join("..", tool)
	}
	dir := t.TempDir()
	var files []string
	for _, c := range strings.Fields(gitIn(t, bare, "log", "--format=%H", "main")) {
		out := gitIn(t, bare, "show", c+":model.archimate")
		f := filepath.Join(dir, c+".archimate")
		os.WriteFile(f, []byte(out+"\n"), 0o644)
		files = append(files, f)
	}
	if out, err := exec.Command(tool, append([]string{"check"}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("archi-emf check: %v\n%s", err, out)
	}
}

// A revert made locally while the remote moved is made again on top, like an apply.
func TestSync_RevertRebased(t *testing.T) {
	bare, w := team(t, 2)
	m, _ := archixml.Load(mustModel(t, w[0]))
	customer, desk := m.Elements()[0].ID(), m.Elements()[1].ID()
	applyAndSync(t, w[0], "client", rename(customer, "Client"))
	if err := Pull(context.Background(), w[1], origin); err != nil {
		t.Fatal(err)
	}
	applyAndSync(t, w[0], "desk", rename(desk, "Front Desk"))
	id := PlanID("client", plans.SHA256(rename(customer, "Client")))
	if _, err := Revert(context.Background(), w[1], id, store.Signature{Name: "t", Email: "t@t"}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := Sync(context.Background(), w[1], origin, plans.Options{})
	if err != nil || !res.Pushed || res.Rebased != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	log := gitIn(t, bare, "log", "--format=%s", "main")
	if !strings.HasPrefix(log, "revert: rename to Client") || !strings.Contains(log, "rename to Front Desk") {
		t.Fatalf("remote history:\n%s", log)
	}
	model, _ := os.ReadFile(w[1].ModelPath())
	if strings.Contains(string(model), `name="Client"`) || !strings.Contains(string(model), `name="Front Desk"`) {
		t.Fatal("the rebased revert lost something")
	}
}
