package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
	"github.com/archiplan/archiplan/store"
)

const (
	bookingApp   = "id-f39944c88abfe53aa3270913f4ceb08f"
	rentABike    = "id-5baa76a88c8ebc28c7736f8ee77eb30a"
	customerFile = "id-ab919f099d5163aef346998a70273e9f"
)

func plan(actions string) []byte {
	return []byte(`{"schema_version":"2.0","status":"ready","summary":"policy test","actions":[` + actions + `]}`)
}

// copyPolicy puts the example rules of testdata/policy into the workspace's policy/ folder.
func copyPolicy(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, policy.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("../testdata/policy")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("../testdata/policy", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func reportOf(t *testing.T, dir, name string) *plans.Report {
	b, err := os.ReadFile(filepath.Join(dir, name+".report.json"))
	if err != nil {
		return nil
	}
	var r plans.Report
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

func ruleCodes(r *plans.Report) string {
	var out []string
	for _, f := range append(append([]plans.Finding{}, r.Errors...), r.Warnings...) {
		if f.Rule != "" || f.Code == plans.PolicyError {
			out = append(out, string(f.Code)+" "+f.Rule)
		}
	}
	return strings.Join(out, ", ")
}

// The workspace's rules through the daemon: each example rule refuses the plan written against it
// and lets its fixed plan through; a delete in Business/Core waits for two owners, one of them a
// business architect, and is withdrawn when renamed by hand before; a policy changed while the
// daemon runs previews the pending plans again, and a rule that errs refuses every plan.
func TestDaemon_Policy(t *testing.T) {
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: lt.Signature})
	if err != nil {
		t.Fatal(err)
	}
	led := lt.Ledger(ws)
	// Business/Core holds the Customer File (no rules yet)
	if _, err := led.Apply(context.Background(), ledger.Request{Name: "core", File: "core.json",
		Raw: plan(`{"op":"move_to_folder","element_id":"` + customerFile + `","folder_path":"Business/Core"}`)}); err != nil {
		t.Fatal(err)
	}
	copyPolicy(t, dir)
	options := func() (plans.Options, error) {
		o := plans.Options{}
		if r := policy.Load(dir); r != nil {
			o.Rules = r
		}
		return o, nil
	}
	o, _ := options()
	led.SetOptions(o)
	d := New(Config{Ledger: led, Reload: options, ConfigFile: filepath.Join(dir, ".archiplan.yaml"), PolicyDir: filepath.Join(dir, policy.Dir),
		Debounce: 20 * time.Millisecond, Rescan: time.Second, Settle: 50 * time.Millisecond})
	if err := d.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	box := filepath.Join(dir, "plans")
	cases := []struct{ name, actions, want string }{
		{"no-owner", `{"op":"create_element","type":"Application Component","name":"Portal"}`, "POLICY_DENY component-owner"},
		{"owner", `{"op":"create_element","type":"Application Component","name":"Portal","ref_id":"p"},{"op":"set_property","element_id":"p","key":"owner","value":"Sales IT"}`, ""},
		{"flow-across", `{"op":"create_relationship","relationship_type":"Flow","source_id":"` + rentABike + `","target_id":"` + bookingApp + `"}`, "POLICY_DENY flow-within-layer"},
		{"flow-within", `{"op":"create_element","type":"Business Process","name":"Return a Bike","ref_id":"r"},{"op":"create_relationship","relationship_type":"Flow","source_id":"` + rentABike + `","target_id":"r"}`, ""},
		{"lower-case", `{"op":"create_element","type":"Business Role","name":"clerk"}`, "POLICY_WARN name-capitalised"},
		{"no-sla", `{"op":"create_element","type":"Business Service","name":"Repairs"}`, "POLICY_DENY required-property"},
		{"sla", `{"op":"create_element","type":"Business Service","name":"Repairs","ref_id":"s"},{"op":"set_property","element_id":"s","key":"sla","value":"99.5"}`, ""},
		{"del", `{"op":"delete_element","element_id":"` + customerFile + `"}`, ""},
	}
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(box, c.name+".json"), plan(c.actions), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		var r *plans.Report
		waitFor(t, c.name+"'s report", time.Minute, func() bool { r = reportOf(t, box, c.name); return r != nil })
		if got := ruleCodes(r); got != c.want {
			t.Errorf("%s: rule findings %q, want %q", c.name, got, c.want)
		}
		if denied := strings.Contains(c.want, "DENY"); (r.Verdict == plans.VerdictInvalid) != denied {
			t.Errorf("%s: verdict %s", c.name, r.Verdict)
		}
	}
	preview, _ := os.ReadFile(filepath.Join(box, "no-owner.preview.md"))
	if !strings.Contains(string(preview), `POLICY_DENY (action 0): component-owner\: Application Component "Portal" has no owner property`) {
		t.Errorf("the preview does not show the rule's finding:\n%s", preview)
	}

	// two owners, one a business architect: carol alone is not enough; renamed by hand, the plan
	// is withdrawn, not applied; carol and alice apply it, and the commit names both
	b := inbox.New(box, ws.GitPath("archiplan/inbox"))
	// read as an approval reads it, under the preview lock: the report is written before the
	// record, inside one Publish
	var rec *inbox.Record
	err = b.Steady(func() (err error) { rec, err = b.Record("del"); return err })
	if err != nil || len(rec.Needs) != 2 {
		t.Fatalf("the delete's needs: %+v %v", rec, err)
	}
	preview, _ = os.ReadFile(filepath.Join(box, "del.preview.md"))
	if !strings.Contains(string(preview), "core-delete-architects: 1 approval(s) by alice or bob") {
		t.Errorf("the preview does not say whose approvals the delete needs:\n%s", preview)
	}
	head := lt.Git(t, dir, "rev-parse", "HEAD")
	sum := rec.Outputs[inbox.PreviewFile("del")]
	if err := b.ApproveAs("del", sum, "", "carol"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(box, "del.json")); err != nil {
		t.Fatal("one owner's approval approved the plan")
	}
	rec, _ = b.Record("del")
	if m := inbox.MissingWords(inbox.Missing(rec.Needs, rec.Approvals)); m != "1 more from anyone (core-delete); 1 more from alice or bob (core-delete-architects)" {
		t.Errorf("missing: %q", m)
	}
	if err := b.ApproveAs("del", sum, "", "carol"); err == nil {
		t.Error("carol approved twice")
	}
	// the review page: whoever holds its session types a name beside Approve; the approval counts
	// as the session's person (the daemon's user), never as the owner typed, and only once
	if err := b.ApproveSeen("del", sum, "alice"); err != nil {
		t.Fatal(err)
	}
	rec, _ = b.Record("del")
	if got := strings.Join(rec.Approvers(), ","); got != "carol,"+inbox.OSUser() {
		t.Errorf("approvers after the page's approval typed alice: %s", got)
	}
	if err := b.ApproveSeen("del", sum, "bob"); !errors.Is(err, inbox.ErrApprovedBy) {
		t.Errorf("the page approved a second time under another typed name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(box, "del.json")); err != nil {
		t.Fatal("names typed on the page completed the owners' approvals")
	}
	if err := os.Rename(filepath.Join(box, "del.json"), filepath.Join(box, "del.approved")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hand-renamed plan withdrawn", time.Minute, func() bool {
		_, err := os.Stat(filepath.Join(box, "del.json"))
		return err == nil
	})
	if got := lt.Git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatal("a plan missing an owner's approval was applied")
	}
	waitFor(t, "del previewed again", time.Minute, func() bool {
		r, err := b.Record("del")
		return err == nil && r.Verdict == plans.VerdictValid && len(r.Approvals) == 0 && r.Outputs[inbox.PreviewFile("del")] != ""
	})
	rec, _ = b.Record("del")
	sum = rec.Outputs[inbox.PreviewFile("del")]
	for _, who := range []string{"carol", "alice"} {
		if err := b.ApproveAs("del", sum, "", who); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the delete applied", time.Minute, func() bool { return lt.Git(t, dir, "rev-parse", "HEAD") != head })
	msg := lt.Git(t, dir, "log", "-1", "--format=%B")
	for _, want := range []string{"Approved-By: carol (owner", "Approved-By: alice (owner", "Approved-By: t <t@t>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the commit lacks %q:\n%s", want, msg)
		}
	}

	// the policy changes while the daemon runs: the pending plans are previewed again under it
	if err := os.Remove(filepath.Join(dir, policy.Dir, "owner.rego")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "no-owner previewed again without its rule", time.Minute, func() bool {
		r := reportOf(t, box, "no-owner")
		return r != nil && r.Verdict == plans.VerdictValid
	})
	// a rule that errs refuses every plan, with the reason
	if err := os.WriteFile(filepath.Join(dir, policy.Dir, "errs.rego"), []byte("package errs\n\ndeny contains {\"rule\": \"r\", \"message\": sprintf(\"%d\", [to_number(c.object.name)])} if {\n\tsome c in input.changes\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"owner", "sla"} {
		waitFor(t, name+" refused by the rule that errs", time.Minute, func() bool {
			r := reportOf(t, box, name)
			return r != nil && r.Verdict == plans.VerdictInvalid && len(r.Errors) > 0 && r.Errors[0].Code == plans.PolicyError &&
				strings.Contains(r.Errors[0].Message, "to_number")
		})
	}
}
