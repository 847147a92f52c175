package plans

import (
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

func (e *engine) moveToFolder(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	path := strings.Trim(str(a.FolderPath), "/")
	r.Description = words("Move %s to folder %s", label(o), path)
	r.change(o.FolderPath(), path)
	r.touched = []string{o.ID()}
	if !e.folderPathOK(i, "folder_path", o.Class(), path) {
		return
	}
	ft := archixml.FolderFor(o.Class())
	top, _ := e.m.TopFolder(ft)
	if o.FolderPath() == path || strings.Replace(o.FolderPath(), top.Name(), ft, 1) == path {
		e.errorf(i, "folder_path", NoOp, path, "%s is already in %s", label(o), path)
		return
	}
	if e.once(i, "folder_path", "folder|"+o.ID(), path, "the folder of "+label(o)) {
		_, err := e.m.MoveToFolder(o.ID(), path)
		e.edit(i, "folder_path", err)
	}
}

// folderPathOK checks that a folder path lies under the top-level folder objects of the class
// belong in, and outside the protected folders.
func (e *engine) folderPathOK(i int, field, class, path string) bool {
	ft := archixml.FolderFor(class)
	top, _ := e.m.TopFolder(ft)
	first, _, _ := strings.Cut(path, "/")
	if first != top.Name() && first != ft {
		e.errorf(i, field, FolderWrongLayer, path, "%s belongs under the %q folder; %q is not", aType(class), top.Name(), path)
		return false
	}
	for _, p := range e.opts.Policy.ProtectedFolders {
		p = strings.Trim(p, "/")
		if path == p || strings.HasPrefix(path, p+"/") {
			e.errorf(i, field, PolicyProtected, path, "%s is a protected folder", p)
			return false
		}
	}
	return true
}

func (e *engine) createFolder(i int, a Action, r *ActionResult) {
	path := strings.Trim(str(a.FolderPath), "/")
	r.Description = words("Create folder %s", path)
	if e.blank(i, "folder_path", path) || !e.checkRefID(i, a) {
		return
	}
	first, rest, _ := strings.Cut(path, "/")
	if _, ok := e.m.FolderAt(first); !ok || rest == "" {
		e.errorf(i, "folder_path", FolderWrongLayer, path, "%q must start with a top-level folder (Strategy, Business, Application, Technology & Physical, Motivation, Implementation & Migration, Other, Relations, Views) and name a folder below it", path)
		return
	}
	for _, p := range e.opts.Policy.ProtectedFolders {
		p = strings.Trim(p, "/")
		if path == p || strings.HasPrefix(path, p+"/") {
			e.errorf(i, "folder_path", PolicyProtected, path, "%s is a protected folder", p)
			return
		}
	}
	if f, exists := e.m.FolderAt(path); exists {
		e.errorf(i, "folder_path", NoOp, path, "folder %s exists already", path)
		if a.RefID != nil {
			e.refs[*a.RefID] = f.ID()
		}
		return
	}
	id, err := e.m.EnsureFolder(path)
	if !e.edit(i, "folder_path", err) {
		return
	}
	e.refFor(i, a, id)
	r.Created = []string{id}
	r.Description = words("Create folder %s (%s)", path, id)
	if d := str(a.Documentation); d != "" {
		e.edit(i, "documentation", e.m.SetDocumentation(id, d))
	}
}

// folderOnCreate resolves a create action's folder_path to a folder id, creating the folders
// missing; "" without one.
func (e *engine) folderOnCreate(i int, a Action, class string) (string, bool) {
	if a.FolderPath == nil {
		return "", true
	}
	path := strings.Trim(*a.FolderPath, "/")
	if !e.folderPathOK(i, "folder_path", class, path) {
		return "", false
	}
	id, err := e.m.EnsureFolder(path)
	if !e.edit(i, "folder_path", err) {
		return "", false
	}
	return id, true
}
