package archixml

import "testing"

// The layered layout's options: grid puts the objects in rows in document order, whatever
// connects them; left to right puts the layers in columns as top to bottom puts them in rows.
func TestLayoutView_GridAndLeftToRight(t *testing.T) {
	for _, c := range []struct {
		name string
		opts LayoutOptions
		same func(a, b Bounds) bool // two objects of one rank
	}{
		{"grid", LayoutOptions{Grid: true}, func(a, b Bounds) bool { return a.Y == b.Y }},
		{"layers", LayoutOptions{}, func(a, b Bounds) bool { return a.Y == b.Y }},
		{"left to right", LayoutOptions{LeftToRight: true}, func(a, b Bounds) bool { return a.X == b.X }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Example()
			v := m.Views()[0]
			_, err := m.LayoutViewWith(v.ID(), c.opts)
			must(t, err)
			var boxes []Bounds
			for _, o := range v.Children() {
				b, _ := o.Bounds()
				boxes = append(boxes, sized(b))
			}
			ranks := 1
			for i := 1; i < len(boxes); i++ {
				if overlaps(boxes[i-1], boxes[i]) {
					t.Fatalf("%v and %v overlap", boxes[i-1], boxes[i])
				}
				if !c.same(boxes[0], boxes[i]) {
					ranks++
				}
				if c.opts.Grid && !(boxes[i].Y == boxes[i-1].Y && boxes[i].X > boxes[i-1].X || boxes[i].Y > boxes[i-1].Y) {
					t.Errorf("grid: %v does not follow %v, the one before it", boxes[i], boxes[i-1])
				}
			}
			if !c.opts.Grid && ranks == 1 {
				t.Errorf("one rank for the example's four layers: %v", boxes)
			}
		})
	}
}
