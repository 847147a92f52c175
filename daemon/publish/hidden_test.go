package publish

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/store"
)

// hid is what a planner or a colleague hides in a text: a right-to-left override, a zero-width
// space and a tag letter (which spells a sentence a model reads and a person does not).
const hid = "\u202e\u200b\U000E0041"

// Every text a model carries into the site (the model's name, an element's, a relationship's, a
// view's and a folder's name, a documentation, a property's key and value, the search index) is
// shown as a person reads it everywhere else: each hidden character as its code, \u{202e}, never
// the character; a documentation keeps its lines.
func TestPublish_HiddenCharactersShownAsCodes(t *testing.T) {
	m := archixml.Example()
	folder := ""
	for _, c := range m.Root().Children() {
		if c.Kind() == archixml.KindFolder {
			folder = c.ID()
			break
		}
	}
	rel, err := m.CreateRelationship("Association", customer, desk, "rel"+hid)
	steps := []error{err,
		m.Rename(customer, "Customer"+hid),
		m.SetDocumentation(customer, "line one"+hid+"\nline two"),
		m.SetProperty(customer, "key"+hid, "value"+hid),
		m.Rename(mainView, "View"+hid),
		m.Rename(folder, "Folder"+hid),
	}
	if err := errors.Join(steps...); err != nil {
		t.Fatal(err)
	}
	data, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	name := m.Name()
	data = bytes.Replace(data, []byte(`name="`+name+`"`), []byte(`name="`+name+hid+`"`), 1)
	ws, _, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: data, Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	head, err := ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	if _, err := Publish(ws, head, dir); err != nil {
		t.Fatal(err)
	}
	files := readSite(t, dir)
	for rel, data := range files {
		for _, r := range string(data) {
			if hidden.Is(r) && r != '\n' && r != '\t' && r != '\r' {
				t.Errorf("%s holds %s as the character, not its code", rel, hidden.Code(r))
				break
			}
		}
	}
	code := hidden.Show(hid)
	all := func(file string, words ...string) {
		t.Helper()
		for _, w := range words {
			if !bytes.Contains(files[file], []byte(w)) {
				t.Errorf("%s does not show %q", file, w)
			}
		}
	}
	all("e/"+customer+".html", "Customer"+code, "line one"+code+"\nline two", "key"+code, "value"+code,
		name+code, "rel"+code)
	all("r/"+rel+".html", "rel"+code)
	all("v/"+mainView+".html", "View"+code)
	all("views.html", "View"+code)
	all("index.html", name+code, "Folder"+code)
	// the index is data a script reads: the code as text (its backslash escaped), never the character
	all("static/search-index.js", `Customer\\u{202e}\\u{200b}\\u{e0041}`)
	if strings.Contains(string(files["static/search-index.js"]), `\u202e`) {
		t.Error("the search index holds the override as JSON's escape: a script turns it back into the character")
	}
}
