package archixml

import (
	"errors"
	"strings"
	"testing"
)

func TestJunction_Rules(t *testing.T) {
	m := testModel(t)
	app := mustID(t, m, "Booking App")
	svc := mustID(t, m, "Booking Service")
	rent := mustID(t, m, "Rent a Bike")
	file := mustID(t, m, "Customer File")
	j, err := m.CreateElement("Junction", "and", "")
	must(t, err)
	capability, err := m.CreateElement("Capability", "Self Service", "")
	must(t, err)

	// a junction joins serving relationships: app service -> J -> process
	_, err = m.CreateRelationship("Serving", svc, j, "")
	must(t, err)
	_, err = m.CreateRelationship("Serving", j, rent, "")
	must(t, err)

	cases := []struct {
		name     string
		rel      string
		src, tgt string
		contains string
	}{
		{"another type at the junction", "Triggering", j, rent, "all relationships at a junction are of one type"},
		{"a type junctions do not join", "Composition", app, j, "a junction joins only"},
		{"a type the table refuses from a junction", "Serving", j, file, "not allowed"},
		{"a path through the junction the table refuses", "Serving", j, capability, `Application Service "Booking Service" to Capability "Self Service"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := m.CreateRelationship(c.rel, c.src, c.tgt, "")
			if !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), c.contains) {
				t.Fatalf("got %v, want %q", err, c.contains)
			}
		})
	}
	// one more serving source into the junction is fine while its paths are allowed
	_, err = m.CreateRelationship("Serving", app, j, "")
	must(t, err)
	data, err := m.Save()
	must(t, err)
	writeAndCheckEMF(t, data)
}
