package archixml

import "testing"

// add_to_view without bounds: inside the group that holds what the element relates to, in free
// space, at the size most objects of its type have on the view; and no connection Archi would hide.
func TestAddToView_PlacesInHolderAtTypicalSize(t *testing.T) {
	m := testModel(t)
	view, err := m.CreateView("Placed", "", "")
	must(t, err)
	a, err := m.CreateElement("ApplicationComponent", "A", "")
	must(t, err)
	c, err := m.CreateElement("ApplicationComponent", "C", "")
	must(t, err)
	b, err := m.CreateElement("ApplicationComponent", "B", "")
	must(t, err)
	_, err = m.CreateRelationship("Serving", a, b, "")
	must(t, err)
	g, err := m.CreateGroup(view, "", "Holder", &Bounds{X: 40, Y: 40, Width: 600, Height: 300})
	must(t, err)
	ao, _, err := m.AddToViewIn(view, g, a, &Bounds{X: 24, Y: 40, Width: 169, Height: 85})
	must(t, err)
	_, _, err = m.AddToView(view, c, &Bounds{X: 700, Y: 40, Width: 169, Height: 85})
	must(t, err)

	bo, conns, err := m.AddToView(view, b, nil)
	must(t, err)
	o, _ := m.Object(bo)
	if p, ok := o.Parent(); !ok || p.ID() != g {
		t.Fatalf("placed in %v, not in the group holding A", p.ID())
	}
	bb, _ := o.Bounds()
	if bb.Width != 169 || bb.Height != 85 {
		t.Errorf("size %dx%d, the view's components are 169x85", bb.Width, bb.Height)
	}
	if bb.X < 0 || bb.Y < 0 || bb.X+bb.Width > 600 || bb.Y+bb.Height > 300 {
		t.Errorf("at %+v, outside the group (600x300)", bb)
	}
	aob, _ := m.Object(ao)
	ab, _ := aob.Bounds()
	if overlaps(ab, bb) {
		t.Errorf("placed at %+v over A at %+v", bb, ab)
	}
	if len(conns) != 1 {
		t.Errorf("%d connections, want the serving one", len(conns))
	}

	// nested in A itself: the serving relationship is not drawn (Archi hides it)
	_, conns, err = m.AddToViewIn(view, ao, b, nil)
	must(t, err)
	if len(conns) != 0 {
		t.Errorf("%d connections drawn between an object and the one it sits in", len(conns))
	}
	assertConnectionsConsistent(t, m)
	data, err := m.Save()
	must(t, err)
	writeAndCheckEMF(t, data)
}
