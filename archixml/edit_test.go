package archixml

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lineChange counts the lines removed and added between two files, outside their common first
// and last lines: enough to tell a one-line edit from a rewrite.
func lineChange(a, b []byte) (removed, added int) {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	p := 0
	for p < len(al) && p < len(bl) && bytes.Equal(al[p], bl[p]) {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && bytes.Equal(al[len(al)-1-s], bl[len(bl)-1-s]) {
		s++
	}
	return len(al) - p - s, len(bl) - p - s
}

type editCase struct {
	name string
	// edit changes the model and returns the exact line change expected ({-1,-1}: not checked)
	edit func(t *testing.T, m *Model) [2]int
}

// pick helpers: the first object that fits, in document order
func firstWith(m *Model, k Kind, ok func(Object) bool) (Object, bool) {
	for _, o := range m.All(k) {
		if ok(o) {
			return o, true
		}
	}
	return Object{}, false
}

// withProperties finds an element, relationship or view that has properties.
func withProperties(m *Model) (Object, bool) {
	for _, k := range []Kind{KindElement, KindRelationship, KindView} {
		if o, ok := firstWith(m, k, func(o Object) bool { return len(o.Properties()) > 0 }); ok {
			return o, true
		}
	}
	return Object{}, false
}

func onSomeView(m *Model, id string) bool { return len(m.ReferencesTo(id)) > 0 }

var editCases = []editCase{
	{"rename", func(t *testing.T, m *Model) [2]int {
		e := m.Elements()[0]
		must(t, m.Rename(e.ID(), `Renamed <"quoted"> & more`+"\nsecond line\tté"))
		return [2]int{1, 1}
	}},
	{"set_property_new", func(t *testing.T, m *Model) [2]int {
		e := m.Elements()[0]
		must(t, m.SetProperty(e.ID(), "archiplan:owner", "Team <A> & \"B\""))
		return [2]int{-1, -1}
	}},
	{"set_property_existing", func(t *testing.T, m *Model) [2]int {
		o, ok := withProperties(m)
		if !ok {
			t.Skip("no object with properties")
		}
		p := o.Properties()[0]
		must(t, m.SetProperty(o.ID(), p.Key, p.Value+" (changed)"))
		return [2]int{1, 1}
	}},
	{"remove_property", func(t *testing.T, m *Model) [2]int {
		o, ok := withProperties(m)
		if !ok {
			t.Skip("no object with properties")
		}
		must(t, m.RemoveProperty(o.ID(), o.Properties()[0].Key))
		return [2]int{-1, -1}
	}},
	{"set_documentation", func(t *testing.T, m *Model) [2]int {
		e := m.Elements()[len(m.Elements())-1]
		must(t, m.SetDocumentation(e.ID(), "Written by archiplan.\r\nSecond line with <markup> & \"quotes\"."))
		return [2]int{-1, -1}
	}},
	{"create_element", func(t *testing.T, m *Model) [2]int {
		_, err := m.CreateElement("Business Actor", "New actor", "")
		must(t, err)
		top, _ := m.TopFolder(FolderBusiness)
		if len(top.Children()) > 1 {
			return [2]int{0, 1}
		}
		return [2]int{-1, -1}
	}},
	{"create_relationship", func(t *testing.T, m *Model) [2]int {
		var els []Object // a junction has rules of its own (TestJunction_Rules)
		for _, e := range m.Elements() {
			if e.Class() != "Junction" {
				els = append(els, e)
			}
		}
		if len(els) == 1 {
			id, err := m.CreateElement("Business Actor", "Second", "")
			must(t, err)
			o, _ := m.Object(id)
			els = append(els, o)
		}
		a, b := els[0], els[len(els)-1]
		types := Relationships().AllowedTypes(a.Class(), b.Class())
		if len(types) == 0 {
			t.Skip("no relationship allowed")
		}
		// the first type the table allows that the junction rules allow too, when an end is one
		var err error
		for _, ty := range types {
			if _, err = m.CreateRelationship(ty, a.ID(), b.ID(), ""); !errors.Is(err, ErrNotAllowed) {
				break
			}
		}
		must(t, err)
		if len(m.Relationships()) > 1 {
			return [2]int{0, 1}
		}
		return [2]int{-1, -1}
	}},
	{"create_view", func(t *testing.T, m *Model) [2]int {
		_, err := m.CreateView("Planned view", "", "layered")
		must(t, err)
		return [2]int{0, 1}
	}},
	{"delete_element", func(t *testing.T, m *Model) [2]int {
		o, ok := firstWith(m, KindElement, func(o Object) bool {
			return len(m.RelationshipsOf(o.ID())) > 0 && onSomeView(m, o.ID())
		})
		if !ok {
			o = m.Elements()[0]
		}
		id := o.ID()
		// an element with relationships shown on views proves more: give it one if none has
		if len(m.RelationshipsOf(id)) == 0 {
			other, err := m.CreateElement("Business Actor", "Related", "")
			must(t, err)
			if _, err := m.CreateRelationship("Association", other, id, ""); err != nil {
				t.Fatal(err)
			}
		}
		rels := m.RelationshipsOf(id)
		del, err := m.DeleteElement(id)
		must(t, err)
		if _, still := m.Object(id); still {
			t.Fatal("element still indexed")
		}
		for _, r := range rels {
			if _, still := m.Object(r.ID()); still {
				t.Fatalf("relationship %s survived its end", r.ID())
			}
		}
		if len(del.Relationships) < len(rels) {
			t.Fatalf("reported %d relationships, had %d", len(del.Relationships), len(rels))
		}
		return [2]int{-1, -1}
	}},
	{"delete_relationship", func(t *testing.T, m *Model) [2]int {
		o, ok := firstWith(m, KindRelationship, func(o Object) bool { return onSomeView(m, o.ID()) })
		if !ok {
			if len(m.Relationships()) == 0 {
				t.Skip("no relationships")
			}
			o = m.Relationships()[0]
		}
		del, err := m.DeleteRelationship(o.ID())
		must(t, err)
		if ok && len(del.Connections) == 0 {
			t.Fatal("a relationship shown on a view took no connection with it")
		}
		return [2]int{-1, -1}
	}},
	{"add_to_view", func(t *testing.T, m *Model) [2]int {
		// an element with a relationship to something on an ArchiMate view, added to that view
		for _, r := range m.Relationships() {
			for _, ref := range m.ReferencesTo(r.SourceID()) {
				v, _ := ref.View()
				if v.Class() != "ArchimateDiagramModel" {
					continue
				}
				tgt, ok := r.Target()
				if !ok || tgt.Kind() != KindElement {
					continue
				}
				_, conns, err := m.AddToView(v.ID(), tgt.ID(), nil)
				must(t, err)
				if len(conns) == 0 {
					t.Fatal("no connection drawn")
				}
				return [2]int{-1, -1}
			}
		}
		t.Skip("no relationship with an end on a view")
		return [2]int{}
	}},
	{"move_to_folder", func(t *testing.T, m *Model) [2]int {
		e := m.Elements()[0]
		top, _ := m.TopFolder(FolderFor(e.Class()))
		fid, err := m.MoveToFolder(e.ID(), top.Name()+"/Moved by archiplan/Deeper")
		must(t, err)
		if p, _ := e.Parent(); p.ID() != fid {
			t.Fatalf("element in %s, want %s", p.ID(), fid)
		}
		return [2]int{-1, -1}
	}},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEdit_CorpusEMF applies every edit primitive to every corpus model Archi opens as it is,
// checks how many lines changed, and has Archi's own EMF check that each result opens and is
// written exactly as Archi would write it.
func TestEdit_CorpusEMF(t *testing.T) {
	dir := t.TempDir()
	var written []string
	for _, path := range corpusFiles(t) {
		if !emfLoadable(path) {
			continue
		}
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(path), ".archimate")
		for _, c := range editCases {
			t.Run(base+"/"+c.name, func(t *testing.T) {
				m, err := Load(in)
				must(t, err)
				if len(m.Elements()) == 0 {
					t.Skip("model has no elements")
				}
				m.Record()
				want := c.edit(t, m)
				steps := m.Recorded()
				out, err := m.Save()
				must(t, err)
				if bytes.Equal(out, in) {
					t.Fatal("edit changed nothing")
				}
				r, a := lineChange(in, out)
				if want[0] >= 0 && (r != want[0] || a != want[1]) {
					t.Errorf("-%d +%d lines, want -%d +%d", r, a, want[0], want[1])
				}
				// the saved model loads again and saves to the same bytes
				again, err := Load(out)
				must(t, err)
				out2, err := again.Save()
				must(t, err)
				if !bytes.Equal(out, out2) {
					t.Fatalf("reload changed the saved model: %s", firstDiff(out, out2))
				}
				// the journal, through JSON and in a fresh load of the edited file, undoes the edit exactly
				js, err := json.Marshal(steps)
				must(t, err)
				var back []Step
				must(t, json.Unmarshal(js, &back))
				must(t, again.Undo(back))
				undone, err := again.Save()
				must(t, err)
				if !bytes.Equal(undone, in) {
					t.Fatalf("undo did not restore the model: %s", firstDiff(in, undone))
				}
				f := filepath.Join(dir, base+"."+c.name+".archimate")
				must(t, os.WriteFile(f, out, 0o644))
				written = append(written, f)
			})
		}
	}
	if len(written) == 0 {
		t.Fatal("no edited model written")
	}
	t.Run("archi-emf", func(t *testing.T) {
		archiEMF(t, "check", written...)
		archiEMF(t, "canonical", written...)
	})
}

func TestEdit_Errors(t *testing.T) {
	m := testModel(t)
	actor := mustID(t, m, "Customer")
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"rename unknown id", m.Rename("id-nope", "x"), ErrNotFound},
		{"control character", m.Rename(actor, "bell\a"), ErrInvalidText},
		{"invalid utf-8", m.Rename(actor, "bad\xff"), ErrInvalidText},
		{"unknown element type", errOf(m.CreateElement("Business Actorr", "x", "")), ErrUnknownType},
		{"relationship type as element", errOf(m.CreateElement("Serving", "x", "")), ErrUnknownType},
		{"illegal relationship", errOf(m.CreateRelationship("Triggering", actor, mustID(t, m, "Customer File"), "")), ErrNotAllowed},
		{"relationship to a view", errOf(m.CreateRelationship("Association", actor, mustID(t, m, "Main view"), "")), ErrWrongKind},
		{"folder of another layer", errOf(m.CreateElement("Node", "n", mustFolder(t, m, "business"))), ErrWrongFolder},
		{"move outside the layer", errOf(m.MoveToFolder(actor, "Application/Elsewhere")), ErrWrongFolder},
		{"remove missing property", m.RemoveProperty(actor, "no such key"), ErrNotFound},
		{"delete relationship as element", errOf(m.DeleteElement(m.Relationships()[0].ID())), ErrWrongKind},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, c.want) {
				t.Fatalf("got %v, want %v", c.err, c.want)
			}
		})
	}
	if m.Changed() {
		t.Fatal("refused edits changed the model")
	}
}

func errOf[T any](_ T, err error) error { return err }
