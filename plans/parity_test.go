package plans

import (
	"strings"
	"testing"
)

// A pair of objects is never joined twice by one relationship: add_to_view draws the Serving
// from Bike Rental to Customer, so drawing it again, with objects or without, is skipped with a
// warning, and the ref_id names the connection that is there.
func TestAddConnection_SkipsJoinedPair(t *testing.T) {
	for _, c := range []struct{ name, draw string }{
		{"objects", `{"op":"add_connection_to_view","view_id":"v","relationship_id":"{Rel}","source_object_id":"ob","target_object_id":"oc","ref_id":"conn"}`},
		{"no objects", `{"op":"add_connection_to_view","view_id":"v","relationship_id":"{Rel}","ref_id":"conn"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			raw := ids(t, m, plan3(`{"op":"create_view","name":"V","ref_id":"v"}`,
				`{"op":"add_to_view","view_id":"v","element_id":"{Customer}","ref_id":"oc"}`,
				`{"op":"add_to_view","view_id":"v","element_id":"{BikeRental}","ref_id":"ob"}`,
				c.draw,
				`{"op":"style_view_object","object_id":"conn","line_color":"#ff0000"}`))
			o, _, err := Apply([]byte(raw), m, Options{})
			if err != nil {
				t.Fatal(err, o.Findings)
			}
			if !hasFinding(o.Warnings(), ConnectionExists) {
				t.Fatalf("want %s, got %v", ConnectionExists, o.Findings)
			}
			v := o.Results[0].Created[0]
			drawn := m.ConnectionsOnView(v, m.Relationships()[0].ID())
			if len(drawn) != 1 {
				t.Fatalf("the relationship is drawn %d times on the view, want once", len(drawn))
			}
			if conn, _ := m.Object(drawn[0]); conn.Attr("lineColor") != "#ff0000" {
				t.Fatal("the ref_id of the skipped action does not name the connection that is there")
			}
		})
	}
}

// Relationships are duplicates only when type, ends, access type and influence strength agree;
// reuse never takes one with another access type.
func TestCreateRelationship_DuplicateRule(t *testing.T) {
	// the example's Rent a Bike accesses the Customer File with Archi's default (write)
	access := func(extra string) string {
		return `{"op":"create_relationship","source_id":"{RentaBike}","target_id":"{CustomerFile}","relationship_type":"Access"` + extra + `}`
	}
	cases := []struct {
		name, action string
		dup, reused  bool
	}{
		{"default access", access(``), true, false},
		{"write access", access(`,"access_type":"write"`), true, false},
		{"read access", access(`,"access_type":"read"`), false, false},
		{"readwrite reuse", access(`,"access_type":"readwrite","on_duplicate":"reuse"`), false, false},
		{"write reuse", access(`,"access_type":"write","on_duplicate":"reuse"`), false, true},
		{"strength", `{"op":"create_relationship","source_id":"{ShorterQueues}","target_id":"{ShorterQueues}","relationship_type":"Influence","influence_strength":"+"},` +
			`{"op":"create_relationship","source_id":"{ShorterQueues}","target_id":"{ShorterQueues}","relationship_type":"Influence","influence_strength":"++","on_duplicate":"error"}`, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			before := len(m.Relationships())
			// a second action that changes the model: a plan that only reuses changes nothing (NOTHING_TO_APPLY)
			o, _, err := Apply([]byte(ids(t, m, plan3(c.action, `{"op":"rename_element","element_id":"{Customer}","new_name":"Client"}`))), m, Options{})
			if err != nil {
				t.Fatal(err, o.Findings)
			}
			if got := hasFinding(o.Warnings(), DuplicateRel); got != c.dup {
				t.Fatalf("DUPLICATE_RELATIONSHIP %v, want %v: %v", got, c.dup, o.Findings)
			}
			reused := strings.HasPrefix(o.Results[0].Description, "Reuse")
			if reused != c.reused || (len(m.Relationships()) == before) != c.reused {
				t.Fatalf("reused %v (%d relationships, %d before), want %v", reused, len(m.Relationships()), before, c.reused)
			}
		})
	}
}
