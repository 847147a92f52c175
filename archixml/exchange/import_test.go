package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/internal/testenv"
)

// importFile imports an exchange file, failing the test on any problem.
func importFile(t *testing.T, data []byte) *archixml.Model {
	t.Helper()
	m, err := Import(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	writesAsSave(t, data, Options{}, m)
	return m
}

// writesAsSave: what `archiplan import` writes (ImportBytes, from the records in one pass) is
// byte for byte what the model Import makes saves as.
func writesAsSave(t testing.TB, src []byte, o Options, m *archixml.Model) {
	t.Helper()
	want, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ImportBytes(bytes.NewReader(src), o)
	if err != nil {
		t.Fatalf("ImportBytes refuses what Import made: %v", err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("ImportBytes writes other bytes than Save, at byte %d:\n%q\nSave:\n%q", i, tail(string(got[:min(i+200, len(got))]), 400), tail(string(want[:min(i+200, len(want))]), 400))
	}
}

// saved writes the model as a .archimate file and reads it back as any model is read.
func saved(t *testing.T, m *archixml.Model) (string, *archixml.Model) {
	t.Helper()
	data, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "imported.archimate")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := archixml.Load(data)
	if err != nil {
		t.Fatalf("the imported model does not load: %v", err)
	}
	return file, back
}

// archiEMF has Archi's EMF open the files (check) and find them in its own form (canonical),
// when ARCHI_EMF is set.
func archiEMF(t *testing.T, files ...string) {
	t.Helper()
	tool := testenv.Path("ARCHI_EMF")
	if tool == "" {
		t.Log("ARCHI_EMF is not set: the imported models were not opened with Archi's EMF")
		return
	}
	for _, mode := range []string{"check", "canonical"} {
		if out, err := exec.Command(tool, append([]string{mode}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("archi-emf %s: %v\n%s", mode, err, tail(string(out), 3000))
		}
	}
}

// nestedPair: Archi hides a connection between an element and one drawn directly in it; the
// export leaves such connections out and the import draws them again as Archi's importer does.
func nestedPair(c archixml.Object) bool {
	s, _ := c.Parent()
	t, ok := c.Model().Object(c.Attr("target"))
	if !ok || s.Class() != "DiagramObject" || t.Class() != "DiagramObject" {
		return false
	}
	sp, _ := s.Parent()
	tp, _ := t.Parent()
	return sp.ID() == t.ID() || tp.ID() == s.ID()
}

// absolute is a diagram object's bounds on the view, with Archi's default size where unset.
func absolute(o archixml.Object) (x, y, w, h int) {
	b, _ := o.Bounds()
	x, y, w, h = b.X, b.Y, b.Width, b.Height
	if w < 0 || h < 0 {
		class := o.Class()
		if c, ok := o.Concept(); ok {
			class = c.Class()
		}
		dw, dh := defaultSize(class, o.Attr("type"))
		if w < 0 {
			w = dw
		}
		if h < 0 {
			h = dh
		}
	}
	if p, ok := o.Parent(); ok && p.Kind() == archixml.KindDiagramObject {
		px, py, _, _ := absolute(p)
		x, y = x+px, y+py
	}
	return
}

func defaultSize(class, typ string) (int, int) {
	var n int
	fmt.Sscan(typ, &n)
	return render.DefaultSize(class, n)
}

// The round trip: every corpus model, exported and imported, has the same elements,
// relationships, properties, views, diagram objects and connections (names, types, ids, bounds),
// and the imported model is one Archi opens and would write byte for byte.
func TestImport_CorpusRoundTrip(t *testing.T) {
	for _, f := range corpus(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			orig, xml := exportFile(t, f)
			m, err := Import(bytes.NewReader(xml.Bytes()))
			if n := forbidden(orig); n > 0 {
				// the model holds relationships the table forbids: refused, each one named, unless allowed
				var ie *ImportError
				if !errors.As(err, &ie) || len(ie.Problems) != n || !ie.Has(CodeRelForbidden) {
					t.Fatalf("%d forbidden relationships, import: %v", n, err)
				}
				m, err = ImportWith(bytes.NewReader(xml.Bytes()), Options{AllowForbidden: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			writesAsSave(t, xml.Bytes(), Options{AllowForbidden: forbidden(orig) > 0}, m)
			file, back := saved(t, m)
			sameModel(t, orig, back)
			archiEMF(t, file)
		})
	}
}

// forbidden counts the relationships the table forbids between their ends' types.
func forbidden(m *archixml.Model) int {
	n := 0
	for _, r := range m.Relationships() {
		s, _ := r.Source()
		tg, _ := r.Target()
		if !archixml.Relationships().Allowed(r.Class(), s.Class(), tg.Class()) {
			n++
		}
	}
	return n
}

func sameModel(t *testing.T, orig, back *archixml.Model) {
	t.Helper()
	if back.ID() != id(orig.ID()) || back.Name() != normalize(orig.Name()) {
		t.Errorf("model: %q %q, want %q %q", back.ID(), back.Name(), id(orig.ID()), normalize(orig.Name()))
	}
	if back.Purpose() != orig.Purpose() {
		t.Errorf("purpose %q, want %q", back.Purpose(), orig.Purpose())
	}
	sameProps(t, "model", orig.Root(), back.Root())
	get := func(o archixml.Object) archixml.Object {
		got, ok := back.Object(id(o.ID()))
		if !ok {
			t.Fatalf("%s %s %q is not in the imported model", o.Class(), o.ID(), o.Name())
		}
		return got
	}
	for _, e := range orig.Elements() {
		g := get(e)
		if g.Class() != e.Class() || g.Name() != normalize(e.Name()) || g.Documentation() != e.Documentation() || g.Attr("type") != e.Attr("type") {
			t.Errorf("element %s: %s %q (%s), want %s %q (%s)", e.ID(), g.Class(), g.Name(), g.Attr("type"), e.Class(), e.Name(), e.Attr("type"))
		}
		sameProps(t, e.ID(), e, g)
		sameSpecializations(t, e, g)
	}
	if len(back.Elements()) != len(orig.Elements()) || len(back.Relationships()) != len(orig.Relationships()) {
		t.Errorf("%d elements and %d relationships, want %d and %d", len(back.Elements()), len(back.Relationships()), len(orig.Elements()), len(orig.Relationships()))
	}
	for _, r := range orig.Relationships() {
		g := get(r)
		access := r.Attr("accessType")
		if access == "0" {
			access = ""
		}
		if g.Class() != r.Class() || g.Name() != normalize(r.Name()) || g.Documentation() != r.Documentation() ||
			g.SourceID() != id(r.SourceID()) || g.TargetID() != id(r.TargetID()) ||
			g.Attr("accessType") != access || g.Attr("strength") != r.Attr("strength") || g.Attr("directed") != r.Attr("directed") {
			t.Errorf("relationship %s: %s %q %s->%s, want %s %q %s->%s", r.ID(), g.Class(), g.Name(), g.SourceID(), g.TargetID(), r.Class(), r.Name(), r.SourceID(), r.TargetID())
		}
		sameProps(t, r.ID(), r, g)
		sameSpecializations(t, r, g)
	}
	views := 0
	for _, v := range orig.Views() {
		if v.Class() != "ArchimateDiagramModel" {
			continue
		}
		views++
		g := get(v)
		vp := v.Attr("viewpoint")
		if _, ok := viewpoints[vp]; !ok {
			vp = ""
		}
		if g.Name() != normalize(v.Name()) || g.Documentation() != v.Documentation() || g.Attr("viewpoint") != vp {
			t.Errorf("view %s: %q %q, want %q %q", v.ID(), g.Name(), g.Attr("viewpoint"), v.Name(), vp)
		}
		sameProps(t, v.ID(), v, g)
		sameView(t, v, g)
	}
	if len(back.Views()) != views {
		t.Errorf("%d views, want %d", len(back.Views()), views)
	}
}

// sameSpecializations compares a concept's specializations (profiles): their names and the
// concept type each is for.
func sameSpecializations(t *testing.T, a, b archixml.Object) {
	t.Helper()
	of := func(o archixml.Object) string {
		var out []string
		for _, pid := range o.ProfileIDs() {
			p, ok := o.Model().Object(pid)
			if !ok {
				t.Fatalf("%s: profile %s is not in its model", o.ID(), pid)
			}
			out = append(out, normalize(p.Name())+" for "+p.Attr("conceptType"))
		}
		return strings.Join(out, ", ")
	}
	if got, want := of(b), of(a); got != want {
		t.Errorf("%s %q: specializations %q, want %q", a.ID(), a.Name(), got, want)
	}
}

func sameProps(t *testing.T, what string, a, b archixml.Object) {
	t.Helper()
	var want, got []string
	for _, p := range a.Properties() {
		if p.Key != "" {
			want = append(want, normalize(p.Key)+"="+normalize(p.Value))
		}
	}
	for _, p := range b.Properties() {
		got = append(got, p.Key+"="+p.Value)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: properties %q, want %q", what, got, want)
	}
}

// sameView compares the diagram objects (class, concept, bounds: absolute, shifted as the export
// shifts a view with negative positions) and the connections (relationship, ends, number of
// bendpoints and where Archi draws them) of a view and its import.
func sameView(t *testing.T, v, g archixml.Object) {
	t.Helper()
	m, back := v.Model(), g.Model()
	minX, minY := 0, 0
	objs := v.DiagramObjects()
	for _, o := range objs {
		x, y, _, _ := absolute(o)
		minX, minY = min(minX, x), min(minY, y)
	}
	n := 0
	for _, o := range objs {
		class := o.Class()
		switch class {
		case "DiagramObject", "Group", "Note":
		case "DiagramModelReference":
			if r, ok := m.Object(o.Attr("model")); !ok || r.Class() != "ArchimateDiagramModel" {
				class = "Note" // a reference to a sketch or canvas is written as a label
			}
		default:
			continue
		}
		n++
		got, ok := back.Object(id(o.ID()))
		if !ok {
			t.Errorf("view %s: %s %s is not in the import", v.ID(), o.Class(), o.ID())
			continue
		}
		x, y, w, h := absolute(o)
		gx, gy, gw, gh := absolute(got)
		want := ""
		if c, ok := o.Concept(); ok {
			want = id(c.ID())
		}
		have := ""
		if c, ok := got.Concept(); ok {
			have = c.ID()
		}
		if got.Class() != class || have != want || gx != x-minX || gy != y-minY || gw != w || gh != h {
			t.Errorf("view %s: %s %s %s at %d,%d %dx%d, want %s %s at %d,%d %dx%d", v.ID(), o.ID(), got.Class(), have, gx, gy, gw, gh,
				class, want, x-minX, y-minY, w, h)
		}
	}
	if len(g.DiagramObjects()) != n {
		t.Errorf("view %s: %d diagram objects, want %d", v.ID(), len(g.DiagramObjects()), n)
	}
	count := 0
	for _, c := range v.Connections() {
		s, _ := c.Parent()
		if nestedPair(c) || s.Kind() != archixml.KindDiagramObject && s.Kind() != archixml.KindConnection {
			continue
		}
		count++
		got, ok := back.Object(id(c.ID()))
		if !ok {
			t.Errorf("view %s: connection %s is not in the import", v.ID(), c.ID())
			continue
		}
		gs, _ := got.Parent()
		rel, grel := "", ""
		if r, ok := c.Concept(); ok {
			rel = id(r.ID())
		}
		if r, ok := got.Concept(); ok {
			grel = r.ID()
		}
		if grel != rel || gs.ID() != id(s.ID()) || got.Attr("target") != id(c.Attr("target")) {
			t.Errorf("view %s: connection %s of %s %s->%s, want of %s %s->%s", v.ID(), c.ID(), grel, gs.ID(), got.Attr("target"), rel, s.ID(), c.Attr("target"))
		}
		if a, b := len(bends(c)), len(bends(got)); a != b && s.Kind() == archixml.KindDiagramObject {
			t.Errorf("view %s: connection %s has %d bendpoints, want %d", v.ID(), c.ID(), b, a)
		}
	}
	gotCount := 0
	for _, c := range g.Connections() {
		if !nestedPair(c) {
			gotCount++
		}
	}
	if gotCount != count {
		t.Errorf("view %s: %d connections, want %d", v.ID(), gotCount, count)
	}
}

func bends(c archixml.Object) []string {
	return strings.Split(c.XML(), "<bendpoint")[1:]
}

// Archi's own exchange samples import into models Archi opens; the bendpoint sample's
// attachment points become the bendpoints Archi's importer computes.
func TestImport_ArchiSamples(t *testing.T) {
	oef := filepath.Join(testenv.Corpus(t), "oef")
	var files []string
	for _, name := range []string{"Sample1.xml", "bendpoint.test.xml"} {
		data, err := os.ReadFile(filepath.Join(oef, name))
		if err != nil {
			t.Fatal(err)
		}
		file, m := saved(t, importFile(t, data))
		files = append(files, file)
		switch name {
		case "Sample1.xml":
			r, ok := m.Object("id-52b86b7b")
			if !ok || r.Class() != "AssignmentRelationship" || r.SourceID() != "id-37d5bc4b" || m.Name() != "Test" {
				t.Errorf("Sample1: relationship %v %s", ok, r.Class())
			}
			e, _ := m.Object("id-37d5bc4b")
			if e.Name() != "Sales Person" || e.Documentation() != "A description of a sales person" || e.FolderPath() != "Business" {
				t.Errorf("Sample1: element %q %q in %q", e.Name(), e.Documentation(), e.FolderPath())
			}
		case "bendpoint.test.xml":
			// source attachment (35,138), target attachment (35,70): one bendpoint halfway, (35,104),
			// from the centres of the function (100,173) and the service (100,35)
			c, ok := m.Object("id-019dd58d-4fcc-7b66-bbe6-ad9d4c3efc06")
			if !ok || !strings.Contains(c.XML(), `<bendpoint startX="-65" startY="-69" endX="-65" endY="69"/>`) {
				t.Errorf("bendpoint: %s", c.XML())
			}
		}
	}
	archiEMF(t, files...)
}

// The mapping, field by field, on a file that uses what the export writes and more: folders from
// organizations, styles, nested nodes, a view reference, a group, a note, a directed
// association, access and influence, properties, specialization.
func TestImport_Mapping(t *testing.T) {
	src := `<?xml version="1.0" encoding="UTF-8"?>
<model xmlns="http://www.opengroup.org/xsd/archimate/3.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" identifier="id-m">
  <name xml:lang="fr">Modèle</name>
  <name xml:lang="en">  The
    model </name>
  <documentation>purpose &amp; more</documentation>
  <elements>
    <element identifier="id-a" xsi:type="BusinessActor"><name>Actor</name><documentation>line 1
line 2</documentation>
      <properties><property propertyDefinitionRef="p1"><value>Alice</value></property>
        <property propertyDefinitionRef="specialization"><value>Customer</value></property></properties></element>
    <element identifier="id-r" xsi:type="BusinessRole"><name>Role</name></element>
    <element identifier="id-j" xsi:type="OrJunction"/>
    <element identifier="id-app" xsi:type="ApplicationComponent"><name>App</name></element>
    <element identifier="id-bo" xsi:type="BusinessObject"><name>Order</name></element>
    <element identifier="id-goal" xsi:type="Goal"><name>Goal</name></element>
    <element identifier="id-req" xsi:type="Requirement"><name>Req</name></element>
    <element identifier="id-grp" xsi:type="Grouping"><name>Together</name></element>
  </elements>
  <relationships>
    <relationship identifier="id-as" source="id-a" target="id-r" xsi:type="Assignment"/>
    <relationship identifier="id-ac" source="id-r" target="id-bo" xsi:type="Access" accessType="Read"/>
    <relationship identifier="id-in" source="id-req" target="id-goal" xsi:type="Influence" modifier="++"/>
    <relationship identifier="id-ass" source="id-a" target="id-r" xsi:type="Association" isDirected="true"><name>knows</name></relationship>
  </relationships>
  <organizations>
    <item><label>Business</label><documentation>the business</documentation>
      <item><label>Sub</label><item identifierRef="id-a"/></item>
      <item identifierRef="id-r"/>
    </item>
    <item><label>Views</label><item><label>Main</label><item identifierRef="id-v"/></item></item>
    <item><label>Elsewhere</label><item identifierRef="id-app"/></item>
  </organizations>
  <propertyDefinitions>
    <propertyDefinition identifier="p1" type="string"><name>owner</name></propertyDefinition>
    <propertyDefinition identifier="specialization" type="string"><name>Specialization</name></propertyDefinition>
  </propertyDefinitions>
  <views><diagrams>
    <view identifier="id-v" xsi:type="Diagram" viewpoint="Organization">
      <name>V</name>
      <node identifier="id-oa" elementRef="id-a" xsi:type="Element" x="10" y="20" w="300" h="200">
        <style><fillColor r="255" g="0" b="0" a="50"/><lineColor r="0" g="0" b="0" a="40"/><font name="Arial" size="10" style="bold"><color r="0" g="0" b="255"/></font></style>
        <node identifier="id-or" elementRef="id-r" xsi:type="Element" x="30" y="60" w="120" h="55"/>
      </node>
      <node identifier="id-or2" elementRef="id-r" xsi:type="Element" x="400" y="20" w="120" h="55"/>
      <node identifier="id-g" xsi:type="Container" x="0" y="300" w="400" h="140"><label>Box</label><documentation>about</documentation>
        <node identifier="id-n" xsi:type="Label" x="10" y="310" w="185" h="80"><label>a &lt;note&gt;
two</label></node>
      </node>
      <node identifier="id-og" elementRef="id-grp" xsi:type="Element" x="700" y="20" w="400" h="140"/>
      <node identifier="id-ref" xsi:type="Label" x="500" y="300" w="120" h="55"><label>V</label><viewRef ref="id-v"/></node>
      <connection identifier="id-c" relationshipRef="id-ass" xsi:type="Relationship" source="id-oa" target="id-or2">
        <style lineWidth="2"><lineColor r="0" g="255" b="0"/></style>
        <bendpoint x="300" y="100"/>
      </connection>
      <connection identifier="id-l" xsi:type="Line" source="id-n" target="id-ref"/>
    </view>
  </diagrams></views>
</model>`
	file, m := saved(t, importFile(t, []byte(src)))
	data, _ := os.ReadFile(file)
	s := string(data)
	for _, want := range []string{
		`<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="The model" id="id-m" version="5.0.0">`,
		`<folder name="Business" id="`,
		`<documentation>the business</documentation>`,
		`<folder name="Sub" id="`,
		`<element xsi:type="archimate:BusinessActor" name="Actor" id="id-a" profiles="`,
		`<documentation>line 1
line 2</documentation>`,
		`<property key="owner" value="Alice"/>`,
		`<element xsi:type="archimate:Junction" id="id-j" type="or"/>`,
		`<element xsi:type="archimate:AccessRelationship" id="id-ac" source="id-r" target="id-bo" accessType="1"/>`,
		`<element xsi:type="archimate:InfluenceRelationship" id="id-in" source="id-req" target="id-goal" strength="++"/>`,
		`<element xsi:type="archimate:AssociationRelationship" name="knows" id="id-ass" source="id-a" target="id-r" directed="true"/>`,
		`<folder name="Main" id="`,
		`<element xsi:type="archimate:ArchimateDiagramModel" name="V" id="id-v" viewpoint="organization">`,
		`<child xsi:type="archimate:DiagramObject" id="id-oa" font="1|Arial|10.0|1|GTK|1|" fontColor="#0000ff" lineColor="#000000" fillColor="#ff0000" alpha="128" archimateElement="id-a">`,
		`<feature name="lineAlpha" value="102"/>`,
		`<bounds x="20" y="40" width="120" height="55"/>`, // nested: relative
		`<child xsi:type="archimate:Group" id="id-g" name="Box" textAlignment="1">`,
		`<content>a &lt;note>
two</content>`,
		`<child xsi:type="archimate:DiagramModelReference" id="id-ref" targetConnections="id-l" model="id-v">`,
		`<sourceConnection id="id-l" source="id-n" target="id-ref"/>`,
		`<child xsi:type="archimate:DiagramObject" id="id-og" textAlignment="1" archimateElement="id-grp">`,
		`<sourceConnection xsi:type="archimate:Connection" id="id-c" lineWidth="2" lineColor="#00ff00" source="id-oa" target="id-or2" archimateRelationship="id-ass">`,
		// (300,100) from the centres (160,120) and (460,47)
		`<bendpoint startX="140" startY="-20" endX="-160" endY="53"/>`,
		`<purpose>purpose &amp; more</purpose>`,
		`<profile name="Customer" id="`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the import lacks %s", want)
		}
	}
	app, _ := m.Object("id-app")
	if app.FolderPath() != "Application/Elsewhere" {
		t.Errorf("an element under a folder item of no top-level name: %q, want Application/Elsewhere", app.FolderPath())
	}
	// Archi draws the connections of nested elements' relationships: assignment and association
	// from the actor to the role nested in it
	oa, _ := m.Object("id-oa")
	nested := 0
	for _, c := range oa.Model().Views()[0].Connections() {
		if c.Attr("target") == "id-or" {
			nested++
		}
	}
	if nested != 2 {
		t.Errorf("%d connections to the nested role, want 2", nested)
	}
	archiEMF(t, file)
}

// Bad files: each gets its code at its line, every problem is reported (not only the first),
// and no model is made. Those the schema forbids are confirmed invalid by xmllint when it is
// installed.
func TestImport_BadFiles(t *testing.T) {
	head := `<?xml version="1.0" encoding="UTF-8"?>
<model xmlns="http://www.opengroup.org/xsd/archimate/3.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" identifier="id-m">
  <name>M</name>
`
	elems := `  <elements>
    <element identifier="id-a" xsi:type="BusinessActor"><name>A</name></element>
    <element identifier="id-b" xsi:type="BusinessRole"><name>B</name></element>
  </elements>
`
	cases := []struct {
		name, src string
		codes     []string // expected, with their lines
		lines     []int
		invalid   bool // xmllint must refuse it too
	}{
		{"wrong namespace", `<?xml version="1.0"?>
<model xmlns="http://www.opengroup.org/xsd/archimate/2.1/" identifier="id-m"><name>M</name></model>`,
			[]string{CodeNotExchange}, []int{2}, true},
		{"an Archi model", `<?xml version="1.0"?>
<archimate:model xmlns:archimate="http://www.archimatetool.com/archimate" name="x" id="y"/>`,
			[]string{CodeNotExchange}, []int{2}, true},
		{"not XML", "<model", []string{CodeMalformed}, []int{1}, true},
		{"doctype", `<?xml version="1.0"?>
<!DOCTYPE model [<!ENTITY a "aaaa">]>
<model xmlns="http://www.opengroup.org/xsd/archimate/3.0/"/>`, []string{CodeMalformed}, []int{2}, true},
		{"unknown types", head + `  <elements>
    <element identifier="id-a" xsi:type="BusinessActorr"><name>A</name></element>
    <element identifier="id-b" xsi:type="BusinessRole"><name>B</name></element>
  </elements>
  <relationships>
    <relationship identifier="id-r" source="id-a" target="id-b" xsi:type="Uses"/>
  </relationships>
</model>`, []string{CodeUnknownType, CodeUnknownType}, []int{5, 9}, true},
		{"dangling references", head + elems + `  <relationships>
    <relationship identifier="id-r" source="id-a" target="id-nowhere" xsi:type="Assignment"/>
  </relationships>
  <views><diagrams><view identifier="id-v" xsi:type="Diagram"><name>V</name>
    <node identifier="id-n" elementRef="id-gone" xsi:type="Element" x="0" y="0" w="10" h="10"/>
    <node identifier="id-n2" elementRef="id-a" xsi:type="Element" x="0" y="0" w="10" h="10"/>
    <connection identifier="id-c" relationshipRef="id-lost" xsi:type="Relationship" source="id-n2" target="id-nn"/>
  </view></diagrams></views>
</model>`, []string{CodeDanglingRef, CodeDanglingRef, CodeDanglingRef, CodeDanglingRef}, []int{9, 12, 14, 14}, true},
		{"duplicate identifier", head + `  <elements>
    <element identifier="id-a" xsi:type="BusinessActor"><name>A</name></element>
    <element identifier="id-a" xsi:type="BusinessRole"><name>B</name></element>
  </elements>
</model>`, []string{CodeDuplicateID}, []int{6}, true},
		{"schema violations", head + `  <elements>
    <element xsi:type="BusinessActor"><name>A</name></element>
    <element identifier="1st" xsi:type="BusinessRole"><name>B</name></element>
    <element identifier="id-c" xsi:type="BusinessRole"/>
    <thing/>
  </elements>
  <views><diagrams><view identifier="id-v" xsi:type="Diagram"><name>V</name>
    <node identifier="id-n" xsi:type="Container" x="-5" y="0" w="0"/>
  </view></diagrams></views>
</model>`, []string{CodeSchema, CodeSchema, CodeSchema, CodeSchema, CodeSchema, CodeSchema, CodeSchema}, []int{5, 6, 7, 8, 11, 11, 11}, true},
		{"forbidden relationship", head + elems + `  <relationships>
    <relationship identifier="id-r" source="id-b" target="id-a" xsi:type="Composition"/>
  </relationships>
</model>`, []string{CodeRelForbidden}, []int{9}, false},
		{"what Archi cannot hold", head + elems + `  <relationships>
    <relationship identifier="id-r" source="id-a" target="id-b" xsi:type="Assignment"/>
  </relationships>
  <views><diagrams><view identifier="id-v" xsi:type="Diagram"><name>V</name>
    <node identifier="id-na" elementRef="id-a" xsi:type="Element" x="0" y="0" w="10" h="10"/>
    <node identifier="id-nb" elementRef="id-b" xsi:type="Element" x="0" y="0" w="10" h="10"/>
    <connection identifier="id-l" xsi:type="Line" source="id-na" target="id-nb"/>
    <connection identifier="id-c" relationshipRef="id-r" xsi:type="Relationship" source="id-nb" target="id-na"/>
    <connection identifier="id-w" relationshipRef="id-a" xsi:type="Relationship" source="id-na" target="id-nb"/>
  </view></diagrams></views>
</model>`, []string{CodeUnsupported, CodeUnsupported, CodeWrongRef}, []int{14, 15, 16}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Import(strings.NewReader(c.src))
			var ie *ImportError
			if !errors.As(err, &ie) || m != nil {
				t.Fatalf("imported (%v), want an ImportError", err)
			}
			var got, want []string
			for _, p := range ie.Problems {
				got = append(got, fmt.Sprintf("%d %s", p.Line, p.Code))
			}
			for i, code := range c.codes {
				want = append(want, fmt.Sprintf("%d %s", c.lines[i], code))
			}
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("problems %v, want %v\n%v", got, want, err)
			}
			if c.invalid {
				xmllintInvalid(t, c.src)
			}
		})
	}
}

// xmllintInvalid confirms with xmllint that the schema refuses the file (skips without xmllint
// or the corpus's schemas).
func xmllintInvalid(t *testing.T, src string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil || testenv.Path("ARCHIPLAN_CORPUS") == "" {
		return
	}
	oef := filepath.Join(testenv.Corpus(t), "oef")
	file := filepath.Join(t.TempDir(), "bad.xml")
	os.WriteFile(file, []byte(src), 0o644)
	cmd := exec.Command(xmllint, "--noout", "--nonet", "--schema", filepath.Join(oef, "archimate3_Diagram.xsd"), file)
	cmd.Env = append(os.Environ(), "XML_CATALOG_FILES="+filepath.Join(oef, "catalog.xml"))
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("xmllint finds the file valid:\n%s", out)
	}
}

// A file over the model size limit is refused before it is read further.
func TestImport_TooLarge(t *testing.T) {
	old := archixml.MaxModelBytes
	archixml.MaxModelBytes = 2000 // a small model is written in ~1,000 bytes
	defer func() { archixml.MaxModelBytes = old }()
	src := `<model xmlns="http://www.opengroup.org/xsd/archimate/3.0/" identifier="m"><name>` + strings.Repeat("x", 2100) + `</name></model>`
	m, err := Import(strings.NewReader(src))
	var ie *ImportError
	if m != nil || !errors.As(err, &ie) || !ie.Has(CodeMalformed) || !strings.Contains(err.Error(), "over 2000 bytes") {
		t.Fatalf("imported a file over the limit: %v", err)
	}
	if _, err := Import(strings.NewReader(src[:150] + `</name></model>`)); err != nil {
		t.Fatalf("a file under the limit: %v", err)
	}
}
