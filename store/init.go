package store

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// InboxIgnore keeps the inbox's pending files out of git; applied plans are committed.
const InboxIgnore = `# archiplan's inbox: pending plans, previews and reports stay out of git;
# applied plans are committed under .archiplan/applied/ with the change they made
*
!.gitignore
`

// DefaultConfig is the .archiplan.yaml init writes.
const DefaultConfig = `# archiplan configuration: every key is optional (docs/reference/config.md lists them)
model: model.archimate
inbox: plans
`

// InitOptions say what init makes.
type InitOptions struct {
	Model  string // the model's path in the workspace
	Inbox  string // the inbox folder
	Seed   []byte // the model to start from when the workspace has none
	Author Signature
}

// Init makes dir a workspace: a git repository (made if there is none) with the model, the
// inbox and its .gitignore, Archi's backups ignored, and a configuration, in one commit of what
// was missing. On a workspace that has it all it changes nothing.
func Init(dir string, o InitOptions) (*Workspace, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	// DIR is always a repository of its own: one that encloses it is never made a workspace
	if _, err := git.PlainOpen(dir); err != nil {
		if _, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}}); err != nil {
			return nil, "", fmt.Errorf("git init %s: %w", dir, err)
		}
	}
	ws, err := Open(dir, o.Model)
	if err != nil {
		return nil, "", err
	}
	lock, err := ws.Lock()
	if err != nil {
		return nil, "", err
	}
	defer lock.Unlock()
	head, err := ws.Head()
	if err != nil {
		return nil, "", err
	}
	files := map[string][]byte{}
	has := func(p string) bool {
		if head == "" {
			return false
		}
		_, ok, _ := ws.FileAt(head, p)
		return ok
	}
	if !has(ws.Model) {
		data, err := os.ReadFile(ws.ModelPath())
		switch {
		case err == nil:
			files[ws.Model] = data // the user's own model, committed as it is
		case errors.Is(err, os.ErrNotExist) && o.Seed != nil:
			files[ws.Model] = o.Seed
		case errors.Is(err, os.ErrNotExist):
			return nil, "", fmt.Errorf("no model at %s and none to start from", ws.Model)
		default:
			return nil, "", err
		}
	}
	inboxIgnore := o.Inbox + "/.gitignore"
	if !has(inboxIgnore) {
		files[inboxIgnore] = []byte(InboxIgnore)
	}
	if !has(".archiplan.yaml") {
		if data, err := os.ReadFile(filepath.Join(ws.Root, ".archiplan.yaml")); err == nil {
			files[".archiplan.yaml"] = data
		} else {
			files[".archiplan.yaml"] = []byte(DefaultConfig)
			if o.Model != "model.archimate" {
				// a model found at a path of its own is named (quoted: YAML reads Go's escapes)
				files[".archiplan.yaml"] = []byte(strings.Replace(DefaultConfig, "model: model.archimate", "model: "+strconv.Quote(o.Model), 1))
			}
		}
	}
	var ignore []byte
	if head != "" {
		ignore, _, _ = ws.FileAt(head, ".gitignore")
	}
	if !strings.Contains(string(ignore), "*.bak") {
		if len(ignore) > 0 && !strings.HasSuffix(string(ignore), "\n") {
			ignore = append(ignore, '\n')
		}
		files[".gitignore"] = append(ignore, []byte("# Archi's backups of the model\n*.bak\n")...)
	}
	var attrs []byte
	if head != "" {
		attrs, _, _ = ws.FileAt(head, ".gitattributes")
	}
	if a, changed := GitAttributes(attrs); changed {
		files[".gitattributes"] = a
	}
	if err := os.MkdirAll(filepath.Join(ws.Root, filepath.FromSlash(o.Inbox)), 0o755); err != nil {
		return nil, "", err
	}
	if err := ws.SetGitDrivers(); err != nil {
		return nil, "", err
	}
	if len(files) == 0 {
		return ws, head, nil
	}
	commit, err := ws.Publish(Change{Base: head, Files: files, Message: "archiplan: init workspace\n", Author: o.Author, When: time.Now()})
	return ws, commit, err
}

// DiffDriver is the git diff driver init registers for .archimate files.
const DiffDriver = "archimate"

// diffTextconv turns a model into words for git's diffs; where archiplan is not on the PATH (or
// cannot read the file) git shows the XML, as without it.
const diffTextconv = `sh -c 'archiplan textconv "$0" 2>/dev/null || cat "$0"'`

// setDiffDriver registers the text conversion in the repository's own git configuration.
func (w *Workspace) setDiffDriver() error {
	cfg, err := w.git().Config()
	if err != nil {
		return err
	}
	sec := cfg.Raw.Section("diff").Subsection(DiffDriver)
	if sec.Option("textconv") == diffTextconv {
		return nil
	}
	sec.SetOption("textconv", diffTextconv)
	return w.git().SetConfig(cfg)
}

// Identity is who approves on this machine: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, else git's
// user.name and user.email (repository, then global configuration), else the login name.
func (w *Workspace) Identity() Signature {
	s := Signature{Name: os.Getenv("GIT_AUTHOR_NAME"), Email: os.Getenv("GIT_AUTHOR_EMAIL")}
	if s.Name != "" && s.Email != "" {
		return s
	}
	if cfg, err := w.git().ConfigScoped(config.GlobalScope); err == nil {
		s = Signature{Name: cfg.User.Name, Email: cfg.User.Email}
	}
	if s.Name == "" {
		if u, err := user.Current(); err == nil {
			s.Name = u.Username
		} else {
			s.Name = "archiplan"
		}
	}
	if s.Email == "" {
		host, _ := os.Hostname()
		s.Email = s.Name + "@" + host
	}
	return s
}
