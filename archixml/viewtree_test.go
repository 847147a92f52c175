package archixml

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml/internal/diagram"
	"github.com/archiplan/archiplan/internal/testenv"
)

// A view's Diagram is the tree diagram.Parse reads from its XML: for every view of the example,
// of a synthetic model, of a view edited (written from the tree, not the file's bytes), of a
// view with text on many lines, and of every corpus model.
func TestDiagram_AsParsedFromXML(t *testing.T) {
	models := map[string]*Model{"example": testModel(t)}
	synth, err := Synthesize(SynthOptions{Elements: 300, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	models["synth"] = synth
	edited := testModel(t)
	v := edited.Views()[0]
	if err := edited.SetStyle(v.DiagramObjects()[0].ID(), "fillColor", "#c0ffee"); err != nil {
		t.Fatal(err)
	}
	models["edited"] = edited
	lines, err := Load([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="m" id="m" version="5.0.0">
  <folder name="Views" id="f" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="V &amp; W" id="v">
      <child xsi:type="archimate:Note" id="n" textAlignment="1">
        <bounds x="1" y="2" width="100" height="50"/>
        <content>one&#xD;
two &lt;b&gt;<![CDATA[ three ]]></content>
        <feature name="labelExpression" value="${name}&#xD;&#xA;x"/>
      </child>
      <documentation>  said
 twice  </documentation>
    </element>
  </folder>
</archimate:model>`))
	if err != nil {
		t.Fatal(err)
	}
	models["lines"] = lines
	for _, path := range testenv.CorpusModelsIfSet(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := Load(data); err == nil {
			models[path] = m
		}
	}
	for name, m := range models {
		for _, v := range m.Views() {
			want, err := diagram.Parse(v.XML())
			if err != nil {
				t.Fatalf("%s view %s: %v", name, v.ID(), err)
			}
			if got, want := dump(v.Diagram()), dump(want); got != want {
				t.Errorf("%s view %s: Diagram\n%s\nParse of XML\n%s", name, v.ID(), got, want)
			}
		}
	}
}

// dump writes a diagram tree out, each node with its parent's tag.
func dump(n *diagram.Node) string {
	var b strings.Builder
	n.Walk(func(n *diagram.Node) {
		parent := ""
		if n.Parent != nil {
			parent = n.Parent.Tag
		}
		fmt.Fprintf(&b, "%s %q in %s: %q %q %d kids\n", n.Tag, n.Type, parent, n.Attrs, n.Text, len(n.Kids))
	})
	return b.String()
}
