package plans

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestContext_Golden(t *testing.T) {
	m := exampleModel(t)
	view := m.Views()[0].ID()
	cases := map[string]ContextOptions{
		"context.model.json":     {Include: []string{"documentation", "properties"}},
		"context.view.json":      {Scope: "view:" + view},
		"context.folder.json":    {Scope: "folder:Application"},
		"context.truncated.json": {MaxElements: 3},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := BuildContext(m, opts, Policy{})
			if err != nil {
				t.Fatal(err)
			}
			again, _ := BuildContext(exampleModel(t), opts, Policy{})
			if string(c.JSON()) != string(again.JSON()) {
				t.Fatal("two builds differ")
			}
			golden(t, name, c.JSON())
		})
	}
	c, _ := BuildContext(m, ContextOptions{MaxElements: 3}, Policy{})
	if len(c.Elements) != 3 || c.Omitted.Elements != 7 || c.Omitted.Relationships == 0 {
		t.Fatalf("truncation: %d elements, omitted %+v", len(c.Elements), c.Omitted)
	}
	// a context's ids are the scope a plan beside it is held to
	ids, err := ScopeFromContext(c.JSON())
	if err != nil || len(ids) != len(c.Elements)+len(c.Relationships)+len(c.Views) {
		t.Fatalf("%v %v", ids, err)
	}
}

func TestContext_Scopes(t *testing.T) {
	m := exampleModel(t)
	app := ids(t, m, "{BookingApp}")
	c, err := BuildContext(m, ContextOptions{Scope: "ids:" + app + "," + ids(t, m, "{FleetRecords}")}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Elements) != 2 || len(c.Relationships) != 1 {
		t.Fatalf("%d elements, %d relationships", len(c.Elements), len(c.Relationships))
	}
	for _, bad := range []string{"view:nope", "folder:Nowhere", "ids:nope", "colour:red"} {
		if _, err := BuildContext(m, ContextOptions{Scope: bad}, Policy{}); !errors.Is(err, ErrBadScope) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	p, _ := BuildContext(m, ContextOptions{}, Policy{AllowedOps: []string{"rename_element"}, AllowedElementTypes: []string{"Goal"}})
	if strings.Join(p.AllowedOps, ",") != "rename_element" || strings.Join(p.AllowedElementTypes, ",") != "Goal" {
		t.Fatalf("policy not shown: %v %v", p.AllowedOps, p.AllowedElementTypes)
	}
}

func TestPrompt_Golden(t *testing.T) {
	m := exampleModel(t)
	c, _ := BuildContext(m, ContextOptions{}, Policy{})
	p := BuildPrompt("Rename the customer to Client and make the desk serve them.", c)
	golden(t, "prompt.txt", []byte(p))
	if !strings.HasPrefix(p, promptContract) {
		t.Fatal("the stable part does not come first")
	}
	if !strings.HasSuffix(p, "make the desk serve them.\n") {
		t.Fatal("the request does not come last")
	}
	var probe map[string]any
	start := strings.Index(p, "```json\n") + len("```json\n")
	end := strings.Index(p[start:], "```")
	if err := json.Unmarshal([]byte(p[start:start+end]), &probe); err != nil {
		t.Fatalf("the context in the prompt is not JSON: %v", err)
	}
}
