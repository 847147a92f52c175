package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/plans"
)

// Each kind of owners entry asks for its approvals from what the plan touches: a folder (and
// below, and a move out of it), an element type, and only the kinds of change named.
func TestOwners_Entries(t *testing.T) {
	owners := `groups:
  ops: [dana, erin]
owners:
  - name: core
    folder: Business/Core
    from: [alice]
  - name: nodes
    type: Node
    from: [group:ops]
    approvals: 2
  - name: business-deletes
    layer: Business
    kinds: [deleted]
`
	r := Load(workspace(t, map[string]string{OwnersFile: owners}))
	if r == nil || r.Err() != nil {
		t.Fatalf("load: %v", r.Err())
	}
	setup := `{"schema_version":"2.0","status":"ready","summary":"s","actions":[
		{"op":"move_to_folder","element_id":"` + customerDoc + `","folder_path":"Business/Core/Files"}]}`
	for _, tc := range []struct{ name, actions, want string }{
		{"in a folder below", `{"op":"rename_element","element_id":"` + customerDoc + `","new_name":"Client File"}`, "core 1 alice"},
		{"moved out", `{"op":"move_to_folder","element_id":"` + customerDoc + `","folder_path":"Business"}`, "core 1 alice"},
		{"a type", `{"op":"create_element","type":"Node","name":"Edge"}`, "nodes 2 dana,erin"},
		{"a kind named", `{"op":"delete_element","element_id":"` + customer + `"}`, "business-deletes 1 "},
		{"a kind not named", `{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := example(t)
			if _, _, err := plans.Apply([]byte(setup), m, plans.Options{}); err != nil {
				t.Fatal(err)
			}
			o := plans.Check([]byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[`+tc.actions+`]}`), m, plans.Options{Rules: r})
			if o.Verdict != plans.VerdictValid {
				t.Fatalf("verdict %s: %+v", o.Verdict, o.Findings)
			}
			var got []string
			for _, a := range o.Approvals {
				got = append(got, fmt.Sprintf("%s %d %s", a.Rule, a.Count, strings.Join(a.From, ",")))
			}
			if strings.Join(got, "; ") != tc.want {
				t.Fatalf("approvals %q, want %q", strings.Join(got, "; "), tc.want)
			}
		})
	}
}
