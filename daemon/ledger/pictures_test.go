package ledger_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

var viewBoxRE = regexp.MustCompile(`viewBox="(-?\d+) (-?\d+) (\d+) (\d+)"`)

func viewBoxArea(t *testing.T, svg []byte) int {
	t.Helper()
	m := viewBoxRE.FindSubmatch(svg)
	if m == nil {
		t.Fatalf("no viewBox in %.80q", svg)
	}
	w, _ := strconv.Atoi(string(m[3]))
	h, _ := strconv.Atoi(string(m[4]))
	return w * h
}

// A preview shows only the views whose picture changes, the one the plan is about first, each
// cropped to the change, with the whole view beside it.
func TestPreview_Pictures(t *testing.T) {
	_, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	els := lt.Elements(t, w[0])
	dir := filepath.Join(w[0].Root, "plans")
	read := func(f string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	// a property shows on no picture: the view looks the same before and after, so none is drawn
	lt.Preview(t, l, "prop", []byte(`{"schema_version":"2.0","status":"ready","summary":"a property","actions":[`+
		`{"op":"set_property","element_id":"`+els[0]+`","key":"k","value":"v"}]}`))
	if md := string(read(inbox.PreviewFile("prop"))); strings.Contains(md, "## Views") || !strings.Contains(md, "k") {
		t.Errorf("a change no picture shows got pictures:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, inbox.PictureFile("prop", 1, true))); err == nil {
		t.Error("pictures written for a change no picture shows")
	}

	// a rename (shown on the main view, found first) and a new view the plan names: the new view
	// comes first
	lt.Preview(t, l, "two", []byte(`{"schema_version":"2.0","status":"ready","summary":"two views","actions":[`+
		`{"op":"rename_element","element_id":"`+els[0]+`","new_name":"Renamed"},`+
		`{"op":"create_view","name":"Planned view","ref_id":"v"},`+
		`{"op":"add_to_view","view_id":"v","element_id":"`+els[1]+`"}]}`))
	md := string(read(inbox.PreviewFile("two")))
	planned, main := strings.Index(md, "### Planned view"), strings.Index(md, "### Main view")
	if planned < 0 || main < 0 || planned > main {
		t.Fatalf("the view the plan names is not first:\n%s", md)
	}
	// the main view: cropped to the renamed object, smaller than the whole view, which is linked
	cropped, whole := read(inbox.PictureFile("two", 2, true)), read(inbox.WholePictureFile("two", 2))
	if !strings.Contains(string(cropped), "Renamed") || viewBoxArea(t, cropped) >= viewBoxArea(t, whole) {
		t.Errorf("the cropped picture (%d px²) is not a part of the whole view (%d px²) around the change",
			viewBoxArea(t, cropped), viewBoxArea(t, whole))
	}
	if !strings.Contains(md, "["+inbox.WholePictureFile("two", 2)+"]") {
		t.Errorf("no link to the whole view:\n%s", md)
	}
	if strings.Contains(md, "](") {
		t.Error("an inline link in the preview")
	}
}

// A plan that renames one object and restyles and moves others pictures all three, in one frame
// before and after, each outlined and named in the legend (issue 33: the pictures showed the
// rename only).
func TestPreview_PicturesOfEveryChange(t *testing.T) {
	_, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	m, err := archixml.Load(lt.Model(t, w[0]))
	if err != nil {
		t.Fatal(err)
	}
	var objs []archixml.Object
	for _, v := range m.Views() {
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); ok && c.Kind() == archixml.KindElement && len(objs) < 3 {
				objs = append(objs, d)
			}
		}
	}
	renamed, _ := objs[0].Concept()
	lt.Preview(t, l, "mixed", []byte(fmt.Sprintf(`{"schema_version":"3.1","status":"ready","summary":"mixed","actions":[`+
		`{"op":"rename_element","element_id":%q,"new_name":"Renamed"},`+
		`{"op":"style_view_object","object_id":%q,"fill_color":"#ffcc00"},`+
		`{"op":"move_view_object","object_id":%q,"x":900,"y":400}]}`, renamed.ID(), objs[1].ID(), objs[2].ID())))
	dir := filepath.Join(w[0].Root, "plans")
	md, err := os.ReadFile(filepath.Join(dir, inbox.PreviewFile("mixed")))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, inbox.PictureFile("mixed", 1, false)))
	after, _ := os.ReadFile(filepath.Join(dir, inbox.PictureFile("mixed", 1, true)))
	if vb0, vb1 := viewBoxRE.Find(before), viewBoxRE.Find(after); vb0 == nil || string(vb0) != string(vb1) {
		t.Errorf("before and after are framed differently: %s, %s", vb0, vb1)
	}
	for _, o := range objs {
		for side, svg := range map[string][]byte{"before": before, "after": after} {
			if !regexp.MustCompile(`data-id="` + o.ID() + `"[^>]*data-mark="`).Match(svg) {
				t.Errorf("%s is not outlined %s", o.ID(), side)
			}
		}
	}
	for _, want := range []string{"renamed (action 0)", "restyled (action 1)", "moved (action 2)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the legend does not say %q:\n%s", want, md)
		}
	}
}

// A preview names the views it does not draw: a person reads which views change beyond the
// pictures, not only how many.
func TestPreview_PicturesNameTheViewsNotDrawn(t *testing.T) {
	_, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	els := lt.Elements(t, w[0])
	actions := []string{`{"op":"rename_element","element_id":"` + els[0] + `","new_name":"Renamed"}`}
	for k := 1; k <= ledger.MaxPictures+2; k++ {
		actions = append(actions, fmt.Sprintf(`{"op":"create_view","name":"Extra %d","ref_id":"v%d"}`, k, k),
			fmt.Sprintf(`{"op":"add_to_view","view_id":"v%d","element_id":"%s"}`, k, els[1]))
	}
	lt.Preview(t, l, "many", []byte(`{"schema_version":"2.0","status":"ready","summary":"many views","actions":[`+
		strings.Join(actions, ",")+`]}`))
	data, err := os.ReadFile(filepath.Join(w[0].Root, "plans", inbox.PreviewFile("many")))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	_, sentence, ok := strings.Cut(md, "not drawn here: ")
	if !ok {
		t.Fatalf("no sentence names the views not drawn:\n%s", md)
	}
	sentence, _, _ = strings.Cut(sentence, "\n")
	notDrawn := 0
	for _, v := range append([]string{"Main view"}, func() []string {
		var names []string
		for k := 1; k <= ledger.MaxPictures+2; k++ {
			names = append(names, fmt.Sprintf("Extra %d", k))
		}
		return names
	}()...) {
		if strings.Contains(md, "### "+v+"\n") {
			continue
		}
		notDrawn++
		if !strings.Contains(sentence, `"`+v+`"`) {
			t.Errorf("%q is neither drawn nor named: %s", v, sentence)
		}
	}
	if notDrawn == 0 {
		t.Fatalf("every view was drawn:\n%s", md)
	}
}
