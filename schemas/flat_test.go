package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

// A field name several ops share is described in the strict schema for every op that has it,
// never by the first op alone ("documentation of the new relationship" for every op), and its enum
// holds every op's values.
func TestStrict_SharedFieldsDescribedPerOp(t *testing.T) {
	for _, v := range Versions {
		var s struct {
			Properties struct {
				Actions struct {
					Items struct {
						Properties map[string]struct {
							Description string `json:"description"`
							Enum        []any  `json:"enum"`
						} `json:"properties"`
					} `json:"items"`
				} `json:"actions"`
			} `json:"properties"`
		}
		raw, _ := StrictJSON(v)
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		props := s.Properties.Actions.Items.Properties
		for _, op := range OpsOf(v) {
			for _, f := range op.FieldsOf(v) {
				p := props[f.Name]
				if !strings.Contains(p.Description, f.Doc) {
					t.Errorf("%s: %s of %s is described as %q, without %q", v, f.Name, op.Name, p.Description, f.Doc)
				}
				for _, val := range f.Values {
					found := false
					for _, e := range p.Enum {
						found = found || e == val
					}
					if !found {
						t.Errorf("%s: %s of %s: value %q missing from the strict enum", v, f.Name, op.Name, val)
					}
				}
			}
		}
	}
}
