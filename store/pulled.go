package store

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Guarded are the paths of a workspace that archiplan reads, writes or runs: its folders (the
// inbox, the archive, the hooks), the model and the configuration. A commit from the remote that
// makes one of them a link, a file where a folder belongs, or a submodule is not brought into the
// work tree.
type Guarded struct {
	Folders []string // plans, .archiplan, hooks
	Files   []string // the model, .archiplan.yaml
}

// CheckTree checks a commit pulled from the remote before the work tree moves to it: no path
// under .git/ (git itself never writes one; go-git would, and every later checkout then fails),
// archiplan's folders folders (and nothing in them a link or a submodule), its files regular
// files, no link on the way to any of them. The error names the first entry refused, with
// ErrCommitRefused.
func (w *Workspace) CheckTree(commit string, g Guarded) error {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return fmt.Errorf("read commit %s: %w", short(commit), err)
	}
	refuse := func(p, why string) error {
		if p != "" {
			p = fmt.Sprintf("%q ", p)
		}
		return &RemoteError{Op: "pull", Remote: "commit " + short(commit), Code: CodeCommitRefused,
			Reason: fmt.Sprintf("%s%s; the workspace stays at its own head", p, why),
			Fix:    "revert that change on the remote (git revert), then archiplan pulls again", Err: ErrCommitRefused}
	}
	tree, err := c.Tree()
	if err != nil { // go-git refuses to read a tree with a path git refuses (.git, ..)
		return refuse("", "its tree cannot be checked out: "+oneLine(err.Error()))
	}
	under := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, e, err := walker.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return refuse("", "its tree cannot be checked out: "+oneLine(err.Error()))
		}
		for _, part := range strings.Split(name, "/") {
			if strings.EqualFold(part, ".git") || part == ".." || part == "." || part == "" {
				return refuse(name, "is a path git refuses (under .git/)")
			}
		}
		for _, dir := range g.Folders {
			switch {
			case name == dir && e.Mode != filemode.Dir:
				return refuse(name, "is "+kindOf(e.Mode)+" where archiplan's folder belongs")
			case strings.HasPrefix(dir, name+"/") && e.Mode != filemode.Dir:
				return refuse(name, "is "+kindOf(e.Mode)+" on the way to archiplan's folder "+dir)
			case under(name, dir) && (e.Mode == filemode.Symlink || e.Mode == filemode.Submodule):
				return refuse(name, "is "+kindOf(e.Mode)+" inside archiplan's folder "+dir)
			}
		}
		for _, f := range g.Files {
			switch {
			case name == f && e.Mode != filemode.Regular && e.Mode != filemode.Executable && e.Mode != filemode.Deprecated:
				return refuse(name, "is "+kindOf(e.Mode)+", not a file")
			case strings.HasPrefix(f, name+"/") && e.Mode != filemode.Dir:
				return refuse(name, "is "+kindOf(e.Mode)+" on the way to "+f)
			}
		}
	}
	return nil
}

func kindOf(m filemode.FileMode) string {
	switch m {
	case filemode.Symlink:
		return "a symbolic link"
	case filemode.Submodule:
		return "a submodule"
	case filemode.Dir:
		return "a folder"
	}
	return "a file"
}

// InsideWorkspace says whether a path a configuration names (the inbox, the model) stays inside
// the work tree and out of .git/: relative, clean of "..", not .git.
func InsideWorkspace(p string) bool {
	if p == "" {
		return true
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.Contains(p, "\x00") {
		return false
	}
	clean := path.Clean(p)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return false
	}
	for _, part := range strings.Split(clean, "/") {
		if strings.EqualFold(part, ".git") {
			return false
		}
	}
	return true
}

// Trusted are the workspace's paths that decide what is applied and what runs: git's folder, the
// archive and archiplan's own folder, the hooks, the rules and owners, the configuration. Planners
// write the inbox, so the inbox lies apart from every one of them and from the model.
var Trusted = []string{".git", ".archiplan", "hooks", "policy", ".archiplan.yaml"}

// InboxApart says why an inbox (a path relative to the work tree, as the configuration names it)
// would let planners write what archiplan trusts: it is, holds or lies inside one of Trusted or
// the model. "" when it lies apart. Names compare without case, as a case-insensitive file system
// (macOS, Windows) opens them.
func InboxApart(inbox, model string) string {
	box := path.Clean(strings.ReplaceAll(inbox, "\\", "/"))
	for _, t := range append(Trusted[:len(Trusted):len(Trusted)], path.Clean(model)) {
		if within(box, t) || within(t, box) {
			return fmt.Sprintf("the inbox %q and %s overlap: planners would write what archiplan trusts", inbox, t)
		}
	}
	return ""
}

// ModelApart says why a model path (relative to the work tree, as the configuration names it)
// would have archiplan write the model, whose text planners choose, where it keeps what it trusts:
// it is, holds or lies inside one of Trusted, or lies outside the work tree or in a folder named
// .git (InsideWorkspace). "" when it lies apart. (The inbox's overlap with the model is InboxApart's.)
func ModelApart(model string) string {
	m := path.Clean(strings.ReplaceAll(model, "\\", "/"))
	for _, t := range Trusted {
		if within(m, t) || within(t, m) {
			return fmt.Sprintf("the model %q and %s overlap: each apply would write the model, which plans fill, where archiplan keeps what it trusts", model, t)
		}
	}
	if !InsideWorkspace(model) {
		return fmt.Sprintf("the model %q lies outside the work tree or in a folder named .git: git's own files are never the model", model)
	}
	return ""
}

// within says whether p is dir or lies under it (slash paths, any case).
func within(p, dir string) bool {
	if dir == "." || p == "." {
		return true
	}
	return strings.EqualFold(p, dir) || len(p) > len(dir) && p[len(dir)] == '/' && strings.EqualFold(p[:len(dir)], dir)
}
