package archixml

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/beevik/etree"
)

// edited is the example model after edits of every kind of change to the tree: attributes,
// text, objects added, removed and moved, view contents, properties.
func edited(t *testing.T) (*Model, []byte) {
	t.Helper()
	m := testModel(t)
	before, _ := m.Save()
	els := m.Elements()
	rels := m.Relationships()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.Rename(els[0].ID(), "Renamed & <escaped>"))
	must(m.SetDocumentation(els[1].ID(), "new\ndocumentation"))
	must(m.SetProperty(els[2].ID(), "owner", "Team \"A\""))
	id, err := m.CreateElement("BusinessActor", "Created", mustFolder(t, m, "business"))
	must(err)
	_, err = m.CreateRelationship("AssociationRelationship", id, els[3].ID(), "")
	must(err)
	_, err = m.DeleteElement(els[4].ID())
	must(err)
	_, err = m.DeleteRelationship(rels[len(rels)-1].ID())
	must(err)
	top, _, _ := strings.Cut(els[5].FolderPath(), "/")
	_, err = m.MoveToFolder(els[5].ID(), top+"/Moved")
	must(err)
	v := m.Views()[0]
	_, _, err = m.AddToView(v.ID(), id, nil)
	must(err)
	if len(m.Views()) > 1 {
		_, err = m.DeleteView(m.Views()[1].ID())
		must(err)
	}
	if after, _ := m.Save(); bytes.Equal(after, before) {
		t.Fatal("the edits changed nothing")
	}
	data, err := m.Save()
	must(err)
	return m, data
}

// sameModel compares a model with the one Load gives for data: the same tree, every element's
// bytes at the same place, the same index of ids, nothing pending.
func sameModel(t *testing.T, m *Model, data []byte) {
	t.Helper()
	fresh, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameTree(m.doc.Root(), fresh.doc.Root(), ""); d != "" {
		t.Fatalf("tree: %s", d)
	}
	var walk func(a, b *etree.Element)
	walk = func(a, b *etree.Element) {
		if m.spans[a] != fresh.spans[b] {
			t.Fatalf("%s %s: span %v, Load's %v", a.Tag, a.SelectAttrValue("id", ""), m.spans[a], fresh.spans[b])
		}
		ac, bc := a.ChildElements(), b.ChildElements()
		for i := range ac {
			walk(ac[i], bc[i])
		}
	}
	walk(m.root, fresh.root)
	if len(m.spans) != len(fresh.spans) || len(m.state) != 0 || m.src != fresh.src || m.nl != fresh.nl {
		t.Fatalf("%d spans (Load %d), %d pending edits", len(m.spans), len(fresh.spans), len(m.state))
	}
	if len(m.byID) != len(fresh.byID) {
		t.Fatalf("%d ids, Load %d", len(m.byID), len(fresh.byID))
	}
	for id, e := range fresh.byID {
		if m.byID[id] == nil || m.byID[id].GetPath() != e.GetPath() || m.byID[id].SelectAttrValue("name", "") != e.SelectAttrValue("name", "") {
			t.Fatalf("id %s indexed elsewhere", id)
		}
	}
}

// A model edited and saved, rebased on what it saved, is the model Load gives for those bytes,
// and edits from then on save as they would on that model.
func TestRebase_IsLoad(t *testing.T) {
	m, data := edited(t)
	if !m.Rebase(data) {
		t.Fatal("Rebase refused what Save wrote")
	}
	sameModel(t, m, data)
	fresh, _ := Load(data)
	for _, x := range []*Model{m, fresh} {
		if err := x.Rename(x.Elements()[7].ID(), "Again"); err != nil {
			t.Fatal(err)
		}
		if _, err := x.DeleteElement(x.Elements()[8].ID()); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := m.Save()
	b, _ := fresh.Save()
	if !bytes.Equal(a, b) {
		t.Fatal("an edit after Rebase saves otherwise than on the loaded model")
	}
	// a file laid out otherwise than archiplan writes (without its duplicate id, which Rebase
	// leaves to Load): its own bytes kept around the edit
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "models", "out-of-order.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.Replace(raw, []byte(`<element xsi:type="archimate:BusinessRole" name="Same id, second" id="e2"/>`), nil, 1)
	o, _ := Load(raw)
	if len(o.DuplicateIDs()) > 0 {
		t.Fatal("the duplicate is still there")
	}
	if err := o.Rename("e1", "Renamed"); err != nil {
		t.Fatal(err)
	}
	out, _ := o.Save()
	if !o.Rebase(out) {
		t.Fatal("Rebase refused what Save wrote")
	}
	sameModel(t, o, out)
}

// Bytes that do not read back as the model's tree are refused, and the model is left as it was.
func TestRebase_RefusesOtherBytes(t *testing.T) {
	m, data := edited(t)
	s := string(data)
	name := m.Elements()[0].Name()
	for what, other := range map[string]string{
		"a name changed":      strings.Replace(s, `name="`+escapeAttr(name)+`"`, `name="Other"`, 1),
		"an attribute added":  strings.Replace(s, `<folder `, `<folder extra="x" `, 1),
		"an element added":    strings.Replace(s, `</folder>`, `<folder name="x"/></folder>`, 1),
		"text added":          strings.Replace(s, `<documentation>`, `<documentation>more `, 1),
		"a comment added":     strings.Replace(s, `<folder `, `<!-- c --><folder `, 1),
		"an id duplicated":    strings.Replace(s, `</folder>`, `<element xsi:type="archimate:BusinessActor" id="`+m.Elements()[2].ID()+`"/></folder>`, 1),
		"a prefix changed":    strings.Replace(s, `xsi:type=`, `xsj:type=`, 1),
		"not well-formed":     s[:len(s)/2],
		"an empty document":   "",
		"a declaration added": strings.Replace(s, `?>`, `?><?pi x?>`, 1),
	} {
		if other == s {
			t.Fatalf("%s: nothing changed", what)
		}
		if m.Rebase([]byte(other)) {
			t.Errorf("%s: Rebase took it", what)
		}
		if after, _ := m.Save(); !bytes.Equal(after, data) {
			t.Fatalf("%s: the model changed", what)
		}
	}
	// a model with a duplicate id, or read from Archi's zipped form: loaded from data instead
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "models", "out-of-order.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	dup, _ := Load(raw)
	if out, _ := dup.Save(); len(dup.DuplicateIDs()) == 0 || dup.Rebase(out) {
		t.Error("Rebase took a model with a duplicate id")
	}
	z, _ := Load(data)
	z.archive = &archiveInfo{} // as Load sets it for an archive
	if z.Rebase(data) {
		t.Error("Rebase took a model read from an archive")
	}
}

func escapeAttr(s string) string {
	var b output
	escape(&b, s, true)
	return b.buf.String()
}

// Rebase of the very bytes the last Save returned takes its spans from where Save put each
// element (reading back only what it wrote anew), and the model is then the one Load gives for
// those bytes, round after round of edits; on the example and on every corpus model.
func TestRebase_FromSaveIsLoad(t *testing.T) {
	m, data := edited(t)
	if !m.rebaseSaved(data) {
		t.Fatal("the bytes Save returned were not rebased from its spans")
	}
	sameModel(t, m, data)
	round := func(t *testing.T, m *Model, i int) {
		t.Helper()
		els := m.Elements()
		for k := 0; k < 3 && k < len(els); k++ {
			if err := m.Rename(els[(k*7+i)%len(els)].ID(), fmt.Sprintf("Round %d <%d>", i, k)); err != nil {
				t.Fatal(err)
			}
		}
		if len(els) > 4 {
			if _, err := m.DeleteElement(els[len(els)-1-i].ID()); err != nil {
				t.Fatal(err)
			}
		}
		if vs := m.Views(); len(vs) > 0 && len(els) > 0 {
			if _, _, err := m.AddToView(vs[0].ID(), els[i%len(els)].ID(), nil); err != nil && !errors.Is(err, ErrDuplicate) {
				t.Fatal(err)
			}
		}
		out, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		if !m.rebaseSaved(out) {
			t.Fatalf("round %d: not rebased from Save's spans", i)
		}
		sameModel(t, m, out)
	}
	for i := 0; i < 3; i++ {
		round(t, m, i)
	}
	for _, f := range testenv.CorpusModelsIfSet(t) {
		if strings.Contains(f, "zipped") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(raw)
			if err != nil || len(c.DuplicateIDs()) > 0 || len(c.Elements()) == 0 {
				t.Skip("not a model Rebase takes")
			}
			for i := 0; i < 2; i++ {
				round(t, c, i)
			}
		})
	}
}

// Rebase from Save's spans refuses bytes whose new parts do not read back as the tree, and bytes
// saved before a later edit; the model is left as it was, and the whole file is compared instead.
func TestRebase_FromSaveRefuses(t *testing.T) {
	m := testModel(t)
	el := m.Elements()[0]
	if err := m.Rename(el.ID(), "Written anew"); err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	keep := bytes.Clone(data)
	at := bytes.Index(data, []byte(`name="Written anew"`))
	data[at+len(`name="W`)] = 'X' // within what Save wrote anew
	if m.Rebase(data) {
		t.Fatal("rebased on bytes whose new part reads back otherwise")
	}
	if again, _ := m.Save(); !bytes.Equal(again, keep) {
		t.Fatal("the model changed")
	}
	// an edit after the Save, of an object the Save copied: what it wrote anew still reads back
	out, _ := m.Save()
	if err := m.Rename(m.Elements()[5].ID(), "Later"); err != nil {
		t.Fatal(err)
	}
	if m.rebaseSaved(out) {
		t.Fatal("rebased from the spans of a Save made before an edit")
	}
}
