package archixml

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beevik/etree"
)

func TestExample_IsStableAndCanonical(t *testing.T) {
	a, err := Example().Save()
	must(t, err)
	b, err := Example().Save()
	must(t, err)
	if !bytes.Equal(a, b) {
		t.Fatal("the example model differs between two builds")
	}
	m := testModel(t)
	if got := len(m.Elements()); got != 10 {
		t.Fatalf("%d elements, want 10", got)
	}
	for _, o := range m.All(KindElement) {
		if !strings.HasPrefix(o.ID(), "id-") || len(o.ID()) != 35 {
			t.Fatalf("id %q is not in Archi's form", o.ID())
		}
	}
	writeAndCheckEMF(t, a)
}

// writeAndCheckEMF has Archi's EMF open the bytes and confirm it would write the same.
func writeAndCheckEMF(t *testing.T, data []byte) {
	t.Helper()
	f := t.TempDir() + "/model.archimate"
	must(t, writeFile(f, data))
	archiEMF(t, "check", f)
	archiEMF(t, "canonical", f)
}

func TestModel_Query(t *testing.T) {
	m := testModel(t)
	c, ok := m.Object(mustID(t, m, "Customer"))
	if !ok {
		t.Fatal("Customer not indexed")
	}
	if c.Kind() != KindElement || c.Class() != "BusinessActor" || c.Type().Label != "Business Actor" {
		t.Fatalf("Customer is %v %s", c.Kind(), c.Class())
	}
	if c.FolderPath() != "Business" || c.TopFolderType() != FolderBusiness {
		t.Fatalf("Customer in %q (%s)", c.FolderPath(), c.TopFolderType())
	}
	if !strings.Contains(c.Documentation(), "rents a bike") {
		t.Fatalf("documentation %q", c.Documentation())
	}
	app, _ := m.Object(mustID(t, m, "Booking App"))
	if v, ok := app.Property("lifecycle"); !ok || v != "run" {
		t.Fatalf("lifecycle %q %v", v, ok)
	}
	if got := len(m.RelationshipsOf(app.ID())); got != 3 {
		t.Fatalf("Booking App has %d relationships, want 3", got)
	}
	view, _ := m.Object(mustID(t, m, "Main view"))
	if got := len(view.DiagramObjects()); got != 9 {
		t.Fatalf("%d diagram objects, want 9", got)
	}
	// every relationship between two shown elements is drawn once
	if got := len(view.Connections()); got != 8 {
		t.Fatalf("%d connections, want 8", got)
	}
	assertConnectionsConsistent(t, m)
}

// assertConnectionsConsistent checks what Archi's model checker checks of connections: each is held
// by its source, listed by its target, and joins the objects that show its relationship's ends.
func assertConnectionsConsistent(t *testing.T, m *Model) {
	t.Helper()
	for _, v := range m.Views() {
		listed := map[string]string{}
		for _, o := range v.DiagramObjects() {
			for _, c := range strings.Fields(o.Attr("targetConnections")) {
				listed[c] = o.ID()
			}
		}
		for _, c := range v.Connections() {
			p, _ := c.Parent()
			if p.ID() != c.SourceID() {
				t.Errorf("connection %s held by %s, source %s", c.ID(), p.ID(), c.SourceID())
			}
			if listed[c.ID()] != c.TargetID() {
				t.Errorf("connection %s not listed by its target %s", c.ID(), c.TargetID())
			}
			delete(listed, c.ID())
			rel, _ := c.Concept()
			src, _ := c.Source()
			tgt, _ := c.Target()
			se, _ := src.Concept()
			te, _ := tgt.Concept()
			if rel.SourceID() != se.ID() || rel.TargetID() != te.ID() {
				t.Errorf("connection %s joins %s->%s, relationship %s->%s", c.ID(), se.ID(), te.ID(), rel.SourceID(), rel.TargetID())
			}
		}
		for c := range listed {
			t.Errorf("targetConnections lists %s, which is not on the view", c)
		}
	}
}

func TestEdit_DeleteElementCascades(t *testing.T) {
	m := testModel(t)
	app := mustID(t, m, "Booking App")
	del, err := m.DeleteElement(app)
	must(t, err)
	if len(del.Relationships) != 3 || len(del.DiagramObjects) != 1 || len(del.Connections) != 3 {
		t.Fatalf("deleted %+v", del)
	}
	for _, id := range append(append(del.Relationships, del.DiagramObjects...), del.Connections...) {
		if _, ok := m.Object(id); ok {
			t.Fatalf("%s still indexed", id)
		}
	}
	assertConnectionsConsistent(t, m)
	data, err := m.Save()
	must(t, err)
	if bytes.Contains(data, []byte(app)) {
		t.Fatal("the saved model still names the deleted element")
	}
	writeAndCheckEMF(t, data)
}

func TestEdit_AddToViewDrawsConnections(t *testing.T) {
	m := testModel(t)
	goal := mustID(t, m, "Shorter Queues")
	view := mustID(t, m, "Main view")
	obj, conns, err := m.AddToView(view, goal, nil)
	must(t, err)
	if len(conns) != 1 {
		t.Fatalf("%d connections, want 1 (Bike Rental realizes Shorter Queues)", len(conns))
	}
	o, _ := m.Object(obj)
	b, _ := o.Bounds()
	v, _ := m.Object(view)
	for _, other := range v.DiagramObjects() {
		ob, _ := other.Bounds()
		if other.ID() != obj && b.X < ob.X+ob.Width && ob.X < b.X+b.Width && b.Y < ob.Y+ob.Height && ob.Y < b.Y+b.Height {
			t.Fatalf("placed at %+v over %s at %+v", b, other.ID(), ob)
		}
	}
	assertConnectionsConsistent(t, m)
	// given bounds are kept
	obj2, _, err := m.AddToView(view, goal, &Bounds{X: 700, Y: 300, Width: 140, Height: 60})
	must(t, err)
	o2, _ := m.Object(obj2)
	if b2, _ := o2.Bounds(); b2 != (Bounds{700, 300, 140, 60}) {
		t.Fatalf("bounds %+v", b2)
	}
	data, err := m.Save()
	must(t, err)
	writeAndCheckEMF(t, data)
}

func TestEdit_DeterministicIDs(t *testing.T) {
	run := func() []byte {
		m := testModel(t)
		m.SetIDSeed("plan sha256 abc")
		id, err := m.CreateElement("Capability", "Self Service", "")
		must(t, err)
		_, err = m.CreateRelationship("Association", mustID(t, m, "Booking App"), id, "")
		must(t, err)
		data, err := m.Save()
		must(t, err)
		return data
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) {
		t.Fatalf("the same edits gave different files: %s", firstDiff(a, b))
	}
	m := testModel(t)
	m.SetIDSeed("another plan")
	id, _ := m.CreateElement("Capability", "Self Service", "")
	if bytes.Contains(a, []byte(id)) {
		t.Fatal("a different seed gave the same id")
	}
}

// Names and values can never inject markup, whatever they hold.
func TestEdit_NoMarkupInjection(t *testing.T) {
	m := testModel(t)
	c := mustID(t, m, "Customer")
	evil := `x"/><element xsi:type="archimate:Node" id="evil"/><!-- & ]]> '` + "\n\r\t"
	must(t, m.Rename(c, evil))
	must(t, m.SetProperty(c, evil, evil))
	must(t, m.SetDocumentation(c, evil+"</documentation><x>"))
	data, err := m.Save()
	must(t, err)
	back, err := Load(data)
	must(t, err)
	if _, injected := back.Object("evil"); injected {
		t.Fatal("a name injected an element")
	}
	o, _ := back.Object(c)
	if o.Name() != evil {
		t.Fatalf("name came back as %q", o.Name())
	}
	if v, _ := o.Property(evil); v != evil {
		t.Fatalf("property came back as %q", v)
	}
	if o.Documentation() != evil+"</documentation><x>" {
		t.Fatalf("documentation came back as %q", o.Documentation())
	}
	writeAndCheckEMF(t, data)
}

func TestLoad_Refuses(t *testing.T) {
	valid, _ := Example().Save()
	cases := []struct {
		name string
		in   string
		want error
	}{
		{"empty", "", ErrMalformed},
		{"not xml", "hello", ErrMalformed},
		{"other root", `<?xml version="1.0"?><model/>`, ErrNotModel},
		{"doctype", `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><archimate:model xmlns:archimate="http://www.archimatetool.com/archimate">&e;</archimate:model>`, ErrDoctype},
		{"entity without doctype", `<archimate:model xmlns:archimate="http://www.archimatetool.com/archimate" name="&e;"/>`, ErrMalformed},
		{"truncated", string(valid[:len(valid)/2]), ErrMalformed},
		{"unclosed tag", `<archimate:model xmlns:archimate="a" name="x`, ErrMalformed},
		{"mismatched tags", `<archimate:model xmlns:archimate="a"><folder></element></archimate:model>`, ErrMalformed},
		{"zip without model", "PK\x03\x04garbage", ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load([]byte(c.in))
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

// A huge attribute value loads, round-trips, and can be renamed away.
func TestLoad_HugeAttribute(t *testing.T) {
	valid, _ := Example().Save()
	huge := strings.Repeat("&amp;<>x", 1<<20) // 8 MiB of escapes
	in := bytes.Replace(valid, []byte(`name="Customer"`), []byte(`name="`+strings.ReplaceAll(huge, "<", "&lt;")+`"`), 1)
	m, err := Load(in)
	must(t, err)
	out, err := m.Save()
	must(t, err)
	if !bytes.Equal(in, out) {
		t.Fatal("round trip changed the file")
	}
	id := mustID(t, m, strings.ReplaceAll(huge, "&amp;", "&"))
	must(t, m.Rename(id, "Customer"))
	out, err = m.Save()
	must(t, err)
	if !bytes.Equal(out, valid) {
		t.Fatalf("renaming back did not restore the file: %s", firstDiff(valid, out))
	}
}

// LoadOwned gives the model Load gives, plain or zipped, and refuses what Load refuses.
func TestLoadOwned_IsLoad(t *testing.T) {
	data, _ := Example().Save()
	a, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOwned(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := a.Save()
	sb, _ := b.Save()
	if !bytes.Equal(sa, sb) || len(a.Elements()) != len(b.Elements()) {
		t.Fatal("LoadOwned read another model than Load")
	}
	if _, err := LoadOwned([]byte("<not a model/>")); err == nil {
		t.Fatal("LoadOwned took what is not a model")
	}
}

// All finds every object of a kind in document order without reading the content of views for
// the kinds a view cannot hold: the same list a walk of the whole tree gives, for every kind, on
// the example and on every corpus model (when ARCHIPLAN_CORPUS is set).
func TestAll_IsWholeWalk(t *testing.T) {
	check := func(name string, m *Model) {
		for k := kindNone; k <= KindProfile; k++ {
			var want []Object
			m.walk(m.root, func(e *etree.Element) {
				if kindOf(e) == k {
					want = append(want, Object{m, e})
				}
			})
			got := m.All(k)
			if len(got) != len(want) {
				t.Fatalf("%s: All(%d) found %d objects, the whole walk %d", name, k, len(got), len(want))
			}
			for i := range got {
				if got[i].e != want[i].e {
					t.Fatalf("%s: All(%d)[%d] differs from the whole walk's", name, k, i)
				}
			}
		}
	}
	check("example", testModel(t))
	if os.Getenv("ARCHIPLAN_CORPUS") == "" {
		return
	}
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Load(data)
		if err != nil {
			continue // the corpus holds models archiplan refuses on purpose
		}
		check(filepath.Base(f), m)
	}
}
