package archixml

import (
	"bytes"
	"github.com/archiplan/archiplan/internal/testenv"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func TestCatalogue_Counts(t *testing.T) {
	if len(ElementTypes) != 61 || len(RelationshipTypes) != 11 {
		t.Fatalf("%d element and %d relationship types, want 61 and 11", len(ElementTypes), len(RelationshipTypes))
	}
	seen := map[string]bool{}
	for _, ty := range append(append([]ConceptType{}, ElementTypes...), RelationshipTypes...) {
		if seen[ty.Class] || seen[ty.Label] && ty.Label != ty.Class {
			t.Fatalf("%s listed twice", ty.Class)
		}
		seen[ty.Class], seen[ty.Label] = true, true
		if LookupType(ty.Label) == nil || LookupType(ty.Class) == nil {
			t.Fatalf("%s not found by label or class", ty.Class)
		}
	}
}

func TestLookupType(t *testing.T) {
	cases := map[string]string{
		"Business Actor": "BusinessActor", "business actor": "BusinessActor", "BusinessActor": "BusinessActor",
		"Course Of Action": "CourseOfAction", "Serving": "ServingRelationship",
		"ServingRelationship": "ServingRelationship", "Junction": "Junction", "Bussiness Actor": "",
		"UsedByRelationship": "",
	}
	for in, want := range cases {
		got := ""
		if ty := LookupType(in); ty != nil {
			got = ty.Class
		}
		if got != want {
			t.Errorf("LookupType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelationships_Table(t *testing.T) {
	r := Relationships()
	if r.Version != "3.2" {
		t.Fatalf("version %q", r.Version)
	}
	cases := []struct {
		rel, src, tgt string
		want          bool
	}{
		{"ServingRelationship", "ApplicationService", "BusinessProcess", true},
		{"AssignmentRelationship", "BusinessActor", "BusinessRole", true},
		{"TriggeringRelationship", "BusinessActor", "BusinessObject", false},
		{"AccessRelationship", "BusinessProcess", "BusinessObject", true},
		{"CompositionRelationship", "BusinessObject", "Node", false},
		{"AssociationRelationship", "AssignmentRelationship", "BusinessActor", true},
		{"AggregationRelationship", "Plateau", "ServingRelationship", true},
	}
	for _, c := range cases {
		if got := r.Allowed(c.rel, c.src, c.tgt); got != c.want {
			t.Errorf("%s %s -> %s: %v, want %v", c.rel, c.src, c.tgt, got, c.want)
		}
	}
}

// The embedded table is what the generator makes of Archi's relationships.xml today.
func TestRelationships_GeneratedFromArchi(t *testing.T) {
	tf, err := os.Open(testenv.CorpusFile(t, "archi/relationships.xml"))
	must(t, err)
	defer tf.Close()
	kf, err := os.Open(testenv.CorpusFile(t, "archi/relationships-keys.xml"))
	must(t, err)
	defer kf.Close()
	table, err := ParseArchiRelationships(tf, kf)
	must(t, err)
	var b bytes.Buffer
	must(t, table.WriteTSV(&b))
	if !bytes.Equal(b.Bytes(), relationshipsTSV) {
		t.Fatal("archixml/relationships.tsv is out of date: run go generate ./archixml")
	}
	// and the embedded table, as archiplan reads it, is the table read from Archi's files
	if got := Relationships(); got.Version != table.Version || !maps.Equal(got.allowed, table.allowed) {
		t.Fatalf("the embedded table reads as version %q with %d pairs, Archi's as %q with %d",
			got.Version, len(got.allowed), table.Version, len(table.allowed))
	}
}

// Every relationship between two elements in Archi's own models is one the table allows: the
// table and the catalogue read models as Archi does. Users' models made with older ArchiMate
// versions hold relationships 3.2 no longer allows; those are only logged.
func TestRelationships_CorpusAgrees(t *testing.T) {
	for _, path := range corpusFiles(t) {
		if !emfLoadable(path) {
			continue
		}
		data, err := os.ReadFile(path)
		must(t, err)
		m, err := Load(data)
		must(t, err)
		for _, rel := range m.Relationships() {
			s, ok1 := rel.Source()
			g, ok2 := rel.Target()
			if !ok1 || !ok2 {
				t.Errorf("%s: relationship %s has a dangling end", filepath.Base(path), rel.ID())
				continue
			}
			if s.Kind() == KindElement && g.Kind() == KindElement && s.Class() != "Junction" && g.Class() != "Junction" &&
				!Relationships().Allowed(rel.Class(), s.Class(), g.Class()) {
				report := t.Logf
				if filepath.Base(filepath.Dir(path)) == "archi" {
					report = t.Errorf
				}
				report("%s: %s %s -> %s is not in the 3.2 table", filepath.Base(path), rel.Class(), s.Class(), g.Class())
			}
		}
	}
}

// TestClassKind_EveryClass: the one lookup of a class's kind knows every class of the catalogue,
// the view types and Archi 2.x's legacy names (as the names Archi converts them to).
func TestClassKind_EveryClass(t *testing.T) {
	for cls := range elementByClass {
		if k := classKind(cls); k != KindElement {
			t.Errorf("%s: %v, want an element", cls, k)
		}
	}
	for cls := range relationshipByClass {
		if k := classKind(cls); k != KindRelationship {
			t.Errorf("%s: %v, want a relationship", cls, k)
		}
	}
	for _, cls := range ViewTypes {
		if k := classKind(cls); k != KindView {
			t.Errorf("%s: %v, want a view", cls, k)
		}
	}
	for old, cls := range legacyClasses {
		if classKind(old) != classKind(cls) {
			t.Errorf("legacy %s: %v, but %s is %v", old, classKind(old), cls, classKind(cls))
		}
	}
	for _, cls := range []string{"DiagramModelNote", "Folder", "", "BusinessActorX"} {
		if k := classKind(cls); k != KindOther {
			t.Errorf("%q: %v, want other", cls, k)
		}
	}
}
