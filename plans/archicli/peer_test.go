package archicli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// peerOrder is the order the peer's own tests apply its fixtures in, from an empty model.
var peerOrder = []string{
	"smoke-elements", "smoke-relationships", "smoke-view",
	"bulk-01-elements", "bulk-02-relationships", "bulk-03-views", "bulk-04-styling",
	"fix1-elements", "fix1-large-relationships", "fix4-elements", "fix4-duplicate-access",
	"fix5-large-elements", "includes-parent", "verify-valid", "empty",
}

// The peer's fixtures, converted and applied in its order from an empty model: everything its
// server makes is made, except the relationships the ArchiMate 3.2 table forbids, which are
// refused with REL_NOT_ALLOWED (and what names them left out of later plans); nothing is drawn
// twice; the styles are the peer's.
func TestPeerFixtures_AppliedInOrder(t *testing.T) {
	m := archixml.New("Peer fixtures")
	applied := map[string]map[string]string{}
	refused := map[string]bool{} // tempIds of relationships the 3.2 table forbids
	want := struct{ elements, relationships, views, connections, notes, groups, styled int }{}
	for _, name := range peerOrder {
		raw, err := Convert(peer(name), Options{Applied: func(n string) (map[string]string, bool, error) {
			refs, ok := applied[n]
			return refs, ok, nil
		}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		acts := p["actions"].([]any)
		// the relationships the 3.2 table forbids are refused by code
		o := plans.Check(raw, m, plans.Options{})
		keep := []any{}
		for i, a := range acts {
			act := a.(map[string]any)
			bad := false
			for _, f := range o.Errors() {
				if f.Action == nil || *f.Action != i {
					continue
				}
				switch {
				case f.Code == plans.RelNotAllowed && act["op"] == "create_relationship":
					refused[fmt.Sprint(act["ref_id"])] = true
					bad = true
				case f.Code == plans.RefNotFound && refused[fmt.Sprint(act["relationship_id"])]:
					bad = true // draws a refused relationship
				default:
					t.Fatalf("%s: action %d: %s %s", name, i, f.Code, f.Message)
				}
			}
			if !bad {
				keep = append(keep, a)
			}
		}
		p["actions"] = keep
		raw, _ = json.Marshal(p)
		if len(keep) == 0 { // a fixture with no action (the peer's "empty") has nothing to apply
			if o = plans.Check(raw, m, plans.Options{}); o.Verdict != plans.VerdictInvalid {
				t.Fatalf("%s: a plan with no action is %s, want refused (NOTHING_TO_APPLY)", name, o.Verdict)
			}
			applied[name] = map[string]string{}
			continue
		}
		o, _, err = plans.Apply(raw, m, plans.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		applied[name] = o.Refs
		for _, a := range keep {
			switch a.(map[string]any)["op"] {
			case "create_element":
				want.elements++
			case "create_relationship":
				want.relationships++
			case "create_view":
				want.views++
			case "add_connection_to_view":
				want.connections++
			case "create_note":
				want.notes++
			case "create_group":
				want.groups++
			case "style_view_object":
				want.styled++
			}
		}
	}
	if len(refused) == 0 {
		t.Fatal("no relationship of the peer's fixtures was refused: the 3.2 table is not applied")
	}
	got := want
	got.elements, got.relationships, got.views = len(m.Elements()), len(m.Relationships()), len(m.Views())-1 // New's Default View
	got.connections, got.notes, got.groups, got.styled = 0, 0, 0, 0
	drawn := map[string]bool{}
	for _, v := range m.Views() {
		for _, o := range v.DiagramObjects() {
			switch o.Class() {
			case "Note":
				got.notes++
			case "Group":
				got.groups++
			}
			if o.Attr("alpha") == "100" && o.Attr("lineWidth") == "2" && strings.HasPrefix(o.Attr("fillColor"), "#") {
				got.styled++
			}
		}
		for _, c := range v.Connections() {
			got.connections++
			key := c.Attr("source") + " " + c.Attr("target") + " " + c.Attr("archimateRelationship")
			if drawn[key] {
				t.Errorf("view %q: %s drawn twice", v.Name(), key)
			}
			drawn[key] = true
		}
	}
	if got != want {
		t.Fatalf("the model holds %+v, the plans make %+v", got, want)
	}
	t.Logf("applied %d plans: %+v; %d relationships refused by the 3.2 table", len(peerOrder), got, len(refused))
	// fix4: a read and a readwrite Access between the same elements are both there
	var access []string
	for _, r := range m.Relationships() {
		if r.Class() == "AccessRelationship" && r.SourceID() == applied["fix4-elements"]["fix4-src"] {
			access = append(access, r.Attr("accessType"))
		}
	}
	sort.Strings(access)
	if strings.Join(access, ",") != "1,3" {
		t.Fatalf("fix4's accesses: %v, want read (1) and readwrite (3)", access)
	}
	_ = filepath.Join
}
