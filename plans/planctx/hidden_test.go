package planctx

import (
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
)

// The planning context a planner reads holds no character a person cannot see: each is JSON's
// own escape (\u202e, a surrogate pair for a tag letter), never the character, while the value a
// parser reads back is the model's, exact, for the planner to copy into a plan.
func TestContext_HiddenCharactersEscaped(t *testing.T) {
	m := archixml.Example()
	const customer = "id-59a96df4cd3e24d3da41e81a8c7d1335"
	name := "Customer\u202e\u200b\U000E0041"
	if err := m.Rename(customer, name); err != nil {
		t.Fatal(err)
	}
	c, err := BuildContext(m, ContextOptions{Intent: "the customer"}, plans.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	data := c.JSON()
	if i := strings.IndexFunc(string(data), func(r rune) bool { return hidden.Is(r) && r != '\n' }); i >= 0 {
		t.Fatalf("the context holds a hidden character at %d: %q", i, data[max(0, i-20):min(len(data), i+20)])
	}
	if !strings.Contains(string(data), `Customer\u202e\u200b\udb40\udc41`) {
		t.Fatalf("the name is not written with JSON's escapes:\n%s", data)
	}
	var back PlanningContext
	if err := back.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range back.Elements {
		if e.ID == customer {
			found = e.Name == name
		}
	}
	if !found {
		t.Fatal("the name read back is not the model's, exact")
	}
}
