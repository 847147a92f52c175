package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/testenv"
)

// biggestCorpusView is the corpus model whose view covers the most area, that view, and the
// diagram object showing an element nearest its middle.
func biggestCorpusView(t *testing.T) (data []byte, view, near archixml.Object) {
	t.Helper()
	files := testenv.CorpusModels(t)
	best := -1
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		m, err := archixml.Load(raw)
		if err != nil {
			continue
		}
		for _, v := range m.Views() {
			x0, y0, x1, y1 := 1<<30, 1<<30, -(1 << 30), -(1 << 30)
			for _, o := range v.Children() {
				if b, ok := o.Bounds(); ok {
					x0, y0, x1, y1 = min(x0, b.X), min(y0, b.Y), max(x1, b.X+max(b.Width, 120)), max(y1, b.Y+max(b.Height, 55))
				}
			}
			if area := (x1 - x0) * (y1 - y0); x1 > x0 && area > best {
				best, data, view = area, raw, v
			}
		}
	}
	if best < 0 {
		t.Skip("no corpus model")
	}
	m, _ := archixml.Load(data)
	view, _ = m.Object(view.ID())
	var cx, cy float64
	var tops []archixml.Object
	for _, o := range view.Children() {
		if b, ok := o.Bounds(); ok {
			cx, cy = cx+float64(b.X), cy+float64(b.Y)
			tops = append(tops, o)
		}
	}
	cx, cy = cx/float64(len(tops)), cy/float64(len(tops))
	bestD := 1e18
	for _, o := range tops {
		if _, ok := o.Concept(); !ok {
			continue
		}
		b, _ := o.Bounds()
		if d := (float64(b.X)-cx)*(float64(b.X)-cx) + (float64(b.Y)-cy)*(float64(b.Y)-cy); d < bestD {
			bestD, near = d, o
		}
	}
	return data, view, near
}

// A preview of a plan on the biggest corpus view shows the change legibly at the page's size:
// the picture cropped to it, drawn 1:1 (a 12 px label stays 12 px), the changed object's outline
// on screen; and no pair of pictures that are the same before and after.
func TestBrowser_PicturesLegible(t *testing.T) {
	data, view, near := biggestCorpusView(t)
	b := newBrowser(t)
	e := newEnvWith(t, data)
	el, _ := near.Concept()
	nb, _ := near.Bounds()
	// a new element beside the one in the middle, and a property on that one (which shows on no
	// picture: views that only show it must not be drawn)
	plan := fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"add beside %s","actions":[
{"op":"create_element","type":"Business Actor","name":"Legible Newcomer","ref_id":"n"},
{"op":"add_to_view","view_id":%q,"element_id":"n","x":%d,"y":%d},
{"op":"set_property","element_id":%q,"key":"checked","value":"yes"}]}`, "x", view.ID(), nb.X, nb.Y+max(nb.Height, 55)+20, el.ID())
	e.drop("legible.json", plan)
	e.previewed("legible")
	md := e.read("legible.preview.md")
	i := strings.Index(md, "\n### ")
	if i < 0 {
		t.Fatalf("no pictures in the preview:\n%s", md)
	}
	if title := strings.SplitN(md[i+5:], "\n", 2)[0]; !strings.Contains(title, strings.Fields(view.Name() + " x")[0]) {
		t.Errorf("the first view drawn is %q, not the plan's %q", title, view.Name())
	}
	b.open(t, e, "/plan/legible")
	b.do(t, chromedp.WaitVisible(chromedp.CSS(".viewer img")))
	waitFor(t, "pictures loaded", func() bool {
		return b.eval(t, `Array.from(document.querySelectorAll(".viewer img")).every(i => i.complete && i.naturalWidth > 0 && i.dataset.zoom)`) == true
	})
	// every shown pair differs
	pairs := b.eval(t, `Array.from(document.querySelectorAll(".preview img")).map(i => i.getAttribute("src"))`)
	srcs, _ := pairs.([]any)
	pics := map[string][]byte{}
	c := e.client()
	for _, s := range srcs {
		res, err := c.Get(e.root + s.(string)) // the page's links hold the session's path already
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", s, res.Status)
		}
		pics[s.(string)] = body
	}
	for src, after := range pics {
		if strings.HasSuffix(src, ".after.svg") {
			if before, ok := pics[strings.TrimSuffix(src, ".after.svg")+".before.svg"]; ok && bytes.Equal(before, after) {
				t.Errorf("%s is shown though it is the same before and after", src)
			}
		}
	}
	if len(srcs) == 0 {
		t.Fatal("no picture on the page")
	}
	// the first view shown is the plan's, drawn 1:1 and cropped: the new object is on screen
	first := `document.querySelectorAll(".preview .viewer")[1]` // the after picture of the first view
	b.eval(t, first+`.scrollIntoView({block: "center"})`)
	raw := b.eval(t, `(() => { const v = `+first+`; const i = v.querySelector("img"); const r = i.getBoundingClientRect();
		const p = v.querySelector(".pane").getBoundingClientRect();
		return JSON.stringify({scale: r.width / i.naturalWidth, w: i.naturalWidth, h: i.naturalHeight, pw: p.width, ph: p.height}); })()`)
	var g struct{ Scale, W, H, Pw, Ph float64 }
	if err := json.Unmarshal([]byte(raw.(string)), &g); err != nil {
		t.Fatal(err)
	}
	if g.Scale < 0.99 {
		t.Errorf("the picture is drawn at %.2f of its size: labels shrink below 12 px", g.Scale)
	}
	if g.W > 4*g.Pw || g.H > 4*g.Ph {
		t.Errorf("the picture (%gx%g) is not cropped to the change (pane %gx%g)", g.W, g.H, g.Pw, g.Ph)
	}
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	// the changed object's outline (#e8590c) is on screen
	marked := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if near8(r, 0xe8) && near8(g, 0x59) && near8(bb, 0x0c) {
				marked++
			}
		}
	}
	if marked < 100 {
		t.Errorf("the changed object's outline covers %d pixels of the screen", marked)
	}
	b.shot(t, "review-pictures.png", false)
}

func near8(v uint32, want int) bool {
	d := int(v>>8) - want
	return d > -40 && d < 40
}

// issue 38: on the review page each view's pictures read in order, each under its own label:
// "before:" above the before picture, above "after:", above the after picture.
func TestBrowser_PicturesUnderLabels(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("p.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("p")
	b.open(t, e, "/plan/p")
	waitFor(t, "pictures loaded", func() bool {
		return b.eval(t, `(() => { const s = [...document.querySelectorAll(".viewer img")];
			return s.length >= 2 && s.every(i => i.complete && i.naturalWidth > 0 && i.dataset.zoom); })()`) == true
	})
	if got := b.eval(t, ledgertest.PicturesUnderLabels+`(document.querySelector(".preview"))`); got != "" {
		t.Errorf("the page does not show each picture under its label: %v", got)
	}
}
