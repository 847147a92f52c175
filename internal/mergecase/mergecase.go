// Package mergecase holds, for tests only, the cases of the merge oracle: two random plans on
// different objects of a model (and what each gives), and pairs of plans that change the same
// fields, with the conflicts they must give. The model layer's tests merge them in memory, the
// command line's through git and the merge driver.
package mergecase

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/plans"
)

// Load loads a model or fails the test.
func Load(t testing.TB, data []byte) *archixml.Model {
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Applied is a plan applied to a model read from data: the file it gives and what it read or
// changed (its footprint).
func Applied(t testing.TB, data, plan []byte) ([]byte, map[string]bool, error) {
	m := Load(t, data)
	o, inv, err := plans.Apply(plan, m, plans.Options{})
	if o != nil && len(o.Errors()) == 1 && o.Errors()[0].Code == plans.NothingToApply {
		return data, map[string]bool{}, nil // every change is there already (the other side made it): the model as it is
	}
	if err != nil {
		return nil, nil, err
	}
	out, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	foot := map[string]bool{}
	for _, id := range o.Reads() {
		foot[id] = true
	}
	for _, id := range inv.Touched {
		foot[id] = true
	}
	return out, foot, nil
}

// DisjointPlans finds two random plans whose footprints on the base do not meet, and each
// plan's result.
func DisjointPlans(t testing.TB, base []byte, rng *rand.Rand) (p1, p2, after1, after2 []byte, ok bool) {
	m := Load(t, base)
	for try := 0; try < 30; try++ {
		p1 = opsamples.Random(m, rng, nil, "ours")
		if p1 == nil {
			return nil, nil, nil, nil, false
		}
		a1, f1, err := Applied(t, base, p1)
		if err != nil {
			continue
		}
		p2 = opsamples.Random(m, rng, f1, "theirs")
		if p2 == nil {
			continue
		}
		a2, f2, err := Applied(t, base, p2)
		if err != nil {
			continue
		}
		meet := false
		for id := range f2 {
			meet = meet || f1[id]
		}
		if !meet {
			return p1, p2, a1, a2, true
		}
	}
	return nil, nil, nil, nil, false
}

// Case is two plans that change the same thing, and the conflicts they must give.
type Case struct {
	Name   string
	P1, P2 []map[string]any
	Want   []string // Conflict.Key()s; none: the merge must give both plans applied in turn
	// resolving every conflict for ours gives ours' file; for theirs, theirs' plan applied on ours
	// (when theirs restores nothing ours deleted)
	TheirsIsSequential bool
	// theirs changed a field ours did not too: resolved for ours, the merge still holds it
	OursPlusTheirs bool
}

// Plan is a ready plan of the actions.
func Plan(actions ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"schema_version": "3.1", "status": "ready", "summary": "case", "actions": actions})
	return b
}

// act is an action.
func act(op string, kv ...any) map[string]any {
	m := map[string]any{"op": op}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Cases are the pairs of plans for model m that change the same things (nil when m has too few
// elements).
func Cases(m *archixml.Model) []Case {
	var e, x archixml.Object
	for _, o := range m.Elements() {
		if o.Class() == "Junction" {
			continue
		}
		if !e.Valid() {
			e = o
		} else if !x.Valid() {
			x = o
		}
	}
	if !x.Valid() {
		return nil
	}
	id := e.ID()
	cs := []Case{
		{Name: "rename", P1: []map[string]any{act("rename_element", "element_id", id, "new_name", "Ours")},
			P2: []map[string]any{act("rename_element", "element_id", id, "new_name", "Theirs")}, Want: []string{id + " name"}, TheirsIsSequential: true},
		{Name: "same rename", P1: []map[string]any{act("rename_element", "element_id", id, "new_name", "Both")},
			P2: []map[string]any{act("rename_element", "element_id", id, "new_name", "Both")}},
		{Name: "property", P1: []map[string]any{act("set_property", "element_id", id, "key", "K", "value", "Ours")},
			P2: []map[string]any{act("set_property", "element_id", id, "key", "K", "value", "Theirs")}, Want: []string{id + " property:K"}, TheirsIsSequential: true},
		{Name: "documentation", P1: []map[string]any{act("set_documentation", "element_id", id, "documentation", "Ours")},
			P2: []map[string]any{act("set_documentation", "element_id", id, "documentation", "Theirs")}, Want: []string{id + " documentation"}, TheirsIsSequential: true},
		{Name: "rename and property", P1: []map[string]any{act("rename_element", "element_id", id, "new_name", "Ours"), act("set_property", "element_id", id, "key", "K", "value", "Ours")},
			P2:   []map[string]any{act("rename_element", "element_id", id, "new_name", "Theirs"), act("set_property", "element_id", id, "key", "K2", "value", "Theirs")},
			Want: []string{id + " name"}, TheirsIsSequential: true, OursPlusTheirs: true},
		{Name: "property values", P1: []map[string]any{act("set_property", "element_id", id, "key", "Multi", "value", "Both"), act("add_property_value", "element_id", id, "key", "Multi", "value", "Ours")},
			P2: []map[string]any{act("set_property", "element_id", id, "key", "Multi", "value", "Both"), act("add_property_value", "element_id", id, "key", "Multi", "value", "Theirs")}},
		{Name: "deleted and renamed", P1: []map[string]any{act("delete_element", "element_id", id)},
			P2: []map[string]any{act("rename_element", "element_id", id, "new_name", "Theirs")}, Want: []string{id + " deleted"}},
		{Name: "renamed and deleted", P1: []map[string]any{act("rename_element", "element_id", id, "new_name", "Ours")},
			P2: []map[string]any{act("delete_element", "element_id", id)}, Want: []string{id + " deleted"}},
		{Name: "deleted and related", P1: []map[string]any{act("delete_element", "element_id", id)},
			P2:   []map[string]any{act("create_relationship", "source_id", x.ID(), "target_id", id, "relationship_type", "Association", "name", "Theirs")},
			Want: []string{id + " deleted"}},
		{Name: "related and deleted", P1: []map[string]any{act("create_relationship", "source_id", id, "target_id", x.ID(), "relationship_type", "Association", "name", "Ours")},
			P2: []map[string]any{act("delete_element", "element_id", id)}, Want: []string{id + " deleted"}},
	}
	for _, v := range m.Views() {
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); !ok || c.Kind() != archixml.KindElement {
				continue
			}
			cs = append(cs,
				Case{Name: "bounds", P1: []map[string]any{act("move_view_object", "object_id", d.ID(), "x", 11, "y", 12)},
					P2: []map[string]any{act("move_view_object", "object_id", d.ID(), "x", 21, "y", 22)}, Want: []string{d.ID() + " bounds"}, TheirsIsSequential: true},
				Case{Name: "fill", P1: []map[string]any{act("style_view_object", "object_id", d.ID(), "fill_color", "#111111")},
					P2: []map[string]any{act("style_view_object", "object_id", d.ID(), "fill_color", "#222222")}, Want: []string{d.ID() + " fillColor"}, TheirsIsSequential: true},
				Case{Name: "removed and moved", P1: []map[string]any{act("remove_from_view", "object_id", d.ID())},
					P2: []map[string]any{act("move_view_object", "object_id", d.ID(), "x", 21, "y", 22)}, Want: []string{d.ID() + " deleted"}},
			)
			return cs
		}
	}
	return cs
}
