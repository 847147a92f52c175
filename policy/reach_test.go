package policy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/archiplan/archiplan/plans"
)

// listener is a server on loopback that counts the requests it gets.
func listener(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// A pull takes the team's rules (policy/*.rego: shown, not held), and the daemon judges every plan
// with them. OPA's builtins reach the network (http.send, net.lookup_ip_addr) and the process
// (opa.runtime): a colleague's rule could send each plan, the model's names and whatever the
// process holds to a server of theirs as the daemon previews. Rules judge what a plan changes and
// reach nothing else: such a rule is refused (POLICY_ERROR), and nothing is sent.
//
// A JSON schema's "$ref" to a file:// was read by json.match_schema and json.verify_schema (any
// file, its values in the result; a pipe or /proc/self/fd/0 waited past the time limit), and
// strings.render_template ranged over an integer past the time limit: refused the same way.
// Fails on main for those three (the file's value reached the deny's message).
func TestRules_ReachNothing(t *testing.T) {
	srv, asked := listener(t)
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"e": {"enum": ["SECRET-MARKER"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[
		{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`)
	for name, call := range map[string]string{
		"http.send":               `http.send({"method": "POST", "url": "` + srv.URL + `", "body": input})`,
		"net.lookup_ip_addr":      `net.lookup_ip_addr("localhost")`,
		"opa.runtime":             `opa.runtime()`,
		"json.match_schema":       `json.match_schema("\"x\"", {"$ref": "file://` + secret + `#/e"})`,
		"json.verify_schema":      `json.verify_schema({"$ref": "file://` + secret + `"})`,
		"strings.render_template": `strings.render_template("{{range 3}}x{{end}}", {})`,
	} {
		t.Run(name, func(t *testing.T) {
			rego := "package p\ndeny contains {\"rule\": \"r\", \"message\": sprintf(\"%v\", [x])} if {\n\tsome c in input.changes\n\tc.object.name == \"Client\"\n\tx := " + call + "\n}\n"
			r := Load(workspace(t, map[string]string{"p.rego": rego}))
			o := plans.Check(plan, example(t), plans.Options{Rules: r})
			if strings.Contains(fmt.Sprint(o.Findings), "SECRET-MARKER") {
				t.Errorf("a rule read a file: %+v", o.Findings)
			}
			if o.Verdict != plans.VerdictInvalid || len(o.Errors()) != 1 || o.Errors()[0].Code != plans.PolicyError ||
				!strings.Contains(o.Errors()[0].Message, name) {
				t.Errorf("verdict %s, findings %+v; want one POLICY_ERROR naming %s", o.Verdict, o.Findings, name)
			}
		})
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("a rule reached the network: %d request(s)", n)
	}
}

// archiplan policy test runs the rules' own tests (a colleague's too) with no more reach.
func TestRules_TestsReachNothing(t *testing.T) {
	srv, asked := listener(t)
	r := Load(workspace(t, map[string]string{"p.rego": "package p\ndeny contains {\"rule\":\"r\",\"message\":\"m\"} if { input.x }",
		"p_test.rego": "package p_test\nimport data.p\ntest_sends if { x := http.send({\"method\": \"GET\", \"url\": \"" + srv.URL + "\"}); x.status_code == 200 }\ntest_denies if { count(p.deny) == 1 with input as {\"x\": true} }"}))
	res, err := r.Test(context.Background())
	if err == nil || !strings.Contains(err.Error(), "http.send") {
		t.Errorf("a test calling http.send ran: %+v %v", res, err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("a rule's test reached the network: %d request(s)", n)
	}
}
