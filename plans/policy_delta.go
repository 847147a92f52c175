package plans

import (
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// JudgePolicy holds the changes of d to the workspace's static policy (.archiplan.yaml's allowed
// element and relationship types, its protected folders) as a plan's ops are held to it, with the
// same codes and words: an object created, or changed to a type, that the policy does not allow
// (POLICY_TYPE_NOT_ALLOWED); an object created, changed or deleted that lies, or lay, in a
// protected folder (POLICY_PROTECTED_FOLDER). It judges what is not a plan's ops: a revert's
// changes (RevertDelta), which undo a plan applied under another policy.
func JudgePolicy(p Policy, d *Delta) []Finding {
	var found []Finding
	for _, c := range d.Changes {
		o := c.Object
		if c.Kind == DeltaCreated || c.Kind == DeltaChanged && c.Before.Type != o.Type {
			if f, ok := typeRefused(p, o, c.Action); !ok {
				found = append(found, f)
			}
		}
		folders := []string{o.Folder}
		if c.Before != nil && c.Before.Folder != o.Folder {
			folders = append(folders, c.Before.Folder)
		}
		if f, ok := protectedIn(p, o, folders, c.Action); ok {
			found = append(found, f)
		}
	}
	return found
}

// typeRefused is the finding of an object whose type the policy does not allow (ok: allowed).
func typeRefused(p Policy, o DeltaObject, action int) (Finding, bool) {
	t := archixml.LookupType(o.Type)
	if t == nil {
		return Finding{}, true
	}
	switch o.Kind {
	case archixml.KindElement.String():
		if !allowedType(p.AllowedElementTypes, t) {
			return newFinding(PolicyTypeNotAllowed, action, "", o.ID, "the workspace does not allow %s elements", t.Label), false
		}
	case archixml.KindRelationship.String():
		if !allowedType(p.AllowedRelationshipTypes, t) {
			return newFinding(PolicyTypeNotAllowed, action, "", o.ID, "the workspace does not allow %s relationships", t.Label), false
		}
	}
	return Finding{}, true
}

// protectedIn is the finding of an object that lies in one of folders, when one is protected.
func protectedIn(p Policy, o DeltaObject, folders []string, action int) (Finding, bool) {
	for _, path := range folders {
		if pf, ok := protectedFolder(p.ProtectedFolders, path); ok {
			return newFinding(PolicyProtected, action, "", o.ID, "%q lies in the protected folder %s", o.Name, pf), true
		}
	}
	return Finding{}, false
}

// protectedFolder is the protected folder of list that path lies in (ok: one does).
func protectedFolder(list []string, path string) (string, bool) {
	for _, pf := range list {
		pf = strings.Trim(pf, "/")
		if path == pf || strings.HasPrefix(path, pf+"/") {
			return pf, true
		}
	}
	return "", false
}
