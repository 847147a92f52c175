package archixml

import (
	"github.com/beevik/etree"
)

// ModelVersion is the model version archiplan writes into new models, as Archi 5 does.
const ModelVersion = "5.0.0"

// New returns an empty model as Archi creates one: the nine top-level folders and a default view.
// Its ids derive from the name, so New("X") is the same model every time.
func New(name string) *Model {
	doc := etree.NewDocument()
	m := &Model{doc: doc, nl: "\n", spans: map[*etree.Element]span{}, state: map[*etree.Element]uint8{},
		idSeed: "new model\x00" + name}
	m.reindex0()
	m.indexed = true // built by edits: every object goes to its place in the indexes
	root := newEl("archimate:model",
		"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
		"xmlns:archimate", "http://www.archimatetool.com/archimate",
		"name", name, "id", m.newID("model", name), "version", ModelVersion)
	doc.SetRoot(root)
	m.root = root
	m.byID[root.SelectAttrValue("id", "")] = root
	for _, ft := range TopFolderTypes {
		m.add(root, newEl("folder", "name", topFolderNames[ft], "id", m.newID("folder", ft), "type", ft), KindFolder)
	}
	_, _ = m.CreateView("Default View", "", "")
	return m
}

func (m *Model) reindex0() {
	m.byID = map[string]*etree.Element{}
	m.relsByEnd = map[string][]*etree.Element{}
	m.refsTo = map[string][]*etree.Element{}
	m.byName = nil // built on first use (Named), then kept up to date
	m.alike = nil  // and these (Alike)
}
