package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/plans"
)

// An element's relationships deleted with it (the cascade) are deleted by the plan as much as
// one delete_relationship is: an owners entry on the relationships (their type, their folder)
// asks for its approvals either way.
func TestOwners_CascadedDeletions(t *testing.T) {
	owners := `owners:
  - name: serving
    type: ServingRelationship
    from: [alice]
  - name: relations
    folder: Relations
    kinds: [deleted]
    from: [bob]
`
	r := Load(workspace(t, map[string]string{OwnersFile: owners}))
	if r == nil || r.Err() != nil {
		t.Fatalf("load: %v", r.Err())
	}
	for _, tc := range []struct{ name, action string }{
		{"by hand", `{"op":"delete_relationship","relationship_id":"id-96ddf9781e8a4cc0b70c6557d83729bd"}`},
		{"by cascade", `{"op":"delete_element","element_id":"` + customer + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := plans.Check([]byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[`+tc.action+`]}`), example(t), plans.Options{Rules: r})
			if o.Verdict != plans.VerdictValid {
				t.Fatalf("verdict %s: %+v", o.Verdict, o.Findings)
			}
			var got []string
			for _, a := range o.Approvals {
				got = append(got, fmt.Sprintf("%s %d %s", a.Rule, a.Count, strings.Join(a.From, ",")))
			}
			if want := "serving 1 alice; relations 1 bob"; strings.Join(got, "; ") != want {
				t.Fatalf("approvals %q, want %q", strings.Join(got, "; "), want)
			}
		})
	}
}
