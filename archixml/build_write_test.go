package archixml

import (
	"bytes"
	"errors"
	"testing"
)

// writeNodes are nodes given in an order EMF does not write: attributes and children out of
// order, a name given twice, text to escape, a group under a folder.
func writeNodes() []*Node {
	bounds := &Node{Tag: "bounds", Attrs: []string{"x", "10", "y", "20", "width", "120", "height", "55"}}
	group := &Node{Tag: "child", Attrs: []string{"fillColor", "#ffffff", "textAlignment", "1", "id", "id-g", "name", "G", "xsi:type", "archimate:Group"},
		Kids: []*Node{{Tag: "documentation", Text: "a <b> & \"c\"\r\n]]>"}, bounds}}
	view := &Node{Tag: "element", Attrs: []string{"name", "V", "xsi:type", "archimate:ArchimateDiagramModel", "id", "id-v"},
		Kids: []*Node{{Tag: "property", Attrs: []string{"key", "", "value", ""}}, {Tag: "documentation", Text: "d"}, group}}
	actor := &Node{Tag: "element", Attrs: []string{"id", "id-a", "name", "first", "xsi:type", "archimate:BusinessActor", "name", "A\tB\n"},
		Kids: []*Node{{Tag: "property", Attrs: []string{"key", "k", "value", "v"}}, {Tag: "documentation", Text: "doc"}}}
	business := &Node{Tag: "folder", Attrs: []string{"type", "business", "id", "id-b", "name", "Business"},
		Kids: []*Node{actor, {Tag: "documentation", Text: "fd"}, {Tag: "folder", Attrs: []string{"id", "id-s", "name", "Sub"}}}}
	views := &Node{Tag: "folder", Attrs: []string{"name", "Views", "id", "id-d", "type", "diagrams"}, Kids: []*Node{view}}
	return []*Node{{Tag: "profile", Attrs: []string{"conceptType", "BusinessActor", "id", "id-p", "name", "P"}},
		{Tag: "purpose", Text: "why"}, business, views}
}

// Write writes byte for byte what Save writes of the model Build makes of the same nodes, and
// refuses a model over MaxModelBytes.
func TestWrite_AsBuildSave(t *testing.T) {
	m, err := Build("M & m", "id-m", writeNodes())
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Write("M & m", "id-m", writeNodes(), 0)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Write: %v\n%s\nSave:\n%s", err, got, want)
	}
	defer func(max int) { MaxModelBytes = max }(MaxModelBytes)
	MaxModelBytes = len(want) - 1
	if b, err := Write("M & m", "id-m", writeNodes(), 0); b != nil || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	MaxModelBytes = len(want)
	if _, err := Write("M & m", "id-m", writeNodes(), 0); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}
