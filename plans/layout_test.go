package plans

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// neighbourhood is the element ids within depth relationships of id.
func neighbourhood(m *archixml.Model, id string, depth int) map[string]bool {
	seen := map[string]bool{id: true}
	frontier := []string{id}
	for d := 0; d < depth; d++ {
		var next []string
		for _, x := range frontier {
			for _, rel := range m.RelationshipsOf(x) {
				for _, o := range []string{rel.SourceID(), rel.TargetID()} {
					if ob, ok := m.Object(o); ok && ob.Kind() == archixml.KindElement && !seen[o] {
						seen[o] = true
						next = append(next, o)
					}
				}
			}
		}
		frontier = next
	}
	return seen
}

func sizedBounds(o archixml.Object) archixml.Bounds {
	b, _ := o.Bounds()
	if b.Width < 0 {
		b.Width = 120
	}
	if b.Height < 0 {
		b.Height = 55
	}
	return b
}

// On every corpus model: a view made from an element and its neighbours to depth 2 shows them
// all, with no two objects overlapping and the layers in ArchiMate's order from top to bottom; an
// element added without bounds lands beside an object it is related to, on nothing; and Archi's
// EMF reads the result as written.
func TestLayout_CorpusSelection(t *testing.T) {
	dir := t.TempDir()
	var written []string
	for _, f := range corpusAndExample(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			must(t, err)
			m, err := archixml.Load(in)
			must(t, err)
			var seed archixml.Object
			var want map[string]bool
			for _, el := range m.Elements() {
				if len(m.RelationshipsOf(el.ID())) == 0 {
					continue
				}
				if n := neighbourhood(m, el.ID(), 2); len(n) > 1 && len(n) <= 300 {
					seed, want = el, n
					break
				}
			}
			if !seed.Valid() {
				t.Skip("no element with a small neighbourhood")
			}
			j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
			raw := []byte(plan3(
				`{"op":"create_view","name":"Around it","ref_id":"v","select_ids":[`+j(seed.ID())+`],"depth":2}`,
				`{"op":"create_element","type":"Location","name":"Placed beside","ref_id":"p"}`,
				`{"op":"create_relationship","source_id":"p","target_id":`+j(seed.ID())+`,"relationship_type":"Association"}`,
				`{"op":"add_to_view","view_id":"v","element_id":"p","ref_id":"po"}`,
			))
			o, _, err := Apply(raw, m, Options{})
			if err != nil {
				t.Fatalf("%v %v", err, o.Errors())
			}
			view, _ := m.Object(o.Results[0].Created[0])
			shown := map[string]bool{}
			tops := view.Children()
			for _, d := range tops {
				if c, ok := d.Concept(); ok {
					shown[c.ID()] = true
				}
			}
			for id := range want {
				if !shown[id] {
					t.Errorf("%s is not on the view", id)
				}
			}
			for a := range tops {
				for b := a + 1; b < len(tops); b++ {
					ba, bb := sizedBounds(tops[a]), sizedBounds(tops[b])
					if ba.X < bb.X+bb.Width && bb.X < ba.X+ba.Width && ba.Y < bb.Y+bb.Height && bb.Y < ba.Y+ba.Height {
						t.Fatalf("%s %v and %s %v overlap", tops[a].ID(), ba, tops[b].ID(), bb)
					}
				}
			}
			// layers: every object of a higher layer lies above every object of a lower one
			for _, a := range tops[:len(tops)-1] { // the last is the one placed beside
				for _, b := range tops[:len(tops)-1] {
					ca, _ := a.Concept()
					cb, _ := b.Concept()
					if archixml.LayerRank(ca.Class()) < archixml.LayerRank(cb.Class()) && sizedBounds(a).Y >= sizedBounds(b).Y {
						t.Fatalf("%s (%s) is not above %s (%s)", ca.Name(), ca.Class(), cb.Name(), cb.Class())
					}
				}
			}
			// the element added without bounds sits beside the seed's object
			placed, _ := m.Object(o.Results[3].Created[0])
			pb := sizedBounds(placed)
			var seedObj archixml.Object
			for _, d := range tops {
				if c, ok := d.Concept(); ok && c.ID() == seed.ID() {
					seedObj = d
				}
			}
			sb := sizedBounds(seedObj)
			beside := (pb.Y == sb.Y && (pb.X == sb.X+sb.Width+24 || pb.X+pb.Width+24 == sb.X)) ||
				(pb.X == sb.X && (pb.Y == sb.Y+sb.Height+24 || pb.Y+pb.Height+24 == sb.Y))
			near := abs(pb.X-sb.X) <= 12*(pb.Width+24) && abs(pb.Y-sb.Y) <= 12*(pb.Height+24)
			if !beside && !near {
				t.Errorf("placed at %v, not beside the seed at %v", pb, sb)
			}
			out, err := m.Save()
			must(t, err)
			name := filepath.Join(dir, filepath.Base(f))
			must(t, os.WriteFile(name, out, 0o644))
			written = append(written, name)
		})
	}
	archiEMF(t, written)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// layout_view on the example's view: layers from the top, nothing overlapping, deterministic,
// and undone exactly.
func TestLayout_View(t *testing.T) {
	m := exampleModel(t)
	raw := []byte(ids(t, m, plan3(`{"op":"layout_view","view_id":"{View}"}`)))
	o, inv, err := Apply(raw, m, Options{})
	if err != nil {
		t.Fatalf("%v %v", err, o.Findings)
	}
	v, _ := m.Object(m.Views()[0].ID())
	y := map[string]int{}
	for _, d := range v.Children() {
		c, _ := d.Concept()
		y[c.Name()] = sizedBounds(d).Y
	}
	if !(y["Bike Rental"] < y["Booking Service"] && y["Booking Service"] < y["Booking Server"]) {
		t.Fatalf("layers out of order: %v", y)
	}
	first, _ := m.Save()
	m2 := exampleModel(t)
	if _, _, err := Apply(raw, m2, Options{}); err != nil {
		t.Fatal(err)
	}
	if second, _ := m2.Save(); string(second) != string(first) {
		t.Fatal("the same layout twice gave two files")
	}
	must(t, Revert(m, inv))
	if back, _ := m.Save(); string(back) != string(exampleBytes(t)) {
		t.Fatal("revert did not restore the model")
	}
}
