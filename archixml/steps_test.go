package archixml

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func strp(s string) *string { return &s }

// The steps real edits record pass ValidateSteps, and undo them to the very bytes loaded.
func TestValidateSteps_RecordedEdits(t *testing.T) {
	m := Example()
	orig, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	m, err = Load(orig)
	if err != nil {
		t.Fatal(err)
	}
	m.Record()
	els := m.Elements()
	a, b := els[0].ID(), els[1].ID()
	must(t, m.Rename(a, "Renamed"))
	must(t, m.SetProperty(a, "owner", "ops"))
	must(t, m.SetDocumentation(a, "some <text> & more"))
	id, err := m.CreateElement("Business Actor", "New", "")
	must(t, err)
	if _, _, err := m.AddToView(m.Views()[0].ID(), id, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DeleteElement(b); err != nil {
		t.Fatal(err)
	}
	steps := m.Recorded()
	// as an inverse.json is: through JSON and back
	data, _ := json.Marshal(steps)
	var back []Step
	must(t, json.Unmarshal(data, &back))
	if err := ValidateSteps(back); err != nil {
		t.Fatalf("the steps of real edits: %v", err)
	}
	must(t, m.Undo(back))
	got, err := m.Save()
	must(t, err)
	if !bytes.Equal(got, orig) {
		t.Fatal("undo did not give back the bytes loaded")
	}
}

// A crafted inverse (from a commit pulled from a team's remote, say) is refused with ErrBadStep
// before it changes anything, whatever it tries: arbitrary attribute keys, ids, namespaces,
// malformed or foreign XML, text where there is none, ids the model holds already.
func TestUndo_CraftedSteps(t *testing.T) {
	base, err := Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	m0, _ := Load(base)
	el := m0.Elements()[0].ID()
	other := m0.Elements()[1].ID()
	view := m0.Views()[0].ID()
	for _, c := range []struct {
		name string
		step Step
	}{
		{"unknown attribute", Step{Op: "attr", ID: el, Key: "onload", Old: strp("alert(1)")}},
		{"attribute key breaking the XML", Step{Op: "attr", ID: el, Key: `name="x" evil`, Old: strp("y")}},
		{"the id", Step{Op: "attr", ID: el, Key: "id", Old: strp(other)}},
		{"a namespace", Step{Op: "attr", ID: el, Key: "xmlns:evil", Old: strp("urn:x")}},
		{"xsi:type not a type", Step{Op: "attr", ID: el, Key: "xsi:type", Old: strp("evil\" x=\"")}},
		{"control character in a value", Step{Op: "attr", ID: el, Key: "name", Old: strp("a\x01b")}},
		{"control character in text", Step{Op: "text", ID: el, Path: []int{0}, Old: strp("a\x00")}},
		{"text of an element", Step{Op: "text", ID: el, Old: strp("text inside an element")}},
		{"unknown op", Step{Op: "exec", ID: el}},
		{"remove the model", Step{Op: "insert"}},
		{"remove a top-level folder that holds something", Step{Op: "insert", ID: "", Path: []int{1}}},
		{"malformed removed XML", Step{Op: "remove", ID: view, Index: 0, XML: `<child id="x"`}},
		{"DOCTYPE in removed XML", Step{Op: "remove", ID: view, Index: 0, XML: `<!DOCTYPE x [<!ENTITY a "b">]><child/>`}},
		{"foreign element", Step{Op: "remove", ID: view, Index: 0, XML: `<script>alert(1)</script>`}},
		{"foreign attribute inside", Step{Op: "remove", ID: view, Index: 0, XML: `<child id="id-x"><bounds x="1" onclick="y"/></child>`}},
		{"two elements", Step{Op: "remove", ID: view, Index: 0, XML: `<child id="id-x"/><child id="id-y"/>`}},
		{"an id the model holds", Step{Op: "remove", ID: view, Index: 0, XML: `<child xsi:type="archimate:DiagramObject" id="` + other + `"/>`}},
		{"negative index", Step{Op: "remove", ID: view, Index: -1, XML: `<child id="id-z"/>`}},
		{"negative path", Step{Op: "attr", ID: el, Path: []int{-1}, Key: "name", Old: strp("x")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(base)
			must(t, err)
			uerr := m.Undo([]Step{c.step})
			if !errors.Is(uerr, ErrBadStep) {
				t.Fatalf("Undo: %v, want ErrBadStep", uerr)
			}
			got, err := m.Save()
			must(t, err)
			if !bytes.Equal(got, base) {
				t.Fatal("a refused step changed the model")
			}
			if !strings.Contains(uerr.Error(), "step 0") {
				t.Fatalf("the error does not name the step: %v", uerr)
			}
		})
	}
}
