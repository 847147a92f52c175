package archixml

import "testing"

func TestObject_Original(t *testing.T) {
	data, err := Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Elements()[0]
	src, ok := e.Original()
	if !ok || src != e.XML() {
		t.Fatalf("an unedited element's Original %q (%v), XML %q", src, ok, e.XML())
	}
	if err := m.Rename(e.ID(), "Renamed"); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Original(); ok {
		t.Error("an edited element still has an Original")
	}
	if p, _ := e.Parent(); func() bool { _, ok := p.Original(); return ok }() {
		t.Error("the folder holding an edited element still has an Original")
	}
	if _, ok := New("x").Root().Original(); ok {
		t.Error("a model built in memory has an Original")
	}
}
