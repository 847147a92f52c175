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
		top, ok := m.TopFolder(ft)
		if !ok {
			return nil, fmt.Errorf("the model has no %s folder: %w", ft, ErrNotModel)
		}
		return top.e, nil
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
