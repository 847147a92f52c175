package plans

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/archixml/route"
)

// minArrowGap is the least gap between two connected boxes a laid-out view leaves: room for
// Archi's 7 px arrowhead and some line before it (issue 34: create_view left 24 px, arrows barely
// showed).
const minArrowGap = 24

// boxGap is the gap between two boxes along the axis they are apart on (negative when they
// overlap).
func boxGap(a, b render.Box) int {
	return max(b.X-(a.X+a.W), a.X-(b.X+b.W), b.Y-(a.Y+a.H), a.Y-(b.Y+b.H))
}

// issue 34: on every corpus model, a view made from an element and its neighbours to depth 2 is
// laid out in layers with room for the arrows: more than 24 px between any two connected boxes,
// no line through a box it does not connect, no overlap, nothing outside its parent.
func TestLayout_CreateViewLeavesRoomForArrows(t *testing.T) {
	for _, f := range corpusAndExample(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			must(t, err)
			m, err := archixml.Load(in)
			must(t, err)
			var seed archixml.Object
			for _, el := range m.Elements() {
				if n := neighbourhood(m, el.ID(), 2); len(n) > 3 && len(n) <= 300 {
					seed = el
					break
				}
			}
			if !seed.Valid() {
				t.Skip("no element with a small neighbourhood")
			}
			j, _ := json.Marshal(seed.ID())
			raw := []byte(plan3(`{"op":"create_view","name":"Around it","ref_id":"v","select_ids":[` + string(j) + `],"depth":2}`))
			o, _, err := Apply(raw, m, Options{})
			if err != nil {
				t.Fatalf("%v %v", err, o.Errors())
			}
			view := o.Results[0].Created[0]
			g, err := render.Measure(m, view)
			must(t, err)
			q := route.Of(g)
			t.Logf("%d object(s), %d connection(s): %v", len(g.Objects), len(g.Connections), q)
			if q.Through != 0 || q.Overlaps != 0 || q.Outside != 0 {
				t.Errorf("the new view reads badly: %v", q)
			}
			boxes := map[string]render.Box{}
			for _, ob := range g.Objects {
				boxes[ob.ID] = ob.Box
			}
			for _, c := range g.Connections {
				a, aok := boxes[c.Source]
				b, bok := boxes[c.Target]
				if aok && bok && c.Source != c.Target {
					if gap := boxGap(a, b); gap <= minArrowGap {
						t.Errorf("connection %s: its boxes %v and %v are %d px apart, no room for its arrow", c.ID, a, b, gap)
					}
				}
			}
		})
	}
}

// issue 34: an object added without a place keeps clear of its neighbours: beside what it is
// related to, but not touching another box there (it was put right of the related box, its edge
// on the next box's).
func TestPlacement_KeepsClearOfNeighbours(t *testing.T) {
	m := exampleModel(t)
	raw := []byte(plan3(
		`{"op":"create_element","type":"ApplicationComponent","name":"A","ref_id":"a"}`,
		`{"op":"create_element","type":"ApplicationComponent","name":"B","ref_id":"b"}`,
		`{"op":"create_element","type":"ApplicationComponent","name":"C","ref_id":"c"}`,
		`{"op":"create_relationship","source_id":"c","target_id":"a","relationship_type":"Flow","ref_id":"r"}`,
		`{"op":"create_view","name":"Placing","ref_id":"v"}`,
		// B where a box right of A, 24 px from it, would touch it
		`{"op":"add_to_view","view_id":"v","element_id":"a","x":24,"y":24,"width":120,"height":55,"ref_id":"oa"}`,
		fmt.Sprintf(`{"op":"add_to_view","view_id":"v","element_id":"b","x":%d,"y":24,"width":120,"height":55,"ref_id":"ob"}`, 24+120+24+120),
		`{"op":"add_to_view","view_id":"v","element_id":"c","ref_id":"oc"}`,
	))
	o, _, err := Apply(raw, m, Options{})
	if err != nil {
		t.Fatalf("%v %v", err, o.Errors())
	}
	bounds := func(ref string) archixml.Bounds {
		ob, _ := m.Object(o.Refs[ref])
		return sizedBounds(ob)
	}
	c := bounds("oc")
	for _, ref := range []string{"oa", "ob"} {
		n := bounds(ref)
		gap := max(n.X-(c.X+c.Width), c.X-(n.X+n.Width), n.Y-(c.Y+c.Height), c.Y-(n.Y+n.Height))
		if gap < 12 {
			t.Errorf("placed at %+v, %d px from %s at %+v: it touches its neighbour", c, gap, ref, n)
		}
	}
	if c.X < 12 || c.Y < 12 {
		t.Errorf("placed at %+v, on the view's edge", c)
	}
}
