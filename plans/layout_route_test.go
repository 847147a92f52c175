package plans

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/archixml/route"
	"github.com/archiplan/archiplan/internal/testenv"
)

// measureLayout is the quality of the views not routed Manhattan (whose bendpoints are not drawn),
// summed, as the preview measures a view.
func measureLayout(t *testing.T, m *archixml.Model, views []string) (l route.Quality) {
	t.Helper()
	for _, v := range views {
		g, err := render.Measure(m, v)
		must(t, err)
		if !g.Manhattan {
			l = l.Add(route.Of(g))
		}
	}
	return l
}

// issues 33 and 34: layout_view draws no line through a box it did not connect, and leaves no
// overlap. On every view of every corpus model (and the example), a plan laying the view out
// leaves no connection drawn through a box that is neither of its ends nor holds one, no two
// sibling boxes overlapping (nested ones included) and no box sticking out of its parent; the
// measures as drawn, of the layout alone and after the routing are logged per model, crossings
// among them. Views whose router is Manhattan (bendpoints not drawn) are left out. Applying the plan twice changes nothing the second time.
func TestLayoutView_NoLineThroughABox(t *testing.T) {
	files := append([]string{filepath.Join("..", "testdata", "models", "example.archimate")}, testenv.CorpusModelsIfSet(t)...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			must(t, err)
			m, err := archixml.Load(data)
			if err != nil {
				t.Skipf("not loaded here: %v", err)
			}
			var views []string
			var actions []map[string]string
			for _, v := range m.Views() {
				if v.Class() == "ArchimateDiagramModel" {
					views = append(views, v.ID())
					actions = append(actions, map[string]string{"op": "layout_view", "view_id": v.ID()})
				}
			}
			if len(views) == 0 {
				t.Skip("no ArchiMate view")
			}
			drawn := measureLayout(t, m, views) // the views as the model draws them, before layout_view
			laid, err := archixml.Load(data)
			must(t, err)
			for _, v := range views {
				_, err := laid.LayoutView(v)
				must(t, err)
			}
			alone := measureLayout(t, laid, views)
			raw, _ := json.Marshal(map[string]any{"schema_version": "3.0", "status": "ready", "summary": "lay out", "actions": actions})
			o, _, err := Apply(raw, m, Options{})
			must(t, err)
			for _, fd := range o.Errors() {
				if fd.Code != NoOp {
					t.Fatalf("%s: %s", fd.Code, fd.Message)
				}
			}
			routed := measureLayout(t, m, views)
			after := routed.Through
			t.Logf("%s: %d view(s); as drawn: %v; laid out alone: %v; laid out and routed: %v",
				filepath.Base(f), len(views), drawn, alone, routed)
			if routed.Overlaps != 0 || routed.Outside != 0 {
				t.Errorf("laid out: %d pair(s) of sibling boxes overlap, %d box(es) stick out of their parent", routed.Overlaps, routed.Outside)
			}
			if after > 0 {
				for _, v := range views {
					g, _ := render.Measure(m, v)
					if !g.Manhattan {
						for _, c := range g.Crossings() {
							t.Errorf("view %s: connection %s is drawn through %s", v, c.Connection, c.Object)
						}
					}
				}
			}
			if after != 0 {
				return // a view routed in vain is routed again: no NOOP to expect
			}
			noops := 0
			o2 := Check(raw, m, Options{})
			for _, fd := range o2.Findings {
				if fd.Code == NoOp {
					noops++
				}
			}
			if noops != len(views) {
				t.Errorf("laid out again: %d NOOP(s) for %d view(s), want one each: %v", noops, len(views), codes(o2.Findings))
			}
		})
	}
}
