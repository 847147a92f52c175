package giteatest

import (
	"io"
	"net/http"
	"regexp"
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

// With a frontend build (ARCHIPLAN_GITEA_PUBLIC, or public/ beside the binary), the pages Gitea
// serves name scripts and styles it serves: every /assets/ address on its sign-in page answers.
func TestShared_ServesItsFrontend(t *testing.T) {
	g := Shared(t)
	if !g.Frontend {
		t.Skipf("no frontend build: set %s (.ci/run builds one)", EnvPublic)
	}
	page := get(t, g.URL+"/user/login")
	assets := regexp.MustCompile(`(?:src|href)="(?:`+regexp.QuoteMeta(g.URL)+`)?(/assets/(?:js|css)/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(assets) < 2 {
		t.Fatalf("the sign-in page names %d scripts and styles:\n%s", len(assets), page)
	}
	for _, a := range assets {
		get(t, g.URL+a[1])
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, res.Status, err)
	}
	return string(body)
}
