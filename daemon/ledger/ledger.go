// Package ledger is the operation under every front end (the daemon's loop, the command line, the
// review page): previewing a plan and recording what the preview bound, applying an approval
// (checked against that record, never against files in the inbox), reverting, syncing with a
// team's remote, the archive of applied plans and its one reader, commit messages and trailers,
// and the log read back from git. Every write to git happens in one locked section.
package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/internal/osfile"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// ArchiveDir is where applied plans are kept, committed with the change they made: outside the
// inbox, so nothing a planner writes can reach it.
const ArchiveDir = ".archiplan/applied"

// Verdicts the ledger adds to the checker's.
const (
	VerdictStale    = "stale"
	VerdictRejected = "rejected"
	VerdictApplied  = "applied"
)

var (
	// ErrRefused means the plan was not applied; the Result's report says why.
	ErrRefused = errors.New("plan refused")
	// ErrAlreadyApplied means these very plan bytes were applied before; Result.Commit names it.
	ErrAlreadyApplied = errors.New("plan already applied")
	// ErrRepreview means the policy or the plan's scope changed since its preview: the approval
	// was withdrawn and the plan is previewed again, never applied as it is.
	ErrRepreview = errors.New("previewed again")
)

// Config is what a ledger works on and with.
type Config struct {
	Workspace  *store.Workspace
	Inbox      *inbox.Inbox
	Options    plans.Options // policy and strictness; the scope is each plan's own
	Hooks      hooks.Runner
	ApprovedBy store.Signature
	Remote     Remote
	Logger     *slog.Logger
	Now        func() time.Time
	// Adopted, when set, honours approvals only of plan files this process's user owns: plans the
	// daemon adopted when it previewed them, which a planner writing into a sticky, group-writable
	// inbox cannot rename. A planner's own NAME.approved is rejected.
	Adopted bool
}

// Ledger applies, reverts and previews plans of one workspace. Its methods are safe for
// concurrent use; they take turns.
type Ledger struct {
	cfg Config
	log *slog.Logger

	mu sync.Mutex
	// the model at HEAD, kept between calls: parsed once per blob, and after an apply the model the
	// apply made, so that the daemon never parses what it just wrote
	model  *archixml.Model
	data   []byte // the bytes of blob, what an apply's inverse must give back
	blob   string
	commit string
	clean  stamp // the model file when last seen equal to blob
	// unproved, when set, reports whether model is still what data reads as (proveInHand's kept):
	// asked before the model is used again, which a command applying one plan never does
	unproved func() bool
	// problem is why Archi could not open the model at HEAD (nil when it could): no plan is
	// previewed valid or applied on such a model
	problem error
	// between runs a sync's locked writes between the daemon's passes (SetBetween)
	between func(func() error) error
	// made are the commits this ledger made, with the objects each changed as its plan's Effect
	// says (computed here, not read back from the commit): a batch of approvals asks what the
	// commits since a preview touched without parsing each one's model
	made map[string][]string
	// last is what made the last commit this ledger applied a plan in (Replay); read apart from
	// mu, by a publisher while the next apply runs
	last atomic.Pointer[Replay]
}

// Replay is what the ledger did to make one commit: the plan it applied to the model of Parent,
// under these options, and the model's bytes it committed (read only). Applying the plan again
// to another copy of Parent's model is a way to that commit's model without parsing its tens of
// megabytes (publish's update); whoever does so checks the bytes it gets against Data, and Data
// against the commit's blob.
type Replay struct {
	Commit, Parent string
	Plan           []byte
	Options        plans.Options
	Data           []byte
}

// Replay is what made commit, when it is the last commit this ledger applied a plan in.
func (l *Ledger) Replay(commit string) (Replay, bool) {
	if r := l.last.Load(); r != nil && r.Commit == commit {
		return *r, true
	}
	return Replay{}, false
}

// maxMade bounds the commits the ledger remembers it made (a daemon runs for months).
const maxMade = 4096

// remember records what a commit this ledger just made changed.
func (l *Ledger) remember(commit string, touched []string) {
	if l.made == nil || len(l.made) >= maxMade {
		l.made = map[string][]string{}
	}
	l.made[commit] = touched
}

// stamp is what the file system says of the model file, and the mtime of git's index when it was
// taken: when it is unchanged, so is the file, unless the file is racily clean (git's rule: its
// mtime is not older than the index's, so an edit in the same tick leaves the stamp as it was).
type stamp struct {
	size  int64
	mtime time.Time
	ino   uint64
	blob  string
	index time.Time
}

// New makes a ledger.
func New(cfg Config) *Ledger {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Hooks.Dir == "" && cfg.Workspace != nil {
		cfg.Hooks.Dir = cfg.Workspace.Root + "/hooks"
	}
	if cfg.Workspace != nil {
		cfg.Workspace.SetNet(cfg.Remote.Net)
	}
	return &Ledger{cfg: cfg, log: cfg.Logger.With("component", "ledger")}
}

// Workspace is the ledger's workspace.
func (l *Ledger) Workspace() *store.Workspace { return l.cfg.Workspace }

// Inbox is the ledger's inbox.
func (l *Ledger) Inbox() *inbox.Inbox { return l.cfg.Inbox }

// SetOptions changes the policy in force (the configuration was reloaded): previews made under
// another policy are made again, and approvals of them withdrawn.
func (l *Ledger) SetOptions(o plans.Options) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cfg.Options = o
}

// Options is the policy in force.
func (l *Ledger) Options() plans.Options {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.Options
}

// PolicyHash is what a record keeps of a policy: it changes when any of it changes.
func PolicyHash(o plans.Options) string {
	rules := ""
	if o.Rules != nil {
		rules = o.Rules.Hash()
	}
	b, _ := json.Marshal(struct {
		Policy plans.Policy
		Strict bool
		Rules  string `json:",omitempty"`
	}{o.Policy, o.Strict, rules})
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// scopeHash is what a record keeps of a plan's context: "" without one.
func scopeHash(ctx []byte) string {
	if ctx == nil {
		return ""
	}
	return inbox.Hash(ctx)
}

// Head is the model at HEAD.
type Head struct {
	Commit string
	Blob   string
	Model  *archixml.Model
	Data   []byte // the blob's bytes; never changed
}

// Info is the report's model information.
func (h *Head) Info(path string) plans.ModelInfo {
	return plans.ModelInfo{Path: path, Commit: h.Commit, Blob: h.Blob}
}

// Head is the model at HEAD, parsed only when its blob changed since the last call. Its Model is
// the ledger's, edited in place by applies: read it through ReadHead where one may run meanwhile.
func (l *Ledger) Head() (*Head, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head()
}

// ReadHead runs fn on the model at HEAD while nothing else uses the ledger. The model is the
// ledger's own, which an apply, a revert or a preview edits in place and undoes: a reader that
// may run beside them (the review page) reads it here, never through Head.
func (l *Ledger) ReadHead(fn func(*Head) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, err := l.head()
	if err != nil {
		return err
	}
	return fn(h)
}

func (l *Ledger) head() (*Head, error) {
	ws := l.cfg.Workspace
	commit, blob, err := ws.HeadBlob()
	if err != nil {
		return nil, err
	}
	if blob == l.blob && l.model != nil && l.unproved != nil {
		if !l.unproved() {
			l.forget() // not the model of data: read it again
		}
		l.unproved = nil
	}
	if blob == l.blob && l.model != nil {
		l.commit = commit
		return &Head{Commit: commit, Blob: blob, Model: l.model, Data: l.data}, nil
	}
	// the work tree's file is parsed while it is hashed, and used only when it is HEAD's blob
	// (40 ms at 100,000 elements off the apply's path); otherwise the blob is read from git
	before := l.stampOf(blob) // taken before the file is read: the stamp of what is hashed, or older
	var at *store.ModelAtHead
	var m *archixml.Model
	if data, same, rerr := ws.WorkTreeModel(blob); rerr == nil {
		ch := make(chan bool, 1)
		go func() { ch <- same() }()
		wm, werr := archixml.LoadOwned(data) // data is the ledger's, kept unchanged as l.data
		if <-ch {
			at, m, err = &store.ModelAtHead{Commit: commit, Blob: blob, Data: data}, wm, werr
		}
	}
	if at == nil {
		if at, err = ws.ReadModel(); err != nil {
			return nil, err
		}
		m, err = archixml.LoadOwned(at.Data)
	}
	if err != nil {
		return nil, fmt.Errorf("load %s at %s: %w", ws.Model, short(at.Commit), err)
	}
	l.model, l.data, l.blob, l.commit, l.unproved = m, at.Data, at.Blob, at.Commit, nil
	l.problem = nil
	if !ws.KnownClean(at.Blob) {
		if l.problem = archixml.Check(m); l.problem == nil {
			ws.MarkClean(at.Blob)
		}
	}
	if !at.Dirty {
		l.clean = before
	}
	// the objects with an id, counted by the index: counting elements walked the model (20 ms at
	// 100,000 elements) for a line the command line never shows
	l.log.Info("model at HEAD", "commit", short(at.Commit), "blob", short(at.Blob), "objects", m.Len())
	return &Head{Commit: at.Commit, Blob: at.Blob, Model: m, Data: at.Data}, nil
}

// forget drops the kept model: it was changed and not committed.
func (l *Ledger) forget() {
	l.model, l.data, l.blob, l.commit, l.problem, l.unproved = nil, nil, "", "", nil, nil
}

func (l *Ledger) stampOf(blob string) stamp {
	fi, err := os.Stat(l.cfg.Workspace.ModelPath())
	if err != nil {
		return stamp{}
	}
	st := stamp{size: fi.Size(), mtime: fi.ModTime(), blob: blob}
	st.ino = osfile.Ino(fi)
	if ix, err := os.Stat(l.cfg.Workspace.GitPath("index")); err == nil {
		st.index = ix.ModTime()
	}
	return st
}

// racy says whether a file seen clean with this stamp may have been edited since without its
// stamp showing it: its mtime is not older than the index's (both in the file system's clock),
// so a write in the same tick keeps the mtime, and only its bytes tell (git's racy-clean rule).
// Without an index, every stamp is racy.
func (st stamp) racy() bool { return st.index.IsZero() || !st.mtime.Before(st.index) }

// dirty says whether the model file differs from the blob at HEAD: from its stamp when the file
// is as it was last seen clean, else by hashing it.
func (l *Ledger) dirty(blob string) (bool, error) {
	st := l.stampOf(blob) // before the hash: the stamp of the bytes hashed, or older
	if st != (stamp{}) && st == l.clean && !st.racy() {
		return false, nil
	}
	d, err := l.cfg.Workspace.Dirty(blob)
	if err == nil && !d {
		l.clean = st
	}
	return d, err
}

// locked runs fn under the workspace's lock, after finishing whatever a crash interrupted: the
// one locked section every write to git goes through.
func (l *Ledger) locked(fn func() error) error {
	ws := l.cfg.Workspace
	lock, err := ws.Lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if _, err := ws.Recover(); err != nil {
		return fmt.Errorf("recover an interrupted apply: %w", err)
	}
	if _, err := RecoverAudit(ws); err != nil {
		l.log.Warn("the audit of an interrupted apply is not recorded", "err", err)
	}
	return fn()
}

// PlanID is a plan's id: its name and the start of its hash, so that the same bytes are known
// again under any name.
func PlanID(name, sha256 string) string { return name + "-" + sha256[:12] }

// PlanName is the NAME of a plan id (NAME-<12 hex>).
func PlanName(id string) string {
	if len(id) > 13 && id[len(id)-13] == '-' {
		return id[:len(id)-13]
	}
	return id
}

func short(h string) string { return store.Short(h) }

// Remote is the team remote the ledger syncs with.
func (l *Ledger) Remote() Remote { return l.cfg.Remote }
