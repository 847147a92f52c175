package giteatest

import (
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// The harness starts a Gitea whose three users are who their tokens say, and a repository whose
// main branch asks for one approval.
func TestShared_UsersAndProtection(t *testing.T) {
	g := Shared(t)
	t.Logf("gitea at %s started in %s", g.URL, g.Started)
	for _, u := range []User{g.Owner, g.Reviewer, g.Bot} {
		var me struct {
			Login string `json:"login"`
		}
		if err := g.API(u, "GET", "/user", nil, &me); err != nil {
			t.Fatal(err)
		}
		if me.Login != u.Name {
			t.Errorf("token of %s is %s's", u.Name, me.Login)
		}
	}
	r := g.NewRepo(t, "harness")
	var bp struct {
		RequiredApprovals int `json:"required_approvals"`
	}
	if err := g.API(g.Owner, "GET", "/repos/"+r.FullName()+"/branch_protections/main", nil, &bp); err != nil {
		t.Fatal(err)
	}
	if bp.RequiredApprovals != 1 {
		t.Errorf("main requires %d approvals, want 1", bp.RequiredApprovals)
	}
	sha := r.PutFile(t, g.Bot, "plan-1", "main", "plans/one.json", "{}\n")
	if len(sha) != 40 {
		t.Errorf("commit %q", sha)
	}
}
