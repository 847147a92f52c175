package policy

import (
	"context"
	"net/http"
	"net/http/httptest"
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
func TestRules_ReachNothing(t *testing.T) {
	srv, asked := listener(t)
	plan := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[
		{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`)
	for name, call := range map[string]string{
		"http.send":          `http.send({"method": "POST", "url": "` + srv.URL + `", "body": input})`,
		"net.lookup_ip_addr": `net.lookup_ip_addr("localhost")`,
		"opa.runtime":        `opa.runtime()`,
	} {
		t.Run(name, func(t *testing.T) {
			rego := "package p\ndeny contains {\"rule\": \"r\", \"message\": \"m\"} if {\n\tx := " + call + "\n\tis_string(x)\n}\n"
			r := Load(workspace(t, map[string]string{"p.rego": rego}))
			o := plans.Check(plan, example(t), plans.Options{Rules: r})
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
