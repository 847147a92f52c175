package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/osfile"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Config is what a daemon serves and how.
type Config struct {
	Ledger *ledger.Ledger // the workspace, its inbox and the operation on them
	// Reload reads the configuration again, when its file changed: the policy it returns is in
	// force from the next pass on. Nil: never reloaded.
	Reload     func() (plans.Options, error)
	ConfigFile string // the configuration file watched for Reload (absolute); "" for none
	PolicyDir  string // the folder of the workspace's rules (policy/), watched for Reload too
	Remote     ledger.Remote
	Logger     *slog.Logger
	// Adopt makes every plan the daemon's own before previewing it (see inbox.Adopt): with the
	// ledger's Adopted, a planner cannot approve its own plans.
	Adopt bool

	FetchInterval time.Duration // with Remote.Pull, fetch at least this often (default 30 s)
	Debounce      time.Duration // quiet time after events before a pass (default 100 ms)
	Rescan        time.Duration // full pass at least this often (default 30 s)
	Settle        time.Duration // a file changed more recently is not judged yet (default 300 ms)
	Grace         time.Duration // a truncated plan this recent is waited for, not refused (default 5 s)

	// Publish, when set, writes the static site of the model at a commit (publish.Publish, into the
	// configuration's publish folder). It runs apart from the passes whenever HEAD's commit is
	// not the one last published: at start, after each apply and revert, after a sync. Its
	// failure is logged; it never fails an apply.
	Publish func(commit string) error

	// Deliver, when set, delivers plans as pull requests (deliver: pull-request): it opens one
	// for each plan previewed and applies those approved on the forge. It runs apart from the
	// passes, after a pass that previewed a plan and on the fetch timer; its failure is logged.
	Deliver func(ctx context.Context) error
}

// Daemon watches the inbox and reconciles it with HEAD: previews for new and changed plans and
// whenever HEAD or the policy moves, applies for approvals, cleanup for deleted plans. Events are
// hints; the pass, which reads the whole inbox and HEAD, is the engine, and it is idempotent.
type Daemon struct {
	cfg    Config
	led    *ledger.Ledger
	box    *inbox.Inbox
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// applyCtx is cancelled only on a hard stop: a graceful stop lets the apply in flight finish
	applyCtx    context.Context
	applyCancel context.CancelFunc

	mu       sync.Mutex
	seen     map[string]fileState // what the last pass judged, by NAME
	cfgStamp fileStamp            // the configuration file when last read
	polStamp string               // the policy folder's files when last read
	retries  map[string]retry     // approvals that failed for a reason not theirs, by NAME
	taken    map[string]bool      // plans a planner's directory at an output's name blocks: its going starts a pass
	unsafe   map[string]bool      // unsafe names already reported
	headErr  string               // why the model at HEAD cannot be read, "" when it can
	// Passes counts reconcile passes, for tests and logs.
	Passes int
	// starting counts passes that began, before they take mu: a test holding mu sees one wait.
	starting atomic.Int64
	// Changed, when set, is called after each pass that changed something in the inbox (for the
	// review page's live updates).
	Changed func()
	kick    chan struct{}
	// syncKick asks the syncer for a sync soon (after an apply)
	syncKick chan struct{}
	// pubKick asks the publisher to look at HEAD (after each pass)
	pubKick chan struct{}
	// deliverKick asks the deliverer to look at the inbox (nil without Config.Deliver)
	deliverKick chan struct{}
	// waiting counts the front ends (the syncer, the review page) waiting in Exclusive: a pass
	// yields to them between plans (it is idempotent; the next pass goes on where it stopped)
	waiting atomic.Int32
}

// fileStamp is what the file system says of a file: unchanged stamp, unchanged file.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
	ok    bool
}

func stampOf(fi fs.FileInfo) fileStamp {
	if fi == nil {
		return fileStamp{}
	}
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime(), ok: true}
	st.ino = osfile.Ino(fi)
	return st
}

// dirStamp is the stamp of every file in a folder ("" without one): it changes when a file is
// added, removed, renamed or written.
func dirStamp(dir string) string {
	if dir == "" {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s\x00%v\x00", e.Name(), lstamp(filepath.Join(dir, e.Name())))
	}
	return b.String()
}

func lstamp(path string) fileStamp {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}
	}
	return stampOf(fi)
}

// fileState is what a pass knew of a plan, so that an unchanged plan against an unchanged HEAD,
// policy and context, with its preview as written, is not read again.
type fileState struct {
	plan    fileStamp
	context fileStamp
	preview fileStamp // the preview as the daemon wrote it: a forged one is written again
	report  fileStamp // and the report
	blob    string
	commit  string
	policy  string
}

// retry is an approval that failed for a reason not its own, and when to try it again: the delay
// doubles up to a minute, so that the daemon's own writes to .git never drive a busy loop.
type retry struct {
	at    time.Time
	delay time.Duration
}

// New makes a daemon; Open starts it.
func New(cfg Config) *Daemon {
	if cfg.Debounce <= 0 {
		cfg.Debounce = 100 * time.Millisecond
	}
	if cfg.Rescan <= 0 {
		cfg.Rescan = 30 * time.Second
	}
	if cfg.Settle <= 0 {
		cfg.Settle = 300 * time.Millisecond
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 5 * time.Second
	}
	if cfg.FetchInterval <= 0 {
		cfg.FetchInterval = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d := &Daemon{cfg: cfg, led: cfg.Ledger, box: cfg.Ledger.Inbox(), log: cfg.Logger.With("component", "daemon"),
		seen: map[string]fileState{}, retries: map[string]retry{}, taken: map[string]bool{}, unsafe: map[string]bool{}, syncKick: make(chan struct{}, 1),
		pubKick: make(chan struct{}, 1)}
	if cfg.Deliver != nil {
		d.deliverKick = make(chan struct{}, 1)
	}
	// a sync's writes after the network (a fast-forward, a rebase, the rejections it writes into
	// the inbox) take turns with the passes, as the passes' own writes do
	cfg.Ledger.SetBetween(d.Exclusive)
	if cfg.ConfigFile != "" {
		d.cfgStamp = lstamp(cfg.ConfigFile)
	}
	d.polStamp = dirStamp(cfg.PolicyDir)
	return d
}

// Ledger is the daemon's ledger.
func (d *Daemon) Ledger() *ledger.Ledger { return d.led }

// HeadError says why the model at HEAD cannot be read ("" when it can).
func (d *Daemon) HeadError() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.headErr
}

// Kick asks for a pass soon (after a change made through another front end).
func (d *Daemon) Kick() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Exclusive runs fn between passes, never during one: for a front end (the review page) whose
// change to the inbox writes outputs then renames, which a pass in between would take for a
// forged preview and write over.
func (d *Daemon) Exclusive(fn func() error) error {
	d.waiting.Add(1) // a pass in flight stops at its next plan and is taken up again after fn
	d.mu.Lock()
	d.waiting.Add(-1)
	defer d.mu.Unlock()
	return fn()
}

// Open starts watching and reconciling; it returns once the first full pass is done.
func (d *Daemon) Open(ctx context.Context) error {
	if err := os.MkdirAll(d.box.Dir, 0o755); err != nil {
		return fmt.Errorf("inbox %s: %w", d.box.Dir, err)
	}
	d.kick = make(chan struct{}, 1)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	d.watch(w)
	if err := d.led.Recover(); err != nil && !errors.Is(err, store.ErrLocked) {
		d.log.Warn("recover what a crash left", "err", err)
	}
	d.applyCtx, d.applyCancel = context.WithCancel(context.Background())
	ctx, d.cancel = context.WithCancel(ctx)
	again := d.pass(ctx)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer w.Close()
		d.loop(ctx, w, again)
	}()
	if d.cfg.Publish != nil {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.publisher(ctx)
		}()
	}
	if d.cfg.Deliver != nil {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.deliverer(ctx)
		}()
	}
	if d.cfg.Remote.Name != "" && (d.cfg.Remote.Pull || d.cfg.Remote.Push) {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.syncer(ctx)
		}()
	}
	return nil
}

// syncer talks to the team's remote, apart from the passes: on the fetch timer, and after each
// apply. A remote that hangs holds up no approval or preview (the network holds neither the pass
// nor the workspace's lock), and stopping the daemon ends a sync in flight at once.
func (d *Daemon) syncer(ctx context.Context) {
	// a daemon (re)started is a person's act, as archiplan sync is: an earlier credential
	// failure's backoff, persisted for status, is not waited out (the cause may be fixed)
	if ws := d.led.Workspace(); !ws.RemoteState().RetryAfter.IsZero() {
		ws.TryNow()
	}
	t := time.NewTicker(d.cfg.FetchInterval)
	defer t.Stop()
	for {
		pull := true
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.syncKick:
			// after an apply: the push alone (one connection); it fetches only when the remote
			// moved, and the timer pulls
			pull = false
		}
		d.sync(ctx, pull)
		d.Kick()
	}
}

// publisher writes the site again whenever HEAD's commit is not the one it last wrote: the pass
// after an apply, a revert or a sync kicks it. One site is written at a time, and a commit that
// fails is not tried again until HEAD moves (the next apply), so a broken folder costs a log line
// per commit, never a loop.
func (d *Daemon) publisher(ctx context.Context) {
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.pubKick:
		}
		head, err := d.led.Head()
		if err != nil || head.Commit == last {
			continue
		}
		last = head.Commit
		st := publishState{FormatVersion: 1, Commit: head.Commit, Time: time.Now().UTC().Format(time.RFC3339)}
		if err := d.cfg.Publish(head.Commit); err != nil {
			st.Error = err.Error()
			d.log.Error("publish failed; the model and its commits are as they were", "commit", store.Short(head.Commit), "err", err)
		} else {
			d.log.Info("published", "commit", store.Short(head.Commit))
		}
		// the last attempt, where whoever runs the daemon (and a test) can read it
		b, _ := json.MarshalIndent(st, "", " ")
		_ = store.WriteFileAtomic(d.led.Workspace().GitPath(PublishStateFile), append(b, '\n'), 0o644)
	}
}

// PublishStateFile, under .git/, says how the daemon's last publish went.
const PublishStateFile = "archiplan-publish.json"

// publishState is what PublishStateFile holds.
type publishState struct {
	FormatVersion int    `json:"format_version"`
	Commit        string `json:"commit"`
	Time          string `json:"time"`
	Error         string `json:"error,omitempty"` // "" when the site was written
}

// kickPublish asks the publisher to look at HEAD.
func (d *Daemon) kickPublish() {
	select {
	case d.pubKick <- struct{}{}:
	default:
	}
}

// kickSync asks the syncer for a sync soon.
func (d *Daemon) kickSync() {
	select {
	case d.syncKick <- struct{}{}:
	default:
	}
}

// Close stops the daemon gracefully: the pass in flight (and its apply) finishes, then it
// returns.
func (d *Daemon) Close() error {
	if d.cancel != nil {
		d.cancel()
	}
	d.wg.Wait()
	if d.applyCancel != nil {
		d.applyCancel()
	}
	return nil
}

// Abort cancels the apply in flight (its hooks are killed) and stops; for a second signal.
func (d *Daemon) Abort() {
	if d.applyCancel != nil {
		d.applyCancel()
	}
	if d.cancel != nil {
		d.cancel()
	}
}

// watch (re)adds the watches: the inbox, its parent (to see the inbox removed and made again),
// and git's folder and branch refs (to see HEAD move). A watch that cannot be added is retried
// by the next call; the timer's full pass covers the gap.
func (d *Daemon) watch(w *fsnotify.Watcher) {
	git := filepath.Join(d.led.Workspace().Root, ".git")
	dirs := []string{d.box.Dir, filepath.Dir(d.box.Dir), git, filepath.Join(git, "refs", "heads")}
	if d.cfg.ConfigFile != "" {
		dirs = append(dirs, filepath.Dir(d.cfg.ConfigFile))
	}
	if d.cfg.PolicyDir != "" {
		dirs = append(dirs, d.cfg.PolicyDir)
	}
	for _, p := range dirs {
		_ = w.Add(p)
	}
}

// coalesce is how long the first event after a quiet time waits for the ones that come with it
// (the create and the write of one file) before its pass starts.
const coalesce = 2 * time.Millisecond

// loop runs a pass for each burst of events: the first event after a quiet time starts one at
// once (after coalesce), and the events during and after a pass start the next no sooner than
// Debounce after it, so a stream of events makes a pass per Debounce, not one per event. Events
// of archiplan's own writes (its temporary files, a preview or report as it wrote them) start
// none. A rescan, a retry, a fetch and a kick start one at once.
func (d *Daemon) loop(ctx context.Context, w *fsnotify.Watcher, again time.Duration) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var due, last time.Time // when the armed pass starts (zero: none armed); when the last ended
	schedule := func(at time.Time) {
		if due.IsZero() || at.Before(due) {
			timer.Reset(time.Until(at))
			due = at
		}
	}
	soon := func() {
		at := time.Now().Add(min(coalesce, d.cfg.Debounce))
		if next := last.Add(d.cfg.Debounce); next.After(at) {
			at = next
		}
		schedule(at)
	}
	rescan := time.NewTicker(d.cfg.Rescan)
	defer rescan.Stop()
	var retry <-chan time.Time
	if again > 0 {
		retry = time.After(again)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Name == d.box.Dir && ev.Op&(fsnotify.Create) != 0 {
				d.log.Info("inbox made again; watching it", "inbox", d.box.Dir)
				d.watch(w)
			}
			if !d.ours(ev) {
				soon()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			// an overflowed queue lost events: only a full pass is sure to see everything
			d.log.Warn("watch error; full pass", "err", err)
			d.watch(w)
			soon()
		case <-rescan.C:
			d.watch(w)
			schedule(time.Now())
		case <-retry:
			retry = nil
			schedule(time.Now())
		case <-d.kick:
			schedule(time.Now())
		case <-timer.C:
			due = time.Time{}
			again := d.pass(ctx)
			last = time.Now()
			if again > 0 {
				retry = time.After(again)
			}
		}
	}
}

// ours says whether an event is of archiplan's own write, which no pass needs to see: a hidden
// or temporary file of the inbox (what is renamed into place makes an event of its own), or a
// preview, report or picture of a plan the last pass judged, still as that pass wrote it, or of
// no plan and gone (a pass removed it). A
// preview or report written over by someone else is not ours, and starts a pass that writes it
// again.
func (d *Daemon) ours(ev fsnotify.Event) bool {
	if filepath.Dir(ev.Name) != d.box.Dir {
		return false
	}
	name, kind, _ := inbox.Parse(filepath.Base(ev.Name))
	switch kind {
	case inbox.KindTemp:
		return true
	case inbox.KindPreview, inbox.KindReport, inbox.KindPicture:
	default:
		return false
	}
	if !d.mu.TryLock() {
		return false // a pass or a front end holds it: a pass more is harmless
	}
	defer d.mu.Unlock()
	st, ok := d.seen[name]
	switch {
	case d.taken[name]:
		return false
	case !ok:
		// an output of no plan the daemon judged: one still there is for a pass to remove; one
		// gone (the pass that removed it made this event) needs no pass
		return !lstamp(ev.Name).ok
	case kind == inbox.KindPicture:
		return true // pictures are checked at the approval, against the record
	case kind == inbox.KindPreview:
		return st.preview.ok && lstamp(ev.Name) == st.preview
	default:
		return st.report.ok && lstamp(ev.Name) == st.report
	}
}
