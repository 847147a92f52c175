package diagram

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	src := `<element xsi:type="archimate:ArchimateDiagramModel" name="V" id="v">
  <child xsi:type="archimate:Group" id="g" name="G &amp; co">
    <bounds x="1" y="2" width="300" height="200"/>
    <child xsi:type="archimate:DiagramObject" id="o" archimateElement="e" fillColor="#ff0000">
      <feature name="labelExpression" value="${name}&#xD;&#xA;x"/>
      <bounds x="10" y="20"/>
      <sourceConnection xsi:type="archimate:Connection" id="c" source="o" target="n" archimateRelationship="r">
        <bendpoint startX="5" endY="-3"/>
      </sourceConnection>
    </child>
  </child>
  <child xsi:type="archimate:Note" id="n">
    <content>line one
line &lt;two&gt;</content>
  </child>
</element>`
	root, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	root.Walk(func(n *Node) {
		if n.IsObject() || n.IsConnection() {
			ids = append(ids, n.Attr("id")+":"+n.Type+":"+n.ContainerID())
		}
	})
	want := []string{"g:Group:v", "o:DiagramObject:g", "c:Connection:o", "n:Note:v"}
	if len(ids) != len(want) {
		t.Fatalf("got %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("got %s, want %s", ids[i], want[i])
		}
	}
	g := root.Kids[0]
	o := g.Kids[1]
	if g.Attr("name") != "G & co" || o.Concept() != "e" || o.Kid("sourceConnection").Concept() != "r" {
		t.Errorf("attributes: %q %q", g.Attr("name"), o.Concept())
	}
	if v, ok := o.Feature("labelExpression"); !ok || v != "${name}\r\nx" {
		t.Errorf("feature %q %v", v, ok)
	}
	if !o.Has("fillColor") || o.Has("lineColor") {
		t.Error("Has")
	}
	if c := root.Kids[1].Kid("content"); c == nil || c.Text != "line one\nline <two>" {
		t.Errorf("note text %+v", c)
	}
	for _, bad := range []string{"", "<a><b></a>", "<a/><b/>", "text"} {
		if _, err := Parse(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q) = %v, want ErrMalformed", bad, err)
		}
	}
}
