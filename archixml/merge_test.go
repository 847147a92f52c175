package archixml_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/plans"
)

// applied is a plan applied to a model read from data: the file it gives and what it read or
// changed (its footprint).
func applied(t testing.TB, data, plan []byte) ([]byte, map[string]bool, error) {
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	o, inv, err := plans.Apply(plan, m, plans.Options{})
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

func load(t testing.TB, data []byte) *archixml.Model {
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// merged merges theirs into ours (files) on base and returns the file, or the conflicts.
func merged(t testing.TB, base, ours, theirs []byte, res map[string]archixml.Resolution) ([]byte, []archixml.Conflict) {
	o := load(t, ours)
	cs := archixml.Merge(load(t, base), o, load(t, theirs), res)
	if len(cs) > 0 {
		return nil, cs
	}
	out, err := o.Save()
	if err != nil {
		t.Fatal(err)
	}
	return out, nil
}

// disjointPlans finds two random plans whose footprints on the base do not meet, and each
// plan's result.
func disjointPlans(t testing.TB, base []byte, rng *rand.Rand) (p1, p2, after1, after2 []byte, ok bool) {
	m := load(t, base)
	for try := 0; try < 30; try++ {
		p1 = opsamples.Random(m, rng, nil, "ours")
		if p1 == nil {
			return nil, nil, nil, nil, false
		}
		a1, f1, err := applied(t, base, p1)
		if err != nil {
			continue
		}
		p2 = opsamples.Random(m, rng, f1, "theirs")
		if p2 == nil {
			continue
		}
		a2, f2, err := applied(t, base, p2)
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

// The merge oracle: two plans on different objects, applied on two sides and merged, give the
// file of applying both one after the other, in the order ours then theirs (and the other way).
func TestMerge_OracleDisjointPlans(t *testing.T) {
	merges := 0
	for _, path := range testenv.CorpusModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			base, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(len(base)), 37))
			for round := 0; round < 6; round++ {
				p1, p2, a1, a2, ok := disjointPlans(t, base, rng)
				if !ok {
					t.Logf("round %d: no two plans on different objects", round)
					continue
				}
				want12, _, err := applied(t, a1, p2)
				if err != nil {
					t.Fatalf("round %d: theirs after ours: %v\n%s\n%s", round, err, p1, p2)
				}
				want21, _, err := applied(t, a2, p1)
				if err != nil {
					t.Fatalf("round %d: ours after theirs: %v\n%s\n%s", round, err, p1, p2)
				}
				got, cs := merged(t, base, a1, a2, nil)
				if cs != nil || !bytes.Equal(got, want12) {
					t.Fatalf("round %d: merge of theirs into ours: conflicts %v, %s\nours: %s\ntheirs: %s", round, cs, firstDiff(got, want12), p1, p2)
				}
				got, cs = merged(t, base, a2, a1, nil)
				if cs != nil || !bytes.Equal(got, want21) {
					t.Fatalf("round %d: merge of ours into theirs: conflicts %v, %s\nours: %s\ntheirs: %s", round, cs, firstDiff(got, want21), p2, p1)
				}
				merges += 2
			}
		})
	}
	t.Logf("%d merges give the file of both plans applied in turn", merges)
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("first difference at byte %d:\ngot:  %q\nwant: %q", i, a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}

// conflictCase is two plans that change the same thing, and the conflicts they must give.
type conflictCase struct {
	name   string
	p1, p2 []map[string]any
	want   []string // Conflict.Key()s; none: the merge must give both plans applied in turn
	// resolving every conflict for ours gives ours' file; for theirs, theirs' plan applied on ours
	// (when theirs restores nothing ours deleted)
	theirsIsSequential bool
	// theirs changed a field ours did not too: resolved for ours, the merge still holds it
	oursPlusTheirs bool
}

func plan(actions ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"schema_version": "3.1", "status": "ready", "summary": "case", "actions": actions})
	return b
}

func a(op string, kv ...any) map[string]any {
	m := map[string]any{"op": op}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func conflictCases(m *archixml.Model) []conflictCase {
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
	cs := []conflictCase{
		{name: "rename", p1: []map[string]any{a("rename_element", "element_id", id, "new_name", "Ours")},
			p2: []map[string]any{a("rename_element", "element_id", id, "new_name", "Theirs")}, want: []string{id + " name"}, theirsIsSequential: true},
		{name: "same rename", p1: []map[string]any{a("rename_element", "element_id", id, "new_name", "Both")},
			p2: []map[string]any{a("rename_element", "element_id", id, "new_name", "Both")}},
		{name: "property", p1: []map[string]any{a("set_property", "element_id", id, "key", "K", "value", "Ours")},
			p2: []map[string]any{a("set_property", "element_id", id, "key", "K", "value", "Theirs")}, want: []string{id + " property:K"}, theirsIsSequential: true},
		{name: "documentation", p1: []map[string]any{a("set_documentation", "element_id", id, "documentation", "Ours")},
			p2: []map[string]any{a("set_documentation", "element_id", id, "documentation", "Theirs")}, want: []string{id + " documentation"}, theirsIsSequential: true},
		{name: "rename and property", p1: []map[string]any{a("rename_element", "element_id", id, "new_name", "Ours"), a("set_property", "element_id", id, "key", "K", "value", "Ours")},
			p2:   []map[string]any{a("rename_element", "element_id", id, "new_name", "Theirs"), a("set_property", "element_id", id, "key", "K2", "value", "Theirs")},
			want: []string{id + " name"}, theirsIsSequential: true, oursPlusTheirs: true},
		{name: "property values", p1: []map[string]any{a("set_property", "element_id", id, "key", "Multi", "value", "Both"), a("add_property_value", "element_id", id, "key", "Multi", "value", "Ours")},
			p2: []map[string]any{a("set_property", "element_id", id, "key", "Multi", "value", "Both"), a("add_property_value", "element_id", id, "key", "Multi", "value", "Theirs")}},
		{name: "deleted and renamed", p1: []map[string]any{a("delete_element", "element_id", id)},
			p2: []map[string]any{a("rename_element", "element_id", id, "new_name", "Theirs")}, want: []string{id + " deleted"}},
		{name: "renamed and deleted", p1: []map[string]any{a("rename_element", "element_id", id, "new_name", "Ours")},
			p2: []map[string]any{a("delete_element", "element_id", id)}, want: []string{id + " deleted"}},
		{name: "deleted and related", p1: []map[string]any{a("delete_element", "element_id", id)},
			p2:   []map[string]any{a("create_relationship", "source_id", x.ID(), "target_id", id, "relationship_type", "Association", "name", "Theirs")},
			want: []string{id + " deleted"}},
		{name: "related and deleted", p1: []map[string]any{a("create_relationship", "source_id", id, "target_id", x.ID(), "relationship_type", "Association", "name", "Ours")},
			p2: []map[string]any{a("delete_element", "element_id", id)}, want: []string{id + " deleted"}},
	}
	for _, v := range m.Views() {
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); !ok || c.Kind() != archixml.KindElement {
				continue
			}
			cs = append(cs,
				conflictCase{name: "bounds", p1: []map[string]any{a("move_view_object", "object_id", d.ID(), "x", 11, "y", 12)},
					p2: []map[string]any{a("move_view_object", "object_id", d.ID(), "x", 21, "y", 22)}, want: []string{d.ID() + " bounds"}, theirsIsSequential: true},
				conflictCase{name: "fill", p1: []map[string]any{a("style_view_object", "object_id", d.ID(), "fill_color", "#111111")},
					p2: []map[string]any{a("style_view_object", "object_id", d.ID(), "fill_color", "#222222")}, want: []string{d.ID() + " fillColor"}, theirsIsSequential: true},
				conflictCase{name: "removed and moved", p1: []map[string]any{a("remove_from_view", "object_id", d.ID())},
					p2: []map[string]any{a("move_view_object", "object_id", d.ID(), "x", 21, "y", 22)}, want: []string{d.ID() + " deleted"}},
			)
			return cs
		}
	}
	return cs
}

// Plans changing the same fields give exactly the conflicts expected; each resolved for ours
// gives ours' file, for theirs theirs' values, and the merged model is one Archi opens.
func TestMerge_OracleConflicts(t *testing.T) {
	found, expected := 0, 0
	for _, path := range testenv.CorpusModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			base, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cases := conflictCases(load(t, base))
			if len(base) > 1<<20 && len(cases) > 4 {
				cases = append(cases[:2], cases[len(cases)-4:]...) // a large model: fewer plans (each apply takes seconds)
			}
			for _, c := range cases {
				a1, _, err1 := applied(t, base, plan(c.p1...))
				a2, _, err2 := applied(t, base, plan(c.p2...))
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v %v", c.name, err1, err2)
				}
				for _, swap := range []bool{false, true} {
					ours, theirs, want := a1, a2, slices.Clone(c.want)
					if swap {
						ours, theirs = a2, a1
					}
					got, cs := merged(t, base, ours, theirs, nil)
					var keys []string
					for _, x := range cs {
						keys = append(keys, x.Key())
					}
					expected += len(want)
					found += len(keys)
					if !slices.Equal(keys, want) {
						t.Fatalf("%s (swapped %v): conflicts %v, want %v", c.name, swap, cs, want)
					}
					if len(want) == 0 {
						p := c.p2
						if swap {
							p = c.p1
						}
						seq, _, err := applied(t, ours, plan(p...))
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, seq) {
							t.Fatalf("%s: %s", c.name, firstDiff(got, seq))
						}
						continue
					}
					for _, side := range []string{archixml.Ours, archixml.Theirs} {
						res := map[string]archixml.Resolution{}
						for _, k := range keys {
							res[k] = archixml.Resolution{Side: side}
						}
						got, cs := merged(t, base, ours, theirs, res)
						if cs != nil {
							t.Fatalf("%s: resolved for %s: conflicts left %v", c.name, side, cs)
						}
						if err := archixml.Check(load(t, got)); err != nil {
							t.Fatalf("%s: resolved for %s: %v", c.name, side, err)
						}
						deleted := strings.HasSuffix(keys[0], " deleted")
						if deleted {
							// the side that deleted it wins: it is gone; else it is there
							id := strings.TrimSuffix(keys[0], " deleted")
							_, inOurs := load(t, ours).Object(id)
							_, inGot := load(t, got).Object(id)
							if inGot != inOurs && side == archixml.Ours || inGot == inOurs && side == archixml.Theirs {
								t.Fatalf("%s (swapped %v): resolved for %s: the object is there: %v", c.name, swap, side, inGot)
							}
							continue
						}
						switch {
						case side == archixml.Ours && !c.oursPlusTheirs && !bytes.Equal(got, ours):
							t.Fatalf("%s: resolved for ours: %s", c.name, firstDiff(got, ours))
						case side == archixml.Theirs && c.theirsIsSequential:
							p := c.p2
							if swap {
								p = c.p1
							}
							seq, _, err := applied(t, ours, plan(p...))
							if err != nil {
								t.Fatal(err)
							}
							if !bytes.Equal(got, seq) {
								t.Fatalf("%s: resolved for theirs: %s", c.name, firstDiff(got, seq))
							}
						}
					}
				}
			}
		})
	}
	t.Logf("conflicts: %d expected, %d found", expected, found)
}
