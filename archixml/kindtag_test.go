package archixml

import (
	"slices"
	"testing"
)

// TestKind_TaggedAsComputed: the kind and type an element's tag says (conceptTags) are those its
// class gives, for every class Archi writes, legacy and unknown ones; Type finds what Class and
// conceptType find; a change of class is seen at once.
func TestKind_TaggedAsComputed(t *testing.T) {
	classes := []string{"", "NoSuchClass", "Folder", "Profile", "ArchimateModel", "DiagramObject"}
	for c := range kindByClass {
		classes = append(classes, c)
	}
	for c := range legacyClasses {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		src := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="m" id="m">
  <folder name="F" id="f" type="business">
    <element xsi:type="archimate:` + c + `" name="x" id="x"/>
  </folder>
</archimate:model>
`
		m, err := Load([]byte(src))
		if err != nil {
			t.Fatal(c, err)
		}
		o, ok := m.Object("x")
		if k := classKind(c); !ok && k != KindOther || ok && o.Kind() != k {
			t.Errorf("%s: kind %v, want %v", c, o.Kind(), k)
		}
		if !ok {
			continue
		}
		if tc, tagged := taggedClass(o.e.Tag); !tagged || tc.kind != classKind(c) || tc.typ != conceptType(className(tc.kind, c)) {
			t.Errorf("%s: the tag read does not say the class", c)
		}
		if got, want := o.Type(), conceptType(o.Class()); got != want {
			t.Errorf("%s: Type %v, want %v", c, got, want)
		}
		for _, f := range []Object{m.Folders()[0], {m, m.root}} {
			if f.Type() != nil || conceptType(f.Class()) != nil {
				t.Errorf("%s: the %v has a type", c, f.Kind())
			}
		}
		m.setAttr(o.e, "xsi:type", "archimate:BusinessActor")
		if o.Kind() != KindElement || o.Type() != elementByClass["BusinessActor"] {
			t.Errorf("%s changed to BusinessActor: kind %v", c, o.Kind())
		}
	}
}
