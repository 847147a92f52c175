package ledger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv("ARCHIPLAN_SYNC_WORKER"); dir != "" {
		os.Exit(syncWorker(dir))
	}
	os.Exit(m.Run())
}

// syncWorker syncs the workspace at dir once, as the daemon's timer or `archiplan sync` does.
func syncWorker(dir string) int {
	ws, err := store.Open(dir, "model.archimate")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if _, err := lt.Ledger(ws).Sync(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "sync:", err)
		return 1
	}
	return 0
}

// colleague is a plain clone of the remote where a person edits the model by hand and uses git.
type colleague struct {
	t   *testing.T
	dir string
}

func newColleague(t *testing.T, bare string) *colleague {
	dir := filepath.Join(t.TempDir(), "colleague")
	lt.Git(t, filepath.Dir(dir), "clone", "-q", bare, dir)
	return &colleague{t: t, dir: dir}
}

// rename renames an element by hand and commits it, as a person using Archi and git would.
func (c *colleague) rename(id, to string) {
	c.t.Helper()
	path := filepath.Join(c.dir, "model.archimate")
	data, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := m.Rename(id, to); err != nil {
		c.t.Fatal(err)
	}
	out, err := m.Save()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		c.t.Fatal(err)
	}
	lt.Git(c.t, c.dir, "commit", "-q", "-am", "hand edit: "+to)
}

func (c *colleague) head() string { return lt.Git(c.t, c.dir, "rev-parse", "HEAD") }

func inboxState(t *testing.T, l *ledger.Ledger, name string) (inbox.State, plans.Report) {
	t.Helper()
	e, err := l.Inbox().Find(name)
	if err != nil {
		return "", plans.Report{}
	}
	var r plans.Report
	data, _ := os.ReadFile(l.Inbox().Path(inbox.ReportFile(name)))
	_ = json.Unmarshal(data, &r)
	return e.State, r
}

// A colleague's `git pull` that merges lands while a workspace holds unpushed applies: its sync
// makes them again on top of the merge (one parent each: archiplan never merges), drops the one
// whose element the colleague's side changed (naming that commit), counts ahead and behind as
// git does, and an approval previewed before the merge is validated again across it.
func TestTeam_ColleagueMerges(t *testing.T) {
	bare, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	c := newColleague(t, bare)
	c.rename(els[5], "Hand Edit") // not pushed yet
	handEdit := c.head()

	applyAndSync(t, b, "r1", lt.Rename(els[0], "Client"))
	if err := a.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	lt.Preview(t, a, "late", lt.Rename(els[6], "Late"))
	lt.Preview(t, a, "mine", lt.Rename(els[0], "Client Ltd")) // on top of r1's change: no conflict with it
	lt.Preview(t, a, "clash", lt.Rename(els[5], "Clash"))     // the colleague changed this one
	for _, n := range []string{"mine", "clash"} {
		if _, err := lt.Approve(t, a, n); err != nil {
			t.Fatalf("approve %s: %v", n, err)
		}
	}
	// the colleague pulls with a merge and pushes it
	lt.Git(t, c.dir, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	if parents := strings.Fields(lt.Git(t, c.dir, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Fatalf("the colleague's pull did not merge: parents %v", parents)
	}
	lt.Git(t, c.dir, "push", "-q", "origin", "main")
	merge := c.head()

	if err := a.Pull(context.Background()); err != nil { // fetches; diverged, so no fast-forward
		t.Fatal(err)
	}
	if ahead, behind, err := w[0].AheadBehind("origin"); err != nil || ahead != 2 || behind != 2 {
		t.Fatalf("%d ahead, %d behind (%v); git says 2 and 2 (mine, clash; the hand edit and the merge)", ahead, behind, err)
	}
	res, err := a.Sync(context.Background())
	if err != nil {
		t.Fatalf("sync over a merge: %v", err)
	}
	if !res.Pushed || res.Rebased != 1 || len(res.Dropped) != 1 || res.Dropped[0].PlanID != ledger.PlanID("clash", plans.SHA256(lt.Rename(els[5], "Clash"))) ||
		!strings.Contains(res.Dropped[0].Reason, store.Short(handEdit)) {
		t.Fatalf("%+v", res)
	}
	if st, r := inboxState(t, a, "clash"); st != inbox.Rejected || r.Verdict != ledger.VerdictStale || !strings.Contains(r.Reason, "hand edit: Hand Edit") {
		t.Fatalf("clash: %s %+v", st, r)
	}
	// mine sits on the merge with one parent; the only merge on the remote is the colleague's
	top := lt.Git(t, bare, "rev-parse", "main")
	if p := lt.Git(t, bare, "log", "-1", "--format=%P", top); p != merge {
		t.Fatalf("mine's parents %q, want the merge %s", p, merge)
	}
	if merges := lt.Git(t, bare, "log", "--merges", "--format=%H", "main"); merges != merge {
		t.Fatalf("merge commits on the remote: %s", merges)
	}
	model := lt.Git(t, bare, "show", "main:model.archimate")
	for _, want := range []string{`name="Client Ltd"`, `name="Hand Edit"`} {
		if !strings.Contains(model, want) {
			t.Fatalf("the remote's model lacks %s", want)
		}
	}
	if strings.Contains(model, "Clash") {
		t.Fatal("the dropped plan is on the remote")
	}
	if ahead, behind, _ := w[0].AheadBehind("origin"); ahead != 0 || behind != 0 {
		t.Fatalf("%d ahead, %d behind after the sync", ahead, behind)
	}
	// previewed at r1, approved now: HEAD moved through the hand edit, the merge and mine, none
	// of which touched what it reads
	res2, err := lt.Approve(t, a, "late")
	if err != nil || res2.Revalid == "" {
		t.Fatalf("approval across a merge: %v %+v", err, res2)
	}
	if _, err := a.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := lt.Applied(t, bare); n["late"] != 1 || n["mine"] != 1 || n["clash"] != 0 || n["r1"] != 1 {
		t.Fatalf("applied on the remote: %v", n)
	}
	lt.CheckRemoteModels(t, bare)
}

// Two workspaces approve the same plan bytes from different heads: the one that pushes second
// finds the plan applied on the remote and does not apply it again.
func TestTeam_SamePlanTwoWorkspaces(t *testing.T) {
	bare, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	applyAndSync(t, b, "x", lt.Rename(els[3], "Other")) // b's head is not a's
	shared := []byte(`{"schema_version":"2.0","status":"ready","summary":"a goal","actions":[{"op":"create_element","type":"Goal","name":"Shared Goal"}]}`)
	for _, l := range []*ledger.Ledger{a, b} {
		lt.Preview(t, l, "shared", shared)
		if _, err := lt.Approve(t, l, "shared"); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := b.Sync(context.Background()); err != nil || !res.Pushed {
		t.Fatalf("%+v %v", res, err)
	}
	res, err := a.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.PlanID("shared", plans.SHA256(shared))
	if len(res.OnRemote) != 1 || res.OnRemote[0] != id || len(res.Dropped) != 0 {
		t.Fatalf("%+v", res)
	}
	if n := lt.Applied(t, bare)["shared"]; n != 1 {
		t.Fatalf("shared applied %d times on the remote", n)
	}
	for _, model := range []string{lt.Git(t, bare, "show", "main:model.archimate"), string(lt.Model(t, w[0]))} {
		if n := strings.Count(model, `name="Shared Goal"`); n != 1 {
			t.Fatalf("%d elements named Shared Goal", n)
		}
	}
	if st, _ := inboxState(t, a, "shared"); st != "" {
		t.Fatalf("shared is %s in the inbox: it is applied", st)
	}
	lt.Linear(t, bare)
	lt.CheckRemoteModels(t, bare)
}

// A sync from the command line (a ledger with the workspace's inbox, no daemon) that drops a plan
// writes NAME.rejected with the reason, beside a new plan that took the name meanwhile; the push
// it lost leaves no "last push failed" once the workspace is in sync.
func TestTeam_SyncRejectsWhereverItRuns(t *testing.T) {
	_, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	lt.Preview(t, b, "mine", lt.Rename(els[0], "Patron"))
	if _, err := lt.Approve(t, b, "mine"); err != nil {
		t.Fatal(err)
	}
	applyAndSync(t, a, "theirs", lt.Rename(els[0], "Customer Ltd"))
	if err := b.Inbox().Submit("mine", lt.Rename(els[1], "New")); err != nil { // a new plan takes the name
		t.Fatal(err)
	}
	res, err := lt.Ledger(w[1]).Sync(context.Background())
	if err != nil || len(res.Dropped) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if st, r := inboxState(t, b, "mine-2"); st != inbox.Rejected || !strings.Contains(r.Reason, "rename to Customer Ltd") {
		t.Fatalf("mine-2: %s %+v", st, r)
	}
	raw, err := os.ReadFile(b.Inbox().Path(inbox.RejectedFile("mine-2")))
	if err != nil || !bytes.Equal(raw, lt.Rename(els[0], "Patron")) {
		t.Fatalf("the rejected plan is not the dropped one: %s %v", raw, err)
	}
	if st, _ := inboxState(t, b, "mine"); st != inbox.Pending {
		t.Fatalf("the new plan mine is %s", st)
	}
	if ahead, behind, _ := w[1].AheadBehind("origin"); ahead != 0 || behind != 0 {
		t.Fatalf("%d ahead, %d behind", ahead, behind)
	}
	if rs := w[1].RemoteState(); rs.LastPushError != "" {
		t.Fatalf("in sync, yet status would say the last push failed: %s", rs.LastPushError)
	}
}

// A sync killed (SIGKILL) while its push, which follows a conflict drop, is at the remote: the
// dropped plan is already rejected in the inbox, and whether the remote took the push or not,
// the next sync ends with every plan applied once or rejected, and status tells the truth.
func TestTeam_KillDuringPush(t *testing.T) {
	for _, landed := range []bool{false, true} {
		t.Run(fmt.Sprintf("landed=%v", landed), func(t *testing.T) {
			bare, w := lt.Team(t, 2)
			a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
			els := lt.Elements(t, w[0])
			for _, p := range []struct {
				name string
				raw  []byte
			}{{"mine", lt.Rename(els[0], "Patron")}, {"other", lt.Rename(els[3], "Other")}} {
				lt.Preview(t, b, p.name, p.raw)
				if _, err := lt.Approve(t, b, p.name); err != nil {
					t.Fatal(err)
				}
			}
			applyAndSync(t, a, "theirs", lt.Rename(els[0], "Customer Ltd"))

			// the remote holds every push in its pre-receive hook until told how it ends
			dir := t.TempDir()
			mark, gate, done := filepath.Join(dir, "at-remote"), filepath.Join(dir, "gate"), filepath.Join(dir, "done")
			hook := filepath.Join(bare, "hooks", "pre-receive")
			script := fmt.Sprintf("#!/bin/sh\ntouch %q\nwhile [ ! -f %q ]; do sleep 0.05; done\ncode=$(cat %q)\ntouch %q\nexit $code\n", mark, gate, gate, done)
			if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			before := lt.Git(t, bare, "rev-parse", "main")
			worker := exec.Command(os.Args[0], "-test.run=^$")
			worker.Env = append(os.Environ(), "ARCHIPLAN_SYNC_WORKER="+w[1].Root)
			var stderr bytes.Buffer
			worker.Stderr = &stderr
			if err := worker.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- worker.Wait() }()
			for {
				if _, err := os.Stat(mark); err == nil {
					break
				}
				select {
				case err := <-exited:
					t.Fatalf("the sync ended before its push reached the remote: %v\n%s", err, stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
			}
			if err := worker.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-exited
			code := "1"
			if landed {
				code = "0"
			}
			if err := os.WriteFile(gate, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			for {
				if _, err := os.Stat(done); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if landed {
				for lt.Git(t, bare, "rev-parse", "main") == before {
					time.Sleep(20 * time.Millisecond) // receive-pack, orphaned by the kill, moves the ref
				}
			}
			os.Remove(hook)

			// killed: the dropped plan is rejected already, with the reason, and on no branch
			st, r := inboxState(t, b, "mine")
			if st != inbox.Rejected || r.Verdict != ledger.VerdictStale || !strings.Contains(r.Reason, "rename to Customer Ltd") {
				t.Fatalf("after the kill, mine is %q %+v", st, r)
			}
			// the next start: a fetch, then a sync
			b2 := lt.Ledger(w[1])
			if err := b2.Pull(context.Background()); err != nil {
				t.Fatal(err)
			}
			if rs := w[1].RemoteState(); landed && rs.LastPush.IsZero() {
				t.Fatalf("the push landed before the kill, yet status would say last push never: %+v", rs)
			}
			if _, err := b2.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			applied := lt.Applied(t, bare)
			if applied["mine"] != 0 || applied["other"] != 1 || applied["theirs"] != 1 {
				t.Fatalf("applied on the remote: %v", applied)
			}
			if st, _ := inboxState(t, b, "mine"); st != inbox.Rejected {
				t.Fatalf("mine is %q in the end", st)
			}
			if st, _ := inboxState(t, b, "other"); st != "" {
				t.Fatalf("other is %q in the inbox although applied", st)
			}
			if ahead, behind, _ := w[1].AheadBehind("origin"); ahead != 0 || behind != 0 {
				t.Fatalf("%d ahead, %d behind", ahead, behind)
			}
			if rs := w[1].RemoteState(); rs.LastPush.IsZero() || rs.LastPushError != "" {
				t.Fatalf("remote state after the sync: %+v", rs)
			}
			lt.Linear(t, bare)
			lt.CheckRemoteModels(t, bare)
		})
	}
}
