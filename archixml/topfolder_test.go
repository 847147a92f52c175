package archixml

import (
	"strings"
	"testing"
)

// A model of Archi 2 lacks the top-level folders ArchiMate 3 added: an element that belongs in one
// gets it as Archi makes it when it opens the model (ArchimateModel.addDefaultFolders): of the
// type, with Archi's name, where Archi's order puts it among the folders there are; undone, the
// folder goes again (issue 33: "the model has no motivation folder").
func TestCreateElement_MakesTheTopFolderArchiWould(t *testing.T) {
	src := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="Old" id="m1" version="2.6.0">
  <folder name="Business" id="f1" type="business"/>
  <folder name="Application" id="f2" type="application"/>
  <folder name="Technology" id="f3" type="technology"/>
  <folder name="Connectors" id="f4" type="connectors"/>
  <folder name="Relations" id="f5" type="relations"/>
  <folder name="Views" id="f6" type="diagrams"/>
</archimate:model>
`
	m, err := Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m.Record()
	for _, typ := range []string{"Goal", "Capability", "Location", "Work Package"} {
		if _, err := m.CreateElement(typ, "New "+typ, ""); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
	}
	steps := m.Recorded()
	var got []string
	for _, f := range m.root.SelectElements("folder") {
		got = append(got, f.SelectAttrValue("type", "")+"="+f.SelectAttrValue("name", ""))
	}
	want := "strategy=Strategy business=Business application=Application technology=Technology motivation=Motivation " +
		"implementation_migration=Implementation & Migration other=Other connectors=Connectors relations=Relations diagrams=Views"
	if strings.Join(got, " ") != want {
		t.Fatalf("top-level folders:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if err := m.Undo(steps); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if !m.SavesAs([]byte(src)) {
		t.Fatal("undone, the model is not as it was")
	}
}

// change_type keeps an element's sub-folder where Archi does: when the folder lies under the top-level
// folder of the new type (SetConceptTypeCommandFactory.getFolderForNewConcept), whatever
// folder the old type belonged in; otherwise the element goes to that top-level folder (issue 33: it
// left its sub-folder for the top one).
func TestChangeType_KeepsTheSubFolderAsArchi(t *testing.T) {
	src := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="M" id="m1" version="5.0.0">
  <folder name="Strategy" id="f0" type="strategy"/>
  <folder name="Business" id="f1" type="business">
    <folder name="Sites" id="s1">
      <element xsi:type="archimate:Location" name="Desk" id="e1"/>
      <element xsi:type="archimate:BusinessActor" name="Clerk" id="e2"/>
    </folder>
  </folder>
  <folder name="Application" id="f2" type="application"/>
  <folder name="Technology &amp; Physical" id="f3" type="technology"/>
  <folder name="Motivation" id="f4" type="motivation"/>
  <folder name="Implementation &amp; Migration" id="f5" type="implementation_migration"/>
  <folder name="Other" id="f6" type="other">
    <folder name="Places" id="s2">
      <element xsi:type="archimate:BusinessActor" name="Branch" id="e3"/>
    </folder>
  </folder>
  <folder name="Relations" id="f7" type="relations"/>
  <folder name="Views" id="f8" type="diagrams"/>
</archimate:model>
`
	m, err := Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, typ, folder string }{
		{"e1", "BusinessActor", "Business/Sites"}, // a Location kept in a business sub-folder
		{"e2", "BusinessRole", "Business/Sites"},  // the same layer
		{"e3", "Location", "Other/Places"},        // a Business Actor kept in an other sub-folder
		{"e2", "Goal", "Motivation"},              // another layer: to its top-level folder
	} {
		if err := m.ChangeType(c.id, c.typ); err != nil {
			t.Fatalf("%s to %s: %v", c.id, c.typ, err)
		}
		o, _ := m.Object(c.id)
		if got := o.FolderPath(); got != c.folder {
			t.Errorf("%s as %s is in %s, want %s", c.id, c.typ, got, c.folder)
		}
	}
}
