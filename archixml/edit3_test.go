package archixml

import (
	"errors"
	"testing"
)

// firstObjectOnView is the first diagram object on an ArchiMate view that shows an element.
func firstObjectOnView(t *testing.T, m *Model) (Object, Object) {
	for _, v := range m.Views() {
		if v.Class() != "ArchimateDiagramModel" {
			continue
		}
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); ok && c.Kind() == KindElement {
				return v, d
			}
		}
	}
	t.Skip("no element on an ArchiMate view")
	return Object{}, Object{}
}

func relOfClass(t *testing.T, m *Model, class string) Object {
	for _, r := range m.Relationships() {
		if r.Class() == class {
			return r
		}
	}
	t.Skipf("no %s", class)
	return Object{}
}

// The primitives 3.0 adds, run by TestEdit_CorpusEMF on every corpus model: minimal diffs, undone
// exactly by the journal, and written as Archi's EMF writes them.
func init() {
	editCases = append(editCases,
		editCase{"style", func(t *testing.T, m *Model) [2]int {
			_, d := firstObjectOnView(t, m)
			must(t, m.SetStyle(d.ID(), "fillColor", "#c0e0ff"))
			must(t, m.SetStyle(d.ID(), "fontColor", "#003366"))
			must(t, m.SetStyle(d.ID(), "textPosition", "2"))
			must(t, m.SetStyle(d.ID(), "font", "1|Arial|10.0|1|GTK|1|"))
			return [2]int{1, 1}
		}},
		editCase{"bounds", func(t *testing.T, m *Model) [2]int {
			_, d := firstObjectOnView(t, m)
			x, w := -30, 200
			must(t, m.SetBounds(d.ID(), &x, nil, &w, nil))
			return [2]int{1, 1}
		}},
		editCase{"access_type", func(t *testing.T, m *Model) [2]int {
			r := relOfClass(t, m, "AccessRelationship")
			v := "3"
			if r.Attr("accessType") == "3" {
				v = "1"
			}
			must(t, m.SetRelationshipAttr(r.ID(), "accessType", v))
			return [2]int{1, 1}
		}},
		editCase{"directed", func(t *testing.T, m *Model) [2]int {
			r := relOfClass(t, m, "AssociationRelationship")
			if r.Attr("directed") == "true" {
				must(t, m.SetRelationshipAttr(r.ID(), "directed", ""))
			} else {
				must(t, m.SetRelationshipAttr(r.ID(), "directed", "true"))
			}
			return [2]int{1, 1}
		}},
		editCase{"note_group_connection", func(t *testing.T, m *Model) [2]int {
			v, d := firstObjectOnView(t, m)
			g, err := m.CreateGroup(v.ID(), "", "A group", nil)
			must(t, err)
			n, err := m.CreateNote(v.ID(), g, "A note\nwith & <two> lines", &Bounds{X: 10, Y: 30, Width: 150, Height: 60})
			must(t, err)
			_, err = m.ConnectObjects(n, d.ID(), "")
			must(t, err)
			return [2]int{-1, -1}
		}},
		editCase{"nested_add", func(t *testing.T, m *Model) [2]int {
			v, d := firstObjectOnView(t, m)
			el := m.Elements()[len(m.Elements())-1]
			_, _, err := m.AddToViewIn(v.ID(), d.ID(), el.ID(), nil)
			must(t, err)
			return [2]int{-1, -1}
		}},
		editCase{"remove_from_view", func(t *testing.T, m *Model) [2]int {
			_, d := firstObjectOnView(t, m)
			_, err := m.RemoveFromView(d.ID())
			must(t, err)
			return [2]int{-1, -1}
		}},
		editCase{"delete_view", func(t *testing.T, m *Model) [2]int {
			v, _ := firstObjectOnView(t, m)
			_, err := m.DeleteView(v.ID())
			must(t, err)
			return [2]int{-1, -1}
		}},
		editCase{"layout_view", func(t *testing.T, m *Model) [2]int {
			v, _ := firstObjectOnView(t, m)
			moved, err := m.LayoutView(v.ID())
			must(t, err)
			if len(moved) == 0 {
				t.Skip("the view is laid out already")
			}
			return [2]int{-1, -1}
		}},
		editCase{"specialization", func(t *testing.T, m *Model) [2]int {
			e := m.Elements()[0]
			_, created, err := m.SetSpecialization(e.ID(), "Planned specialization")
			must(t, err)
			if !created {
				t.Fatal("no profile created")
			}
			return [2]int{-1, -1}
		}},
		editCase{"change_type", func(t *testing.T, m *Model) [2]int {
			for _, e := range m.Elements() {
				if e.Class() == "BusinessActor" && len(m.RelationshipsOf(e.ID())) > 0 {
					if err := m.ChangeType(e.ID(), "BusinessRole"); err == nil {
						return [2]int{1, 1}
					}
				}
			}
			for _, e := range m.Elements() {
				if e.Class() == "BusinessActor" && len(m.RelationshipsOf(e.ID())) == 0 {
					must(t, m.ChangeType(e.ID(), "Goal")) // to another layer: moves to its folder
					return [2]int{-1, -1}
				}
			}
			t.Skip("no business actor to change")
			return [2]int{}
		}},
		editCase{"merge", func(t *testing.T, m *Model) [2]int {
			byClass := map[string]Object{}
			for _, e := range m.Elements() {
				if first, ok := byClass[e.Class()]; ok && e.Class() != "Junction" {
					_, err := m.Merge(first.ID(), e.ID())
					must(t, err)
					return [2]int{-1, -1}
				}
				byClass[e.Class()] = e
			}
			t.Skip("no two elements of one type")
			return [2]int{}
		}},
	)
}

func TestEdit3_Errors(t *testing.T) {
	m := testModel(t)
	v := m.Views()[0]
	d := v.DiagramObjects()[0]
	customer := mustID(t, m, "Customer")
	desk := mustID(t, m, "Rental Desk")
	note, err := m.CreateNote(v.ID(), "", "n", nil)
	must(t, err)
	base, _ := m.Save()
	cases := []struct {
		name      string
		err, want error
	}{
		{"plain connection between elements", errOf(m.ConnectObjects(d.ID(), v.DiagramObjects()[1].ID(), "")), ErrNotAllowed},
		{"nest in a note", errOf3(m.AddToViewIn(v.ID(), note, customer, nil)), ErrWrongKind},
		{"style a connection's fill", m.SetStyle(v.Connections()[0].ID(), "fillColor", "#ffffff"), ErrWrongKind},
		{"unknown style", m.SetStyle(d.ID(), "shadow", "1"), ErrUnknownType},
		{"access type on a serving", m.SetRelationshipAttr(m.Relationships()[0].ID(), "accessType", "1"), ErrWrongKind},
		{"merge different types", errOf(m.Merge(customer, desk)), ErrWrongKind},
		{"merge into itself", errOf(m.Merge(customer, customer)), ErrWrongKind},
		{"change type breaking a relationship", m.ChangeType(mustID(t, m, "Booking Server"), "Goal"), ErrNotAllowed},
		{"change to a relationship type", m.ChangeType(customer, "Serving"), ErrUnknownType},
		{"delete an element as a view", errOf(m.DeleteView(customer)), ErrWrongKind},
		{"remove an element from a view", errOf(m.RemoveFromView(customer)), ErrWrongKind},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, c.want) {
				t.Fatalf("got %v, want %v", c.err, c.want)
			}
		})
	}
	if after, _ := m.Save(); string(after) != string(base) {
		t.Fatal("refused edits changed the model")
	}
}

func errOf3[A, B any](_ A, _ B, err error) error { return err }

// The indexes follow edits of the attributes they are built from, and their undo: a merged
// element's relationships and references are the survivor's, and back again after undo.
func TestEdit3_IndexesFollow(t *testing.T) {
	m := testModel(t)
	a, err := m.CreateElement("Business Actor", "Twin", "")
	must(t, err)
	customer := mustID(t, m, "Customer")
	before := len(m.RelationshipsOf(customer))
	refs := len(m.ReferencesTo(customer))
	m.Record()
	_, err = m.Merge(a, customer)
	must(t, err)
	steps := m.Recorded()
	if got := len(m.RelationshipsOf(a)); got != before || len(m.ReferencesTo(a)) != refs {
		t.Fatalf("after the merge the survivor has %d relationships and %d references, want %d and %d", got, len(m.ReferencesTo(a)), before, refs)
	}
	must(t, m.Undo(steps))
	if len(m.RelationshipsOf(customer)) != before || len(m.RelationshipsOf(a)) != 0 || len(m.ReferencesTo(customer)) != refs {
		t.Fatal("undo left the indexes behind")
	}
}
