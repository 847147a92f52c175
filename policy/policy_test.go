package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// workspace makes a folder with policy/ holding the example rules of testdata/policy (or the
// files given) and returns it.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, Dir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if files == nil {
		entries, err := os.ReadDir("../testdata/policy")
		if err != nil {
			t.Fatal(err)
		}
		files = map[string]string{}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join("../testdata/policy", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = string(b)
		}
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func example(t testing.TB) *archixml.Model {
	t.Helper()
	data, err := os.ReadFile("../testdata/models/example.archimate")
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const (
	customer    = "id-59a96df4cd3e24d3da41e81a8c7d1335"
	bookingApp  = "id-f39944c88abfe53aa3270913f4ceb08f"
	rentABike   = "id-5baa76a88c8ebc28c7736f8ee77eb30a"
	customerDoc = "id-ab919f099d5163aef346998a70273e9f"
)

func codes(o *plans.Outcome) []string {
	var out []string
	for _, f := range o.Findings {
		if strings.HasPrefix(string(f.Code), "POLICY_") {
			out = append(out, string(f.Code)+" "+f.Rule)
		}
	}
	return out
}

// Each example rule refuses the plan it is written against and lets the plan that follows it
// through.
func TestRules_Examples(t *testing.T) {
	r := Load(workspace(t, nil))
	if r == nil || r.Err() != nil {
		t.Fatalf("load: %v", r.Err())
	}
	opts := plans.Options{Rules: r}
	for _, tc := range []struct {
		name, plan string
		want       []string
		approvals  []string
	}{
		{"component without owner", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"create_element","type":"Application Component","name":"Portal"}]}`,
			[]string{"POLICY_DENY component-owner"}, []string{"application-layer"}},
		{"component with owner", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"create_element","type":"Application Component","name":"Portal","ref_id":"p"},
			{"op":"set_property","element_id":"p","key":"owner","value":"Sales IT"}]}`,
			nil, []string{"application-layer"}},
		{"owner removed from an existing component", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"remove_property","element_id":"` + bookingApp + `","key":"owner"}]}`,
			[]string{"POLICY_DENY component-owner"}, []string{"application-layer"}},
		{"flow between layers", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"create_relationship","relationship_type":"Flow","source_id":"` + rentABike + `","target_id":"` + bookingApp + `"}]}`,
			[]string{"POLICY_DENY flow-within-layer"}, nil},
		{"flow within a layer", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"create_element","type":"Business Process","name":"Return a Bike","ref_id":"r"},
			{"op":"create_relationship","relationship_type":"Flow","source_id":"` + rentABike + `","target_id":"r"}]}`,
			nil, nil},
		{"naming convention", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"rename_element","element_id":"` + customer + `","new_name":"customer"}]}`,
			[]string{"POLICY_WARN name-capitalised"}, nil},
		{"required property", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"create_element","type":"Node","name":"Edge Server"}]}`,
			[]string{"POLICY_DENY required-property"}, nil},
		{"required property given", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
			{"op":"create_element","type":"Node","name":"Edge Server","ref_id":"n"},
			{"op":"set_property","element_id":"n","key":"environment","value":"prod"}]}`,
			nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := example(t)
			o := plans.Check([]byte(tc.plan), m, opts)
			if got := strings.Join(codes(o), ", "); got != strings.Join(tc.want, ", ") {
				t.Fatalf("policy findings %q, want %q; all: %+v", got, tc.want, o.Findings)
			}
			var rules []string
			for _, a := range o.Approvals {
				rules = append(rules, a.Rule)
			}
			if strings.Join(rules, ",") != strings.Join(tc.approvals, ",") {
				t.Errorf("approvals %v, want %v", rules, tc.approvals)
			}
			wantVerdict := plans.VerdictValid
			for _, w := range tc.want {
				if strings.HasPrefix(w, "POLICY_DENY") {
					wantVerdict = plans.VerdictInvalid
				}
			}
			if o.Verdict != wantVerdict {
				t.Errorf("verdict %s, want %s", o.Verdict, wantVerdict)
			}
		})
	}
}

// A finding the model had before the plan is not the plan's: renaming a Node that has no
// environment property (the example's Booking Server) is not refused by required-property, but
// creating one is.
func TestRules_OnlyWhatThePlanIntroduces(t *testing.T) {
	r := Load(workspace(t, nil))
	m := example(t)
	o := plans.Check([]byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[
		{"op":"rename_element","element_id":"id-ec2e85d16215aefbe8e7c9260cd2c96d","new_name":"Booking Host"}]}`), m, plans.Options{Rules: r})
	if c := codes(o); len(c) != 0 || o.Verdict != plans.VerdictValid {
		t.Fatalf("a finding of the model before the plan was reported: %v %s", c, o.Verdict)
	}
}

// The delta is what the plan changes: created, changed (with before) and deleted, with folders,
// properties and relationships' ends; a delete's cascade is in it.
func TestDelta_Shape(t *testing.T) {
	var got *plans.Delta
	spy := rulesFunc(func(d *plans.Delta) { got = d })
	m := example(t)
	o := plans.Check([]byte(`{"schema_version":"2.0","status":"ready","summary":"shape","actions":[
		{"op":"rename_element","element_id":"`+customer+`","new_name":"Client"},
		{"op":"create_element","type":"Business Role","name":"Clerk"},
		{"op":"delete_element","element_id":"`+customerDoc+`"}]}`), m, plans.Options{Rules: spy})
	if o.Verdict != plans.VerdictValid {
		t.Fatalf("verdict %s: %+v", o.Verdict, o.Findings)
	}
	kinds := map[string]plans.DeltaChange{}
	for _, c := range got.Changes {
		kinds[c.Kind+" "+c.Object.Type+" "+c.Object.Name] = c
	}
	ch, ok := kinds["changed BusinessActor Client"]
	if !ok || ch.Before == nil || ch.Before.Name != "Customer" || ch.Object.Folder != "Business" || ch.Action != 0 {
		t.Errorf("rename: %+v", ch)
	}
	if c, ok := kinds["created BusinessRole Clerk"]; !ok || c.Object.Layer != "Business" || c.Action != 1 {
		t.Errorf("create: %+v", c)
	}
	if c, ok := kinds["deleted BusinessObject Customer File"]; !ok || c.Action != 2 {
		t.Errorf("delete: %+v", c)
	}
	if c, ok := kinds["deleted AccessRelationship "]; !ok || c.Object.Source.ID != rentABike || c.Object.Target.Name != "Customer File" {
		t.Errorf("the delete's cascade: %+v", kinds)
	}
	if got.Plan.Summary != "shape" || len(got.Plan.Actions) != 3 {
		t.Errorf("plan: %+v", got.Plan)
	}
	// the model is left as it was, and an apply after a judged check still applies and undoes
	if _, ok := m.Object(customerDoc); !ok {
		t.Fatal("the check left the delete in the model")
	}
}

type rulesFunc func(*plans.Delta)

func (f rulesFunc) Judge(_ context.Context, d *plans.Delta) (*plans.Judgement, error) {
	f(d)
	return &plans.Judgement{}, nil
}
func (rulesFunc) Hash() string { return "spy" }

// A policy that does not compile, a rule that errs at evaluation and a rule that runs past its
// time limit each refuse every plan with POLICY_ERROR and the reason.
func TestRules_Broken(t *testing.T) {
	plan := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[
		{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`)
	for _, tc := range []struct{ name, rego, want string }{
		{"syntax", "package p\ndeny contains x if {", "rego_parse_error"},
		{"errs", "package p\ndeny contains {\"rule\": \"r\", \"message\": sprintf(\"%d\", [to_number(c.object.name)])} if { some c in input.changes }", "to_number"},
		{"not a finding", "package p\ndeny contains c.object.name if { some c in input.changes }", "each member is an object"},
		{"nothing to read", "package p\nallow := true", "defines deny, warn or approval"},
		{"slow", "package p\ndeny contains {\"rule\": \"r\", \"message\": \"m\"} if { some i in numbers.range(1, 100000000); i < 0 }", "time limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Load(workspace(t, map[string]string{"p.rego": tc.rego}))
			r.Timeout = 200 * 1e6
			o := plans.Check(plan, example(t), plans.Options{Rules: r})
			if o.Verdict != plans.VerdictInvalid || len(o.Errors()) != 1 || o.Errors()[0].Code != plans.PolicyError ||
				!strings.Contains(o.Errors()[0].Message, tc.want) {
				t.Fatalf("verdict %s, findings %+v; want one POLICY_ERROR saying %q", o.Verdict, o.Findings, tc.want)
			}
		})
	}
}

// The policy's own tests run, and a failing one says so.
func TestRules_Test(t *testing.T) {
	r := Load(workspace(t, nil))
	res, err := r.Test(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results: %+v", len(res), res)
	}
	for _, x := range res {
		if !x.Pass {
			t.Errorf("%s: %s", x.Name, x.Error)
		}
	}
	r = Load(workspace(t, map[string]string{"p.rego": "package p\ndeny contains {\"rule\":\"r\",\"message\":\"m\"} if { input.x }",
		"p_test.rego": "package p_test\nimport data.p\ntest_denies if { count(p.deny) == 1 with input as {\"x\": false} }"}))
	res, err = r.Test(context.Background())
	if err != nil || len(res) != 1 || res[0].Pass {
		t.Fatalf("a failing test passed: %+v %v", res, err)
	}
}

// No policy folder: no rules; an owners file that names an unknown group is broken.
func TestLoad(t *testing.T) {
	if r := Load(t.TempDir()); r != nil {
		t.Fatalf("rules without a policy folder: %+v", r)
	}
	r := Load(workspace(t, map[string]string{OwnersFile: "owners:\n  - folder: Business\n    from: [group:nobody]\n"}))
	if r == nil || !errors.Is(r.Err(), ErrBroken) || !strings.Contains(r.Err().Error(), "nobody") {
		t.Fatalf("broken owners: %v", r.Err())
	}
}

// Judging a plan leaves an apply as it is without rules: the same model, byte for byte, and an
// inverse that gives back the model before.
func TestDelta_ApplyUnchanged(t *testing.T) {
	plan := []byte(`{"schema_version":"3.0","status":"ready","summary":"s","actions":[
		{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"},
		{"op":"create_element","type":"Business Role","name":"Clerk","ref_id":"c"},
		{"op":"add_to_view","element_id":"c","view_id":"id-1d9e8d8e9a1b5de1f3c57e0b0c4f2a3b"},
		{"op":"set_property","element_id":"` + bookingApp + `","key":"owner","value":"Ops"},
		{"op":"delete_element","element_id":"` + customerDoc + `"}]}`)
	saved := func(rules plans.Rules) ([]byte, *plans.Inverse) {
		m := example(t)
		for _, v := range m.Views() {
			plan = []byte(strings.ReplaceAll(string(plan), "id-1d9e8d8e9a1b5de1f3c57e0b0c4f2a3b", v.ID()))
			break
		}
		o, inv, err := plans.Apply(plan, m, plans.Options{Rules: rules})
		if err != nil {
			t.Fatalf("apply: %v %+v", err, o.Findings)
		}
		b, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Undo(inv.Steps); err != nil {
			t.Fatal(err)
		}
		back, _ := m.Save()
		orig, _ := example(t).Save()
		if string(back) != string(orig) {
			t.Fatal("the inverse does not give back the model before")
		}
		return b, inv
	}
	var judged bool
	with, invWith := saved(rulesFunc(func(*plans.Delta) { judged = true }))
	without, invWithout := saved(nil)
	if !judged {
		t.Fatal("the rules were not asked")
	}
	if string(with) != string(without) || len(invWith.Steps) != len(invWithout.Steps) {
		t.Fatal("judging the plan changed what it applies")
	}
}
