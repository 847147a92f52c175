package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
)

// op is one edit applied to a copy of a model, and what the diff must say about it.
type op struct {
	name  string
	apply func(t *testing.T, m *archixml.Model) want
}

// want is the exact set of changes expected: "op kind id" for top-level changes, and per view
// "op id" for its drawing.
type want struct {
	changes []string
	field   string // a field the only change must name
}

// originals holds the unedited model each edited one was loaded from.
var originals = map[*archixml.Model]*archixml.Model{}

func before(m *archixml.Model) *archixml.Model { return originals[m] }

func pick(m *archixml.Model) (archixml.Object, bool) {
	for _, e := range m.Elements() {
		if e.Class() != "Junction" && len(m.ReferencesTo(e.ID())) > 0 {
			return e, true
		}
	}
	if es := m.Elements(); len(es) > 0 {
		return es[0], true
	}
	return archixml.Object{}, false
}

// mk fails the test on an error and returns the id made.
func mk(t *testing.T) func(string, error) string {
	return func(v string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

var ops = []op{
	{"rename", func(t *testing.T, m *archixml.Model) want {
		e, _ := pick(m)
		if err := m.Rename(e.ID(), e.Name()+" (renamed)"); err != nil {
			t.Fatal(err)
		}
		return want{changes: []string{"changed element " + e.ID()}, field: "name"}
	}},
	{"property", func(t *testing.T, m *archixml.Model) want {
		e, _ := pick(m)
		if err := m.SetProperty(e.ID(), "diff-test", "a & <b>"); err != nil {
			t.Fatal(err)
		}
		return want{changes: []string{"changed element " + e.ID()}, field: "property:diff-test"}
	}},
	{"documentation", func(t *testing.T, m *archixml.Model) want {
		e, _ := pick(m)
		if err := m.SetDocumentation(e.ID(), "Documented by the diff test."); err != nil {
			t.Fatal(err)
		}
		return want{changes: []string{"changed element " + e.ID()}, field: "documentation"}
	}},
	{"create element", func(t *testing.T, m *archixml.Model) want {
		id := mk(t)(m.CreateElement("Business Actor", "New Actor", ""))
		return want{changes: []string{"added element " + id}}
	}},
	{"create relationship", func(t *testing.T, m *archixml.Model) want {
		a := mk(t)(m.CreateElement("Business Actor", "A", ""))
		b := mk(t)(m.CreateElement("Business Role", "B", ""))
		r := mk(t)(m.CreateRelationship("Assignment", a, b, "plays"))
		return want{changes: []string{"added element " + a, "added element " + b, "added relationship " + r}}
	}},
	{"create view", func(t *testing.T, m *archixml.Model) want {
		id := mk(t)(m.CreateView("New view", "", ""))
		return want{changes: []string{"added view " + id}}
	}},
	{"move to folder", func(t *testing.T, m *archixml.Model) want {
		e, _ := pick(m)
		top, _ := m.TopFolder(e.TopFolderType())
		if _, err := m.MoveToFolder(e.ID(), top.Name()+"/Moved by the diff test"); err != nil {
			t.Fatal(err)
		}
		f := mk(t)(m.EnsureFolder(top.Name() + "/Moved by the diff test"))
		return want{changes: []string{"added folder " + f, "changed element " + e.ID()}}
	}},
	{"delete element", func(t *testing.T, m *archixml.Model) want {
		e, _ := pick(m)
		del, err := m.DeleteElement(e.ID())
		if err != nil {
			t.Fatal(err)
		}
		w := want{changes: []string{"removed element " + e.ID()}}
		for _, r := range del.Relationships {
			w.changes = append(w.changes, "removed relationship "+r)
		}
		views := map[string]bool{}
		for _, id := range append(del.DiagramObjects, del.Connections...) {
			if o, ok := before(m).Object(id); ok {
				if v, ok := o.View(); ok && !views[v.ID()] {
					views[v.ID()] = true
					w.changes = append(w.changes, "changed view "+v.ID())
				}
			}
		}
		return w
	}},
	{"add to view", func(t *testing.T, m *archixml.Model) want {
		var v archixml.Object
		for _, x := range m.Views() {
			if x.Class() == "ArchimateDiagramModel" {
				v = x
				break
			}
		}
		if !v.Valid() {
			return want{}
		}
		e, _ := pick(m)
		_, conns, err := m.AddToView(v.ID(), e.ID(), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = conns
		return want{changes: []string{"changed view " + v.ID()}}
	}},
}

func summary(r *Result) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, fmt.Sprintf("%s %s %s", c.Op, c.Kind, c.ID))
	}
	slices.Sort(out)
	return out
}

func testModels(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	data, err := archixml.Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	out["example"] = data
	for _, f := range testenv.CorpusModelsIfSet(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// Every model against itself with one edit applied: the diff names exactly that edit, on the
// edited model in memory and on it saved and read back.
func TestModels_SingleOps(t *testing.T) {
	for name, data := range testModels(t) {
		before, err := archixml.Load(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := pick(before); !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if r := Models(before, before); !r.Empty() || len(r.Views()) != 0 {
				t.Fatalf("a model against itself: %v", r)
			}
			for _, o := range ops {
				t.Run(o.name, func(t *testing.T) {
					after, _ := archixml.Load(data)
					originals[after] = before
					after.SetIDSeed("diff-test")
					w := o.apply(t, after)
					if w.changes == nil {
						t.Skip("no view to edit")
					}
					saved, err := after.Save()
					if err != nil {
						t.Fatal(err)
					}
					reloaded, err := archixml.Load(saved)
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range []*archixml.Model{after, reloaded} {
						r := Models(before, a)
						got := summary(r)
						slices.Sort(w.changes)
						if !slices.Equal(got, w.changes) {
							t.Fatalf("got\n  %s\nwant\n  %s\nin words:\n%s", strings.Join(got, "\n  "), strings.Join(w.changes, "\n  "), r)
						}
						if w.field != "" {
							if f := r.Changes[0].Fields; len(f) != 1 || f[0].Name != w.field {
								t.Errorf("fields %v, want only %s", f, w.field)
							}
						}
						checkViews(t, before, a, r, o.name)
					}
				})
			}
		})
	}
}

// checkViews holds Views to what the edit did: the views whose XML changed, plus those showing a
// renamed concept.
func checkViews(t *testing.T, before, after *archixml.Model, r *Result, opName string) {
	t.Helper()
	var want []string
	for _, v := range after.Views() {
		bv, ok := before.Object(v.ID())
		changed := !ok || bv.XML() != v.XML()
		if opName == "rename" {
			for _, c := range r.Changes {
				for _, ref := range after.ReferencesTo(c.ID) {
					if rv, _ := ref.View(); rv.ID() == v.ID() {
						changed = true
					}
				}
			}
		}
		if changed {
			want = append(want, v.ID())
		}
	}
	if !slices.Equal(r.Views(), want) && !(len(want) == 0 && len(r.Views()) == 0) {
		t.Errorf("Views() = %v, want %v", r.Views(), want)
	}
	for _, id := range r.Views() {
		if len(r.OnView(id)) == 0 {
			if v, _ := after.Object(id); len(v.DiagramObjects()) > 0 {
				t.Errorf("view %s changed, OnView names nothing", id)
			}
		}
	}
}

// The drawing's changes: an object added to a view and its connections, one moved and restyled.
func TestModels_Drawing(t *testing.T) {
	data, _ := archixml.Example().Save()
	before, _ := archixml.Load(data)
	after, _ := archixml.Load(data)
	v := after.Views()[0]
	e := mk(t)(after.CreateElement("Goal", "Faster rentals", ""))
	mk(t)(after.CreateRelationship("Association", after.Elements()[0].ID(), e, ""))
	obj, conns, err := after.AddToView(v.ID(), e, &archixml.Bounds{X: 600, Y: 400, Width: 120, Height: 55})
	if err != nil {
		t.Fatal(err)
	}
	first := v.DiagramObjects()[0]
	b, _ := first.Bounds()
	saved, _ := after.Save()
	// move and restyle the first object by hand, as Archi would write it
	text := string(saved)
	old := fmt.Sprintf(`id="%s"`, first.ID())
	text = strings.Replace(text, old, old+` fillColor="#ff0000"`, 1)
	bold := fmt.Sprintf(`<bounds x="%d" y="%d"`, b.X, b.Y)
	i := strings.Index(text, old)
	j := strings.Index(text[i:], bold)
	text = text[:i+j] + fmt.Sprintf(`<bounds x="%d" y="%d"`, b.X+10, b.Y) + text[i+j+len(bold):]
	after, err = archixml.Load([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r := Models(before, after)
	var viewCh *Change
	for i := range r.Changes {
		if r.Changes[i].Kind == KindView {
			viewCh = &r.Changes[i]
		}
	}
	if viewCh == nil {
		t.Fatalf("no view change:\n%s", r)
	}
	got := map[string]string{}
	for _, d := range viewCh.Diagram {
		got[d.ID] = string(d.Op)
	}
	if got[obj] != "added" {
		t.Errorf("added object %s: %q", obj, got[obj])
	}
	if len(conns) == 0 {
		t.Fatal("the example's goal should connect")
	}
	for _, c := range conns {
		if got[c] != "added" {
			t.Errorf("added connection %s: %q", c, got[c])
		}
	}
	if got[first.ID()] != "changed" {
		t.Fatalf("moved object %s: %q\n%s", first.ID(), got[first.ID()], r)
	}
	text = r.String()
	for _, s := range []string{`moved from ` + fmt.Sprintf("%d,%d to %d,%d", b.X, b.Y, b.X+10, b.Y), `fillColor "" -> "#ff0000"`, `added Goal "Faster rentals"`} {
		if !strings.Contains(text, s) {
			t.Errorf("words lack %q:\n%s", s, text)
		}
	}
	if !slices.Equal(r.Views(), []string{v.ID()}) {
		t.Errorf("Views() = %v", r.Views())
	}
	js, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(js), `"format_version":"1"`) {
		t.Errorf("JSON: %v %s", err, js)
	}
}

// Moving an element between folders in Archi writes it elsewhere in the file: a move, not a
// removal and an addition; a deleted folder removes what it held.
func TestModels_MoveAndFolders(t *testing.T) {
	data, _ := archixml.Example().Save()
	before, _ := archixml.Load(data)
	after, _ := archixml.Load(data)
	e := after.Elements()[0]
	f := mk(t)(after.EnsureFolder("Business/People"))
	if _, err := after.MoveToFolder(e.ID(), "Business/People"); err != nil {
		t.Fatal(err)
	}
	if err := after.Rename(e.ID(), "Client"); err != nil {
		t.Fatal(err)
	}
	r := Models(before, after)
	got := summary(r)
	want := []string{"added folder " + f, "changed element " + e.ID()}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v\n%s", got, want, r)
	}
	s := r.String()
	for _, w := range []string{`moved from folder "Business" to "Business/People"`, `renamed "Customer" to "Client"`} {
		if !strings.Contains(s, w) {
			t.Errorf("words lack %q:\n%s", w, s)
		}
	}
	// and back: the folder is removed
	r = Models(after, before)
	got = summary(r)
	want = []string{"changed element " + e.ID(), "removed folder " + f}
	if !slices.Equal(got, want) {
		t.Fatalf("back: got %v want %v\n%s", got, want, r)
	}
}

// The order of the words is stable: the same two models give the same text.
func TestModels_Stable(t *testing.T) {
	data, _ := archixml.Example().Save()
	before, _ := archixml.Load(data)
	var texts []string
	for range 3 {
		after, _ := archixml.Load(data)
		for i, e := range after.Elements() {
			_ = after.Rename(e.ID(), fmt.Sprintf("E%d", 9-i))
		}
		texts = append(texts, Models(before, after).String())
	}
	if texts[0] != texts[1] || texts[1] != texts[2] {
		t.Fatalf("unstable:\n%s\n---\n%s", texts[0], texts[1])
	}
}
