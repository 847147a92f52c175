package plans

import (
	"strings"
	"testing"
)

// The confusable check (DUPLICATE_NAME for a name that reads like another's) reads the model as the
// plan's actions before it left it, as the check of an equal name does: a name created earlier in
// the plan is one a later name can read like, and a name renamed away earlier is not there.
func TestConfusable_FollowsThePlan(t *testing.T) {
	cases := []struct {
		name, plan string
		warned     bool
	}{
		{"a name created earlier", plan(`{"op":"create_element","type":"Business Actor","name":"Guest"},
			{"op":"create_element","type":"Business Actor","name":"Gu\u0435st"}`), true},
		{"a name renamed away earlier", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Client"},
			{"op":"create_element","type":"Business Actor","name":"\u0421ustomer"}`), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			o := Check([]byte(ids(t, m, c.plan)), m, Options{})
			var said []string
			for _, f := range o.Warnings() {
				if f.Code == DuplicateName {
					said = append(said, f.Message)
				}
			}
			if (len(said) > 0) != c.warned {
				t.Fatalf("DUPLICATE_NAME said %v, want it said: %v", said, c.warned)
			}
			if c.warned && !strings.Contains(said[0], `"Gu\u{0435}st" beside "Guest"`) {
				t.Fatalf("the warning names another pair: %s", said[0])
			}
		})
	}
}
