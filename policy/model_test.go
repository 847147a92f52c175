package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/plans"
)

// rules reading the model beyond the plan's changes: a relationship the model holds already, and
// an element the model marks retired.
const modelRules = `package archiplan.model

deny contains {
	"rule": "no-duplicate-relationship",
	"message": sprintf("a %s from %q to %q exists already (%s)", [r.type, r.source.name, r.target.name, old.id]),
	"object": r.id,
} if {
	some c in input.changes
	c.kind == "created"
	r := c.object
	r.kind == "relationship"
	some old in archiplan.relationships(r.source.id)
	old.type == r.type
	old.target.id == r.target.id
}

deny contains {
	"rule": "not-to-retired",
	"message": sprintf("%q is retired", [t.name]),
	"object": c.object.id,
} if {
	some c in input.changes
	c.kind == "created"
	t := archiplan.object(c.object.target.id)
	some p in t.properties
	p.key == "status"
	p.value == "retired"
}
`

const modelRulesTest = `package archiplan.model_test

import data.archiplan.model

test_retired if {
	some f in model.deny with input as {"changes": [{"kind": "created", "object": {"id": "r1", "kind": "relationship",
		"type": "ServingRelationship", "source": {"id": "a"}, "target": {"id": "b"}}}]}
		with archiplan.object as {"id": "b", "name": "Old", "properties": [{"key": "status", "value": "retired"}]}
	f.rule == "not-to-retired"
}

test_without_a_model_nothing_is_old if {
	count(model.deny) == 0 with input as {"changes": [{"kind": "created", "object": {"id": "r1", "kind": "relationship",
		"type": "ServingRelationship", "source": {"id": "a"}, "target": {"id": "b"}}}]}
}
`

// The rules read the model as it was before the plan through archiplan.object and
// archiplan.relationships: each refuses the plan it is written against and lets another through,
// and the policy's own tests replace them.
func TestRules_ReadTheModel(t *testing.T) {
	r := Load(workspace(t, map[string]string{"model.rego": modelRules, "model_test.rego": modelRulesTest}))
	if r == nil || r.Err() != nil {
		t.Fatalf("load: %v", r.Err())
	}
	service := "id-27da09a9789cef5a841fe804915b63e5" // Rent a Bike realizes it already
	for _, tc := range []struct {
		name, actions, want string
		retired             bool // the Booking App has status retired in the model
	}{
		{"duplicate", `{"op":"create_relationship","relationship_type":"Realization","source_id":"` + rentABike + `","target_id":"` + service + `"}`, "POLICY_DENY no-duplicate-relationship", false},
		{"new", `{"op":"create_element","type":"Business Process","name":"Return a Bike","ref_id":"r"},
			{"op":"create_relationship","relationship_type":"Realization","source_id":"r","target_id":"` + service + `"}`, "", false},
		{"to retired", `{"op":"create_relationship","relationship_type":"Association","source_id":"` + rentABike + `","target_id":"` + bookingApp + `"}`, "POLICY_DENY not-to-retired", true},
		{"to live", `{"op":"create_relationship","relationship_type":"Association","source_id":"` + rentABike + `","target_id":"` + customer + `"}`, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := example(t)
			if tc.retired {
				if _, _, err := plans.Apply([]byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[
					{"op":"set_property","element_id":"`+bookingApp+`","key":"status","value":"retired"}]}`), m, plans.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			o := plans.Check([]byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[`+tc.actions+`]}`), m, plans.Options{Rules: r})
			if got := strings.Join(codes(o), ", "); got != tc.want {
				t.Fatalf("policy findings %q, want %q; all: %+v", got, tc.want, o.Findings)
			}
		})
	}
	res, err := r.Test(context.Background())
	if err != nil || len(res) != 2 {
		t.Fatalf("the policy's tests: %+v %v", res, err)
	}
	for _, x := range res {
		if !x.Pass {
			t.Errorf("%s: %s", x.Name, x.Error)
		}
	}
}
