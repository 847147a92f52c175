package ledger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// drawnOnViews are the entries of an Effect that only views hold: an op whose Effect lists one
// changes what a view draws.
var drawnOnViews = map[string]bool{"child": true, "sourceConnection": true, "bendpoint": true, "bounds": true,
	"content": true, "feature": true, "x": true, "y": true, "width": true, "height": true, "fillColor": true,
	"lineColor": true, "fontColor": true, "font": true, "textAlignment": true, "textPosition": true, "alpha": true,
	"lineWidth": true, "connectionRouterType": true, "archimateElement": true}

func touchesViews(op schemas.Op) bool {
	for _, list := range [][]string{op.Effect.Attrs, op.Effect.Nodes, op.Effect.Texts} {
		for _, v := range list {
			if drawnOnViews[v] {
				return true
			}
		}
	}
	return false
}

var (
	viewBoxOf = regexp.MustCompile(`viewBox="([^"]*)"`)
	dataView  = regexp.MustCompile(`data-view="([^"]*)"`)
)

// Every entry of every op's Effect says how a change of it shows on a view (schemas.Pictured).
func TestOpTable_EveryEffectPictured(t *testing.T) {
	for _, op := range schemas.Ops {
		for _, list := range [][]string{op.Effect.Attrs, op.Effect.Nodes, op.Effect.Texts} {
			for _, v := range list {
				if _, ok := schemas.Pictured[v]; !ok {
					t.Errorf("%s: its Effect lists %q, which schemas.Pictured does not picture (nor say no view draws)", op.Name, v)
				}
			}
		}
	}
}

// The op walk of pictures: every sample of every op, on the example model and the corpus's, is
// checked as a preview is, and every view whose drawing it changes is pictured, before and after in
// one frame, with what changed outlined and a legend line for it; every op whose Effect touches
// views gets a picture of its own action in some sample.
func TestOpTable_EveryViewChangePictured(t *testing.T) {
	files := []string{filepath.Join("..", "..", "testdata", "models", "example.archimate")}
	for _, f := range testenv.CorpusModelsIfSet(t) {
		if strings.Contains(f, "Archisurance.archimate") && !strings.Contains(f, "2.6") {
			files = append(files, f)
		}
	}
	pictured := map[schemas.OpName]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base, err := archixml.Load(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range opsamples.For(base) {
			t.Run(filepath.Base(f)+"/"+s.Name(), func(t *testing.T) {
				m, err := archixml.Load(data)
				if err != nil {
					t.Fatal(err)
				}
				before := drawAll(t, m)
				var after map[string][]byte
				pics := newPictures("p")
				o := plans.CheckThen(s.Plan(), m, plans.Options{}, func(o *plans.Outcome) {
					pics.changedViews(o, m)
					pics.draw(m, true)
					after = drawAll(t, m)
				})
				pics.draw(m, false)
				if o.Verdict != plans.VerdictValid {
					t.Fatalf("%s: %v", o.Verdict, o.Errors())
				}
				out, section := pics.files()
				shown := map[string][2][]byte{} // view -> before, after
				for name, svg := range out {
					if !render.Drawn(svg) {
						t.Errorf("%s: %s holds more than render.Drawn allows: publish would leave it out", s.Name(), name)
					}
					if strings.Contains(name, "whole") {
						continue
					}
					v := string(dataView.FindSubmatch(svg)[1])
					pair := shown[v]
					pair[boolIndex(strings.Contains(name, "after"))] = svg
					shown[v] = pair
				}
				for id := range union(before, after) {
					if bytes.Equal(before[id], after[id]) {
						continue
					}
					pair, ok := shown[id]
					if !ok {
						t.Errorf("view %s is drawn otherwise after the plan, but not pictured:\n%s", id, section)
						continue
					}
					if pair[0] != nil && pair[1] != nil {
						if vb0, vb1 := viewBoxOf.FindSubmatch(pair[0])[1], viewBoxOf.FindSubmatch(pair[1])[1]; !bytes.Equal(vb0, vb1) {
							t.Errorf("view %s: before and after are framed differently: %s and %s", id, vb0, vb1)
						}
						if !bytes.Contains(pair[0], []byte("data-mark=")) && !bytes.Contains(pair[1], []byte("data-mark=")) {
							t.Errorf("view %s: nothing is outlined:\n%s", id, section)
						}
					}
				}
				if strings.Contains(section, fmt.Sprintf("(action %d)", s.Index())) || strings.Contains(section, fmt.Sprintf(", %d)", s.Index())) {
					pictured[s.Op] = true
				}
				for _, c := range o.Views {
					if c.Action == s.Index() && c.Object != "" && !strings.Contains(section, fmt.Sprintf("action %d", c.Action)) &&
						!strings.Contains(section, fmt.Sprintf(", %d)", c.Action)) && len(shown) > 0 && !bytes.Equal(before[c.View], after[c.View]) {
						t.Errorf("the change %+v has no legend line:\n%s", c, section)
					}
				}
			})
		}
	}
	for _, op := range schemas.Ops {
		if touchesViews(op) && !pictured[op.Name] {
			t.Errorf("%s changes what views draw (its Effect says so), but no sample of it gets a picture of its action", op.Name)
		}
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func union(a, b map[string][]byte) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// drawAll draws every view of a model whole.
func drawAll(t *testing.T, m *archixml.Model) map[string][]byte {
	out := map[string][]byte{}
	for _, v := range m.Views() {
		svg, err := render.View(m, v.ID())
		if err != nil {
			t.Fatal(err)
		}
		out[v.ID()] = svg
	}
	return out
}
