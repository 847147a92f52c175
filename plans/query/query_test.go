package query

import (
	"errors"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

func TestID(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
		err  error
	}{
		{"id-1", "id-1", nil}, {float64(580), "580", nil}, {580, "580", nil}, {1.5, "", ErrBadID}, {nil, "", ErrBadID}, {true, "", ErrBadID},
	} {
		got, err := ID(c.in)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("%v: %q %v", c.in, got, err)
		}
	}
}

// Show's impact runs the delete cascade and puts the model back exactly.
func TestShow_ImpactLeavesModel(t *testing.T) {
	m := archixml.Example()
	before, _ := m.Save()
	for _, o := range append(m.Elements(), m.Views()...) {
		s, err := Show(m, o.ID(), true)
		if err != nil {
			t.Fatal(err)
		}
		if o.Kind() == archixml.KindElement && len(s.Impact.Delete.Relationships) < len(m.RelationshipsOf(o.ID())) {
			t.Fatalf("%s: %d relationships go, %d attached", o.ID(), len(s.Impact.Delete.Relationships), len(m.RelationshipsOf(o.ID())))
		}
	}
	after, _ := m.Save()
	if string(before) != string(after) {
		t.Fatal("show --impact changed the model")
	}
}
