package publish

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// The daemon's Publisher replays the ledger's last plan on the model it keeps instead of
// parsing the commit's; the person (and colleagues) move the branch with plain git meanwhile.
// Whatever they do between an apply and its publish (amend the apply with another model, amend
// only its message, reset it away and commit something else, revert it with git, let two
// applies pass before one publish, reset the branch under the Publisher and apply), the site of the
// commit published is the site of that commit written whole, from its committed model: a
// replay is used only where it gives the commit's model, and it is used there (the last step).
func TestAttack_ReplayAfterTheBranchMoved(t *testing.T) {
	e := newEnv(t)
	led := ledger.New(ledger.Config{Workspace: e.ws, Inbox: ledgertest.Inbox(e.ws), ApprovedBy: ledgertest.Signature})
	site := filepath.Join(t.TempDir(), "site")
	p := NewPublisher(e.ws, site)
	p.Replays(led.Replay)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Colleague", "-c", "user.email=c@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = e.ws.Root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	n := 0
	// apply has the ledger rename one element (the customer unless told), each time anew
	apply := func(name string, id ...string) {
		t.Helper()
		n++
		ledgertest.Preview(t, led, name, []byte(renamePlan(name, append(id, customer)[0], fmt.Sprint("Renamed ", n))))
		if _, err := ledgertest.Approve(t, led, name); err != nil {
			t.Fatal(err)
		}
	}
	// editModel renames the desk in the work tree's model, as the person would in Archi
	editModel := func(name string) {
		t.Helper()
		ledgertest.RenameIn(t, filepath.Join(e.ws.Root, e.ws.Model), desk, name)
	}
	check := func(step string, replayWanted bool) {
		t.Helper()
		head := git("rev-parse", "HEAD")
		played := replays.Load()
		got, err := p.Publish(head)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got.Commit != head {
			t.Fatalf("%s: published %s, not HEAD %s", step, got.Commit, head)
		}
		whole := filepath.Join(t.TempDir(), "whole")
		if _, err := PublishWhole(e.ws, head, whole); err != nil {
			t.Fatal(err)
		}
		sameSite(t, step, site, whole)
		if replayWanted && replays.Load() == played {
			t.Errorf("%s: the ledger's plan was not replayed where it gives the commit's model", step)
		}
	}
	check("first", false)

	apply("a1")
	editModel("Desk amended")
	git("commit", "-q", "-a", "--amend", "--no-edit")
	check("apply amended with another model", false)

	apply("a2")
	git("commit", "-q", "--amend", "-m", "plan: said otherwise")
	check("apply amended in its message only", false)

	apply("a3")
	git("reset", "-q", "--hard", "HEAD~1")
	editModel("Colleague's desk")
	git("commit", "-q", "-a", "-m", "a colleague's edit")
	check("apply reset away, another commit on its parent", false)

	apply("a4")
	git("revert", "--no-edit", "HEAD")
	check("apply reverted with git", false)

	apply("a5", desk) // the replay of a6 on a4's model would miss it
	apply("a6")
	check("two applies, one publish", false)

	apply("a7")
	check("the ledger's apply on the commit published", false) // the copy is made here
	apply("a8")
	check("replayed", true)
	git("reset", "-q", "--hard", "HEAD~1")
	apply("a9", desk) // on a7's commit, not on a8's the Publisher keeps
	check("an apply on a branch reset under the Publisher", false)
}
