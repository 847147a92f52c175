package plans

import (
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// Objects put inside a parent without a place land inside it: on free cells of a grid as wide as
// the parent, the parent growing (and what holds it) when it must, and the preview says so.
func TestPlacement_InsideParentWithoutPlace(t *testing.T) {
	m := exampleModel(t)
	var els []string
	for _, e := range m.Elements() {
		if len(els) < 5 && e.Class() != "Junction" && e.Class() != "Grouping" {
			els = append(els, e.ID())
		}
	}
	var acts []string
	acts = append(acts, `{"op":"create_view","name":"Placing","ref_id":"v"}`,
		`{"op":"create_group","view_id":"v","name":"Outer","x":20,"y":20,"width":320,"height":200,"ref_id":"outer"}`,
		`{"op":"create_group","view_id":"v","name":"Holder","parent_id":"outer","x":10,"y":30,"width":277,"height":100,"ref_id":"g"}`)
	for i, id := range els {
		acts = append(acts, fmt.Sprintf(`{"op":"add_to_view","view_id":"v","element_id":%q,"parent_id":"g","ref_id":"o%d","connect":false}`, id, i))
	}
	acts = append(acts, `{"op":"create_note","view_id":"v","parent_id":"g","text":"a note","ref_id":"n"}`)
	raw := `{"schema_version":"3.1","status":"ready","summary":"placing","actions":[` + strings.Join(acts, ",") + `]}`
	o, _, err := Apply([]byte(raw), m, Options{})
	if err != nil {
		t.Fatalf("%v", err)
	}
	holder, _ := m.Object(o.Refs["g"])
	hb, _ := holder.Bounds()
	var boxes []archixml.Bounds
	for i := range els {
		obj, _ := m.Object(o.Refs[fmt.Sprintf("o%d", i)])
		b, _ := obj.Bounds()
		boxes = append(boxes, b)
	}
	note, _ := m.Object(o.Refs["n"])
	nb, _ := note.Bounds()
	boxes = append(boxes, nb)
	for i, b := range boxes {
		if b.X < 0 || b.Y < 0 || b.X+b.Width > hb.Width || b.Y+b.Height > hb.Height {
			t.Errorf("object %d at %+v lies outside its parent, %dx%d", i, b, hb.Width, hb.Height)
		}
		for j := range boxes[:i] {
			if overlap(b, boxes[j]) {
				t.Errorf("objects %d and %d overlap: %+v %+v", j, i, boxes[j], b)
			}
		}
	}
	if hb.Width != 277 || hb.Height <= 100 {
		t.Errorf("the holder is %dx%d: it should keep its width and grow down to hold 5 objects and a note", hb.Width, hb.Height)
	}
	outer, _ := m.Object(o.Refs["outer"])
	ob, _ := outer.Bounds()
	if hb.Y+hb.Height > ob.Height || hb.X+hb.Width > ob.Width {
		t.Errorf("the outer group %dx%d does not hold the grown holder %+v", ob.Width, ob.Height, hb)
	}
	md := string(o.Preview("p.json", ModelInfo{}))
	if !strings.Contains(md, "grown from 277x100 to") {
		t.Errorf("the preview does not say the parent grew:\n%s", md)
	}
}

func overlap(a, b archixml.Bounds) bool {
	return a.X < b.X+b.Width && b.X < a.X+a.Width && a.Y < b.Y+b.Height && b.Y < a.Y+a.Height
}

// A move into a Grouping it has no relationship with is warned about as an add into it is: one
// check, the same words.
func TestNesting_MoveIntoGroupingWarnsAsAddDoes(t *testing.T) {
	m := exampleModel(t)
	var obj, el string
	var view archixml.Object
	for _, v := range m.Views() {
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); ok && c.Class() != "Junction" && obj == "" {
				obj, el, view = d.ID(), c.ID(), v
			}
		}
	}
	grouping := `{"op":"create_element","type":"Grouping","name":"Planned grouping","ref_id":"gr"}`
	put := fmt.Sprintf(`{"op":"add_to_view","view_id":%q,"element_id":"gr","x":2000,"y":2000,"width":400,"height":300,"ref_id":"gd"}`, view.ID())
	add := Check([]byte(plan3(grouping, `{"op":"create_view","name":"Other","ref_id":"v2"}`,
		`{"op":"add_to_view","view_id":"v2","element_id":"gr","x":20,"y":20,"width":400,"height":300,"ref_id":"gd"}`,
		fmt.Sprintf(`{"op":"add_to_view","view_id":"v2","element_id":%q,"parent_id":"gd"}`, el))), exampleModel(t), Options{})
	move := Check([]byte(`{"schema_version":"3.1","status":"ready","summary":"s","actions":[`+grouping+","+put+","+
		fmt.Sprintf(`{"op":"move_view_object","object_id":%q,"parent_id":"gd","x":20,"y":40}`, obj)+`]}`), m, Options{})
	nesting := func(o *Outcome) []string {
		var out []string
		for _, f := range o.Warnings() {
			if f.Code == ArchiNesting {
				out = append(out, f.Message)
			}
		}
		return out
	}
	if add.Verdict != VerdictValid || move.Verdict != VerdictValid {
		t.Fatalf("add %s %v, move %s %v", add.Verdict, add.Errors(), move.Verdict, move.Errors())
	}
	a, mv := nesting(add), nesting(move)
	if len(a) != 1 || len(mv) != 1 || a[0] != mv[0] {
		t.Errorf("the add into the grouping is warned %q, the move %q", a, mv)
	}
}
