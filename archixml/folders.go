package archixml

import (
	"fmt"
	"strings"

	"github.com/beevik/etree"
)

// folderIn returns the folder to put an object of folder type ft in: folderID when given (which
// must lie under the top-level folder of that type), else the top-level folder.
func (m *Model) folderIn(ft, folderID string) (*etree.Element, error) {
	if folderID == "" {
		return m.topFolderFor(ft)
	}
	f, err := m.get(folderID, KindFolder)
	if err != nil {
		return nil, err
	}
	if got := (Object{m, f}).TopFolderType(); got != ft {
		return nil, fmt.Errorf("folder %q is in the %s folder, not %s: %w", folderID, got, ft, ErrWrongFolder)
	}
	return f, nil
}

// TopFolderName is the name of the top-level folder of type ft: the model's, or the name Archi
// gives the one an edit would create (topFolderFor).
func (m *Model) TopFolderName(ft string) string {
	if top, ok := m.TopFolder(ft); ok {
		return top.Name()
	}
	return topFolderNames[ft]
}

// topFolderFor returns the top-level folder of type ft, creating it when the model has none, as
// Archi does when it opens such a model (ArchimateModel.addDefaultFolders: a model of Archi 2 has
// no strategy, motivation or other folder, say): of the type, with Archi's name for it, among the
// top-level folders where Archi's order puts it. Only the folder an edit needs is created.
func (m *Model) topFolderFor(ft string) (*etree.Element, error) {
	if top, ok := m.TopFolder(ft); ok {
		return top.e, nil
	}
	name, ok := topFolderNames[ft]
	if !ok {
		return nil, fmt.Errorf("the model has no %s folder: %w", ft, ErrNotModel)
	}
	rank := map[string]int{}
	for i, t := range TopFolderTypes {
		rank[t] = i + 1
	}
	// after the last top-level folder Archi puts before it, else before the first one
	index, first := -1, -1
	for i, c := range m.root.ChildElements() {
		if c.Tag != "folder" {
			continue
		}
		if first < 0 {
			first = i
		}
		if r := rank[c.SelectAttrValue("type", "")]; r > 0 && r < rank[ft] {
			index = i + 1
		}
	}
	if index < 0 {
		index = max(first, 0)
	}
	f := newEl("folder", "name", name, "id", m.newID("folder", ft), "type", ft)
	m.insertChildAt(m.root, f, index)
	m.indexTree(f, KindFolder)
	return f, nil
}

// EnsureFolder returns the id of the folder at path ("Business/Customers/Key accounts": the
// top-level folder's name or type first, then user folders), creating the user folders that are
// missing.
func (m *Model) EnsureFolder(path string) (string, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	cur := m.topFolderNamed(parts[0])
	if cur == nil {
		return "", fmt.Errorf("no top-level folder %q: %w", parts[0], ErrWrongFolder)
	}
	for _, name := range parts[1:] {
		if name == "" {
			return "", fmt.Errorf("empty folder name in %q: %w", path, ErrWrongFolder)
		}
		if err := checkText(name); err != nil {
			return "", err
		}
		next := subfolder(cur, name)
		if next == nil {
			id := m.newID("folder", cur.SelectAttrValue("id", ""), name)
			next = newEl("folder", "name", name, "id", id)
			m.add(cur, next, KindFolder)
		}
		cur = next
	}
	return cur.SelectAttrValue("id", ""), nil
}

// MoveToFolder moves an element, relationship or view into the folder at path (see EnsureFolder),
// creating missing user folders; the folder must lie under the top-level folder the object
// belongs in. It returns the folder's id.
func (m *Model) MoveToFolder(id, path string) (string, error) {
	e, err := m.get(id, KindElement, KindRelationship, KindView)
	if err != nil {
		return "", err
	}
	want := FolderFor((Object{m, e}).Class())
	top := strings.SplitN(strings.Trim(path, "/"), "/", 2)[0]
	tf, ok := m.TopFolder(want)
	if !ok || (top != tf.Name() && top != want) {
		return "", fmt.Errorf("%s %q belongs under %q, not %q: %w", TypeWords((Object{m, e}).Class()), id, tf.Name(), path, ErrWrongFolder)
	}
	fid, err := m.EnsureFolder(path)
	if err != nil {
		return "", err
	}
	f := m.byID[fid]
	if e.Parent() == f {
		return fid, nil
	}
	// a move is a removal and an insertion: journaled as such, and indexed again below
	m.removeChild(e)
	m.forgetSource(e)
	m.insertChild(f, e)
	m.indexTree(e, kindOf(e))
	return fid, nil
}

// FolderAt returns the folder at a path (the top-level folder's name or type first, then user
// folders by name), without creating anything.
func (m *Model) FolderAt(path string) (Object, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	cur := m.topFolderNamed(parts[0])
	for _, name := range parts[1:] {
		if cur == nil {
			break
		}
		cur = subfolder(cur, name)
	}
	if cur == nil {
		return Object{}, false
	}
	return Object{m, cur}, true
}

// topFolderNamed is the top-level folder with the name or type, or nil.
func (m *Model) topFolderNamed(name string) *etree.Element {
	for _, c := range m.root.SelectElements("folder") {
		if c.SelectAttrValue("name", "") == name || c.SelectAttrValue("type", "") == name {
			return c
		}
	}
	return nil
}

// subfolder is the folder of that name directly in f, or nil.
func subfolder(f *etree.Element, name string) *etree.Element {
	for _, c := range f.SelectElements("folder") {
		if c.SelectAttrValue("name", "") == name {
			return c
		}
	}
	return nil
}
