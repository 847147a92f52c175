package archixml

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The models Archi writes, and the example, have no problems: Check must not cry wolf.
func TestCheck_CleanModels(t *testing.T) {
	if err := Check(Example()); err != nil {
		t.Fatalf("the example: %v", err)
	}
	synth, err := Synthesize(SynthOptions{Elements: 2000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(synth); err != nil {
		t.Fatalf("a synthesized model: %v", err)
	}
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Load(data)
		if err != nil {
			continue // the exchange format is not a model file
		}
		if err := Check(m); err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}
}

// A model Archi could not open is reported, each kind of problem with what it is.
func TestCheck_BrokenModels(t *testing.T) {
	base, err := Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	m0, _ := Load(base)
	el, other := m0.Elements()[0].ID(), m0.Elements()[1].ID()
	rel := m0.Relationships()[0]
	var dobj string
	for _, o := range m0.Views()[0].DiagramObjects() {
		dobj = o.ID()
		break
	}
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"duplicate id", `id="` + other + `"`, `id="` + el + `"`, "duplicate id"},
		{"unknown type", `xsi:type="archimate:BusinessActor"`, `xsi:type="archimate:BusinessWizard"`, "unknown type"},
		{"dangling relationship end", `source="` + rel.SourceID() + `"`, `source="id-gone"`, "dangling reference"},
		{"diagram object of a missing element", `archimateElement="` + mustConcept(t, m0, dobj) + `"`, `archimateElement="id-gone"`, "dangling reference"},
		{"relationship to a view", `target="` + rel.TargetID() + `"`, `target="` + m0.Views()[0].ID() + `"`, "dangling reference"},
		{"object without id", `id="` + other + `"`, `id=""`, "missing id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(string(base), c.old) {
				t.Fatalf("the example has no %s", c.old)
			}
			broken := strings.Replace(string(base), c.old, c.new, 1)
			m, err := Load([]byte(broken))
			if err != nil {
				t.Fatal(err)
			}
			err = Check(m)
			if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check: %v, want %s", err, c.want)
			}
		})
	}
}

func mustConcept(t *testing.T, m *Model, dobj string) string {
	t.Helper()
	o, ok := m.Object(dobj)
	if !ok {
		t.Fatal("no diagram object")
	}
	c, ok := o.Concept()
	if !ok {
		t.Fatal("the diagram object shows nothing")
	}
	return c.ID()
}
