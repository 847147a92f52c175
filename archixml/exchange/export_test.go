package exchange

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
)

// corpus lists the .archimate models of ARCHIPLAN_CORPUS (skips without it).
func corpus(t testing.TB) []string { return testenv.CorpusModels(t) }

// exportFile loads a corpus model and exports it (skips a model archixml does not load).
func exportFile(t *testing.T, f string) (*archixml.Model, *bytes.Buffer) {
	t.Helper()
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		t.Skipf("not a model archixml loads: %v", err)
	}
	var out bytes.Buffer
	if err := Export(m, &out); err != nil {
		t.Fatal(err)
	}
	return m, &out
}

// validate checks a file against the exchange format's schema with xmllint, offline through
// the corpus's catalog (skips without xmllint).
func validate(t *testing.T, file string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (Debian: libxml2-utils)")
	}
	oef := filepath.Join(testenv.Corpus(t), "oef")
	cmd := exec.Command(xmllint, "--noout", "--nonet", "--schema", filepath.Join(oef, "archimate3_Diagram.xsd"), file)
	cmd.Env = append(os.Environ(), "XML_CATALOG_FILES="+filepath.Join(oef, "catalog.xml"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s is not valid against archimate3_Diagram.xsd: %v\n%s", file, err, tail(string(out), 2000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// Every corpus model exports to a file valid against archimate3_Diagram.xsd that holds every
// element, relationship and ArchiMate view, with their ids.
func TestExport_CorpusValidates(t *testing.T) {
	for _, f := range corpus(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, out := exportFile(t, f)
			file := filepath.Join(t.TempDir(), "model.xml")
			os.WriteFile(file, out.Bytes(), 0o644)
			validate(t, file)
			ids := map[string]bool{}
			dec := xml.NewDecoder(bytes.NewReader(out.Bytes()))
			for {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				if se, ok := tok.(xml.StartElement); ok {
					for _, a := range se.Attr {
						if a.Name.Local == "identifier" {
							ids[a.Value] = true
						}
					}
				}
			}
			for _, kind := range [][]archixml.Object{m.Elements(), m.Relationships(), m.Views()} {
				for _, o := range kind {
					if o.Kind() == archixml.KindView && o.Class() != "ArchimateDiagramModel" {
						continue
					}
					if !ids[id(o.ID())] {
						t.Fatalf("%s %s is not in the export", o.Class(), o.ID())
					}
				}
			}
		})
	}
}

// The mapping on a small model: types, access, influence, directed association, properties,
// organizations, nested nodes with absolute bounds, styles, bendpoints, and the connection Archi
// hides between an element and the one it is drawn in.
func TestExport_Mapping(t *testing.T) {
	src := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="M &amp; co" id="id-m" version="5.0.0">
  <folder name="Business" id="id-fb" type="business">
    <folder name="Sub" id="id-fs">
      <element xsi:type="archimate:BusinessActor" name="Actor" id="id-a">
        <documentation>line 1
line 2</documentation>
        <property key="owner" value="Alice"/>
      </element>
    </folder>
    <element xsi:type="archimate:BusinessRole" name="Role" id="id-r"/>
  </folder>
  <folder name="Other" id="id-fo" type="other">
    <element xsi:type="archimate:Junction" id="id-j" type="or"/>
  </folder>
  <folder name="Relations" id="id-frel" type="relations">
    <element xsi:type="archimate:AssignmentRelationship" id="id-as" source="id-a" target="id-r"/>
    <element xsi:type="archimate:AccessRelationship" id="id-ac" source="id-a" target="id-r" accessType="1"/>
    <element xsi:type="archimate:InfluenceRelationship" id="id-in" source="id-a" target="id-r" strength="++"/>
    <element xsi:type="archimate:AssociationRelationship" id="id-ass" source="id-a" target="id-r" directed="true" name="knows"/>
  </folder>
  <folder name="Views" id="id-fv" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="V" id="id-v" viewpoint="organization">
      <child xsi:type="archimate:DiagramObject" id="id-oa" archimateElement="id-a" fillColor="#ff0000" alpha="128" font="1|Arial|10.0|1|GTK|1|" fontColor="#0000ff">
        <bounds x="-20" y="10" width="300" height="200"/>
        <sourceConnection xsi:type="archimate:Connection" id="id-nested" source="id-oa" target="id-or" archimateRelationship="id-as"/>
        <sourceConnection xsi:type="archimate:Connection" id="id-c" source="id-oa" target="id-or2" archimateRelationship="id-ac" lineWidth="2" lineColor="#00ff00">
          <bendpoint startX="10" startY="20" endX="-10" endY="-20"/>
        </sourceConnection>
        <child xsi:type="archimate:DiagramObject" id="id-or" targetConnections="id-nested" archimateElement="id-r">
          <bounds x="20" y="30" width="-1" height="-1"/>
        </child>
      </child>
      <child xsi:type="archimate:DiagramObject" id="id-or2" targetConnections="id-c" archimateElement="id-r">
        <bounds x="400" y="10"/>
      </child>
      <child xsi:type="archimate:Note" id="id-n">
        <bounds x="0" y="300" width="185" height="80"/>
        <content>a &lt;note&gt;</content>
      </child>
    </element>
  </folder>
</archimate:model>`
	m, err := archixml.Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Export(m, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		`<name>M &amp; co</name>`,
		`<element identifier="id-a" xsi:type="BusinessActor">`,
		`<documentation>line 1&#xA;line 2</documentation>`,
		`<property propertyDefinitionRef="propid-1">`, `<value>Alice</value>`,
		`<propertyDefinition identifier="propid-1" type="string">`, `<name>owner</name>`,
		`xsi:type="OrJunction"`,
		`xsi:type="Access" accessType="Read"`, `xsi:type="Influence" modifier="++"`, `isDirected="true">`, `<name>knows</name>`,
		`<label>Business</label>`, `<label>Sub</label>`, `<item identifierRef="id-a"/>`,
		`viewpoint="Organization"`,
		// x -20 makes every x 20 further right; the nested object is absolute
		`<node identifier="id-oa" elementRef="id-a" xsi:type="Element" x="0" y="10" w="300" h="200">`,
		`<fillColor r="255" g="0" b="0" a="50"/>`, `<font name="Arial" size="10" style="bold"><color r="0" g="0" b="255"/></font>`,
		`<node identifier="id-or" elementRef="id-r" xsi:type="Element" x="20" y="40" w="120" h="55">`,
		`<node identifier="id-n" xsi:type="Label" x="20" y="300" w="185" h="80">`, `<label>a &lt;note&gt;</label>`,
		`<connection identifier="id-c" relationshipRef="id-ac" xsi:type="Relationship" source="id-oa" target="id-or2">`,
		`<style lineWidth="2"><lineColor r="0" g="255" b="0"/></style>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the export lacks %s", want)
		}
	}
	if strings.Contains(s, `id-nested`) {
		t.Error("the connection Archi hides (to the element drawn inside) is exported")
	}
	// the bendpoint: source centre (130,110)+(10,20), target centre (460,37)+(-10,-20), halfway
	// (295,73), then shifted by the 20 of the negative x
	if !strings.Contains(s, `<bendpoint x="315" y="73"/>`) {
		t.Errorf("bendpoint: %s", s[strings.Index(s, "<connection"):])
	}
	file := filepath.Join(t.TempDir(), "m.xml")
	os.WriteFile(file, out.Bytes(), 0o644)
	if testenv.Path("ARCHIPLAN_CORPUS") != "" {
		validate(t, file)
	}
}

// An export walks each view's tree as the model holds it: written out and read again with
// encoding/xml, the views were two thirds of an export's allocations (12.6 an element at 1,000
// elements, 4.0 now).
func TestExport_FewAllocations(t *testing.T) {
	synth, err := archixml.Synthesize(archixml.SynthOptions{Elements: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := synth.Save()
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(2, func() {
		if err := Export(m, io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if per := allocs / float64(len(m.Elements())); per > 6 {
		t.Errorf("an export allocates %.0f times (%.1f an element), want at most 6 an element", allocs, per)
	}
}
