package archixml

import (
	"os"
	"testing"
)

// indexOrder is every index list of a model, as ids: what new ids and connections follow.
func indexOrder(m *Model) map[string][]string {
	out := map[string][]string{}
	ids := func(os []Object) []string {
		var s []string
		for _, o := range os {
			s = append(s, o.ID())
		}
		return s
	}
	for _, o := range append(m.Elements(), m.Relationships()...) {
		out["rels "+o.ID()] = ids(m.RelationshipsOf(o.ID()))
		out["refs "+o.ID()] = ids(m.ReferencesTo(o.ID()))
	}
	return out
}

// After any edit and its undo, the indexes list objects in the order a fresh load gives, so a
// plan run on a model that saw other plans come and go (the daemon's) creates the ids a cold
// apply creates.
func TestIndex_OrderAfterUndo(t *testing.T) {
	files := []string{""}
	files = append(files, corpusFiles(t)...)
	for _, f := range files {
		name := f
		if f == "" {
			name = "example"
		}
		t.Run(name, func(t *testing.T) {
			load := func() *Model {
				if f == "" {
					return Example()
				}
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				m, err := Load(data)
				if err != nil {
					t.Skip(err)
				}
				return m
			}
			m := load()
			want := indexOrder(m)
			n := 0
			for _, el := range m.Elements() {
				if len(m.ReferencesTo(el.ID())) == 0 && len(m.RelationshipsOf(el.ID())) == 0 {
					continue
				}
				if n++; n > 25 {
					break
				}
				m.Record()
				if _, err := m.DeleteElement(el.ID()); err != nil {
					t.Fatal(err)
				}
				if err := m.Undo(m.Recorded()); err != nil {
					t.Fatal(err)
				}
			}
			got := indexOrder(m)
			for k, w := range want {
				if g := got[k]; len(g) != len(w) {
					t.Fatalf("%s: %v after undos, %v after a load", k, g, w)
				} else {
					for i := range w {
						if g[i] != w[i] {
							t.Fatalf("%s: %v after undos, %v after a load", k, g, w)
						}
					}
				}
			}
		})
	}
}
