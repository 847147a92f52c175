package plans

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// Issue 33: a delete on a real model names what it takes. On every corpus model, the element
// whose appearances hold the most objects drawn inside them is deleted: the preview names each
// relationship the delete takes by type and both ends, each other object it takes off a view by
// what it shows, and warns (ARCHI_UNUSED_*) about each element and relationship left on no view.
// What it must name is found apart from the engine: the model's own delete, on a copy.
func TestDelete_NamesEveryCascade(t *testing.T) {
	for _, f := range corpusAll(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			must(t, err)
			m, err := archixml.Load(data)
			must(t, err)
			victim, nested := mostNested(m)
			if nested == 0 {
				t.Skip("no element with objects drawn inside it")
			}
			plan := fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"delete","actions":[{"op":"delete_element","element_id":%q}]}`, victim.ID())
			o := Check([]byte(plan), m, Options{})
			if o.Verdict != VerdictValid {
				t.Fatalf("%s: %v", o.Verdict, o.Errors())
			}
			takes := strings.Join(o.Results[0].Takes, "\n")
			warns := map[string]bool{}
			for _, w := range o.Warnings() {
				if w.Code == ArchiUnusedElement || w.Code == ArchiUnusedRelationship {
					warns[w.Snippet] = true
				}
			}
			// the truth, from a copy the model's own delete runs on
			cp, err := archixml.Load(data)
			must(t, err)
			shows := map[string]archixml.Object{}
			for _, v := range cp.Views() {
				for _, d := range append(v.DiagramObjects(), v.Connections()...) {
					if x, ok := d.Concept(); ok {
						shows[d.ID()] = x
					}
				}
			}
			type rel struct{ typ, src, tgt string }
			rels := map[string]rel{}
			for _, r := range cp.Relationships() {
				s, _ := r.Source()
				g, _ := r.Target()
				rels[r.ID()] = rel{labelOf(r), endWords(s), endWords(g)}
			}
			del, err := cp.DeleteElement(victim.ID())
			must(t, err)
			gone := map[string]bool{victim.ID(): true}
			for _, id := range del.Relationships {
				gone[id] = true
				r := rels[id]
				line := lineWith(takes, "("+id+")")
				if line == "" || !strings.Contains(line, "relationship "+r.typ) || !strings.Contains(line, r.src) || !strings.Contains(line, r.tgt) {
					t.Errorf("relationship %s (%s from %s to %s) is not named: %q", id, r.typ, r.src, r.tgt, line)
				}
			}
			named := 0
			for _, id := range append(append([]string(nil), del.DiagramObjects...), del.Connections...) {
				x, ok := shows[id]
				if ok && gone[x.ID()] {
					continue // the victim's own appearances are counted; its relationships' connections go with them
				}
				named++
				want := id
				if ok {
					want = "(" + x.ID() + ")"
				}
				if lineWith(takes, want) == "" {
					t.Errorf("%s, which shows %s, is taken off its view unnamed", id, want)
				}
				if ok && !gone[x.ID()] && !onArchimateView(cp, x.ID()) && !warns[x.Name()] && !warns[relLabel(cp, x)] {
					t.Errorf("%s %q is left on no view without an ARCHI_UNUSED warning", x.Kind(), x.Name())
				}
			}
			if named == 0 {
				t.Fatalf("nothing drawn inside %s was taken", victim.ID())
			}
			t.Logf("%s: %d relationship(s) and %d other object(s) named, %d ARCHI_UNUSED warning(s)", victim.Name(), len(del.Relationships), named, len(warns))
		})
	}
}

// mostNested is the element whose appearances hold the most diagram objects drawn inside them.
func mostNested(m *archixml.Model) (archixml.Object, int) {
	var best archixml.Object
	most := 0
	for _, e := range m.Elements() {
		n := 0
		for _, ref := range m.ReferencesTo(e.ID()) {
			if ref.Kind() == archixml.KindDiagramObject {
				n += len(ref.DiagramObjects()) - 1
			}
		}
		if n > most {
			best, most = e, n
		}
	}
	return best, most
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// endWords is what must name a relationship's end: an element's name, quoted; a relationship's id.
func endWords(o archixml.Object) string {
	if o.Kind() == archixml.KindRelationship {
		return o.ID()
	}
	return fmt.Sprintf("%q", o.Name())
}
