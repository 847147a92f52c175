package archixml

import (
	"encoding/xml"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/internal/testenv"
)

// The table agrees with Archi's own viewpoints.xml, where the corpus has it.
func TestViewpoints_AgreeWithArchi(t *testing.T) {
	data, err := os.ReadFile(testenv.CorpusFile(t, "archi/viewpoints.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Viewpoints []struct {
			ID       string   `xml:"id,attr"`
			Name     string   `xml:"name"`
			Concepts []string `xml:"concept"`
		} `xml:"viewpoint"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Viewpoints) != len(Viewpoints()) {
		t.Fatalf("%d viewpoints in Archi's file, %d here", len(doc.Viewpoints), len(Viewpoints()))
	}
	for _, v := range doc.Viewpoints {
		vp := ViewpointOf(v.ID)
		if vp.ID != v.ID || vp.Name != v.Name {
			t.Errorf("%s: here %q %q, Archi %q", v.ID, vp.ID, vp.Name, v.Name)
			continue
		}
		want := map[string]bool{}
		for _, c := range v.Concepts {
			c = strings.TrimSpace(c)
			if layer, ok := layerSets[c]; ok {
				for _, et := range ElementTypes {
					if et.Layer == layer {
						want[et.Class] = true
					}
				}
			} else if ElementType(c) != nil {
				want[c] = true
			}
		}
		var w []string
		for c := range want {
			w = append(w, c)
		}
		got := vp.Concepts()
		sort.Strings(w)
		sort.Strings(got)
		if strings.Join(w, " ") != strings.Join(got, " ") {
			t.Errorf("%s: here %v, Archi %v", v.ID, got, w)
		}
	}
}

func TestViewpointOf(t *testing.T) {
	for _, c := range []struct{ attr, name string }{
		{"", "None"}, {"layered", "Layered"}, {"14", "Layered"}, {"1", "None"}, {"information_structure", "Information Structure"},
		{"capability", "Capability Map"}, {"nonsense", "None"},
	} {
		if got := ViewpointOf(c.attr).Name; got != c.name {
			t.Errorf("%q: %q, want %q", c.attr, got, c.name)
		}
	}
	is := ViewpointOf("information_structure")
	if is.Allows("Capability") || !is.Allows("DataObject") || !is.Allows("Junction") || !ViewpointOf("").Allows("Capability") {
		t.Error("Allows does not follow Archi's rules")
	}
}
