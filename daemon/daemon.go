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
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Config is what a daemon serves and how.
type Config struct {
	Workspace  *store.Workspace
	Inbox      string // the inbox folder, absolute
	Options    plans.Options
	Hooks      hooks.Runner
	ApprovedBy store.Signature
	// Approver, when set, says who approved plan NAME with these bytes (the review page adds the
	// reviewer's name); nil means ApprovedBy.
	Approver func(name, planSHA256 string) store.Signature
	Logger   *slog.Logger

	Remote        Remote        // a team's git remote; the zero Remote means none
	FetchInterval time.Duration // with Remote.Pull, fetch at least this often (default 30 s)

	Debounce time.Duration // quiet time after events before a pass (default 100 ms)
	Rescan   time.Duration // full pass at least this often (default 30 s)
	Settle   time.Duration // a file changed more recently is not judged yet (default 300 ms)
	Grace    time.Duration // a truncated plan this recent is waited for, not refused (default 5 s)
}

// Daemon watches the inbox and reconciles it with HEAD: previews for new and changed plans and
// whenever HEAD moves, applies for approvals, cleanup for deleted plans. Events are hints; the
// pass, which reads the whole inbox and HEAD, is the engine, and it is idempotent.
type Daemon struct {
	cfg    Config
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// applyCtx is cancelled only on a hard stop: a graceful stop lets the apply in flight finish
	applyCtx    context.Context
	applyCancel context.CancelFunc

	mu         sync.Mutex
	model      *archixml.Model // the model at HEAD, cached by blob
	blob       string
	headCommit string
	seen       map[string]fileState // what the last pass judged, by file name
	// Passes counts reconcile passes, for tests and logs.
	Passes int
}

// fileState is what a pass knew of a plan file, so that an unchanged file against an unchanged
// HEAD is not read again.
type fileState struct {
	size    int64
	modTime time.Time
	blob    string
	commit  string
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
	return &Daemon{cfg: cfg, log: cfg.Logger.With("component", "daemon"), seen: map[string]fileState{}}
}

// Open starts watching and reconciling; it returns once the first full pass is done.
func (d *Daemon) Open(ctx context.Context) error {
	if err := os.MkdirAll(d.cfg.Inbox, 0o755); err != nil {
		return fmt.Errorf("inbox %s: %w", d.cfg.Inbox, err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	d.watch(w)
	d.applyCtx, d.applyCancel = context.WithCancel(context.Background())
	ctx, d.cancel = context.WithCancel(ctx)
	again := d.pass(ctx)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer w.Close()
		d.loop(ctx, w, again)
	}()
	return nil
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
	git := filepath.Join(d.cfg.Workspace.Root, ".git")
	for _, p := range []string{d.cfg.Inbox, filepath.Dir(d.cfg.Inbox), git, filepath.Join(git, "refs", "heads")} {
		_ = w.Add(p)
	}
}

func (d *Daemon) loop(ctx context.Context, w *fsnotify.Watcher, again time.Duration) {
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	rescan := time.NewTicker(d.cfg.Rescan)
	defer rescan.Stop()
	var fetch <-chan time.Time
	if d.cfg.Remote.Name != "" && (d.cfg.Remote.Pull || d.cfg.Remote.Push) {
		t := time.NewTicker(d.cfg.FetchInterval)
		defer t.Stop()
		fetch = t.C
	}
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
			if ev.Name == d.cfg.Inbox && ev.Op&(fsnotify.Create) != 0 {
				d.log.Info("inbox made again; watching it", "inbox", d.cfg.Inbox)
				d.watch(w)
			}
			debounce.Reset(d.cfg.Debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			// an overflowed queue lost events: only a full pass is sure to see everything
			d.log.Warn("watch error; full pass", "err", err)
			d.watch(w)
			debounce.Reset(d.cfg.Debounce)
		case <-rescan.C:
			d.watch(w)
			debounce.Reset(0)
		case <-retry:
			retry = nil
			debounce.Reset(0)
		case <-fetch:
			d.sync(ctx)
			debounce.Reset(0)
		case <-debounce.C:
			if again := d.pass(ctx); again > 0 {
				retry = time.After(again)
			}
		}
	}
}

// Plan file names in the inbox.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") || strings.HasSuffix(name, "~") ||
		strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".part") ||
		strings.Contains(name, ".tmp-")
}

type planFile struct {
	name  string // NAME
	file  string // the file's name in the inbox
	state string // pending, approved, rejected
	info  fs.FileInfo
}

// classify reads the inbox: plan files by name, and the previews and reports it holds.
func (d *Daemon) classify() ([]planFile, map[string]bool, error) {
	entries, err := os.ReadDir(d.cfg.Inbox)
	if err != nil {
		return nil, nil, err
	}
	var out []planFile
	outputs := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if isTemp(n) || e.IsDir() && !strings.HasSuffix(n, ".json") {
			continue
		}
		switch {
		case strings.HasSuffix(n, ".preview.md"), strings.HasSuffix(n, ".report.json"):
			outputs[n] = true
			continue
		case strings.HasSuffix(n, ".context.json"):
			continue
		}
		p := planFile{file: n}
		switch {
		case strings.HasSuffix(n, ".json.approved"):
			p.name, p.state = strings.TrimSuffix(n, ".json.approved"), "approved"
		case strings.HasSuffix(n, ".approved"):
			p.name, p.state = strings.TrimSuffix(n, ".approved"), "approved"
		case strings.HasSuffix(n, ".rejected"):
			p.name, p.state = strings.TrimSuffix(n, ".rejected"), "rejected"
		case strings.HasSuffix(n, ".json"):
			p.name, p.state = strings.TrimSuffix(n, ".json"), "pending"
		default:
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		p.info = info
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file < out[j].file })
	return out, outputs, nil
}

// pass reconciles the whole inbox with HEAD once. It returns how soon another pass is needed for
// files that were still being written (0 when none).
func (d *Daemon) pass(ctx context.Context) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.Passes++
	if err := d.loadModel(); err != nil {
		d.log.Error("cannot read the model at HEAD; waiting", "err", err)
		return d.cfg.Settle * 10
	}
	files, outputs, err := d.classify()
	if errors.Is(err, fs.ErrNotExist) {
		return 0 // the inbox is gone; its parent's watch sees it come back
	}
	if err != nil {
		d.log.Error("read inbox", "err", err)
		return d.cfg.Settle * 10
	}
	var again time.Duration
	// one file per plan name: an approval outranks a rejection, which outranks a pending plan,
	// so a NAME.json left beside NAME.approved cannot overwrite what the approval came to
	rank := map[string]int{"pending": 0, "rejected": 1, "approved": 2}
	top := map[string]planFile{}
	for _, p := range files {
		if cur, ok := top[p.name]; !ok || rank[p.state] > rank[cur.state] {
			top[p.name] = p
		}
	}
	names := map[string]bool{}
	for _, p := range files {
		names[p.name] = true
	}
	for _, p := range files {
		if top[p.name].file != p.file {
			continue
		}
		if ctx.Err() != nil {
			return 0
		}
		var wait time.Duration
		switch p.state {
		case "pending":
			wait = d.preview(p)
		case "approved":
			wait = d.approve(p)
		}
		if wait > 0 && (again == 0 || wait < again) {
			again = wait
		}
	}
	// the preview and report of a plan that is gone go too
	for o := range outputs {
		name := strings.TrimSuffix(strings.TrimSuffix(o, ".preview.md"), ".report.json")
		if !names[name] {
			os.Remove(filepath.Join(d.cfg.Inbox, o))
			delete(d.seen, name)
		}
	}
	return again
}

// loadModel brings the cached model to HEAD; previews never re-parse (or even re-read) an
// unchanged model.
func (d *Daemon) loadModel() error {
	commit, blob, err := d.cfg.Workspace.HeadBlob()
	if err != nil {
		return err
	}
	d.headCommit = commit
	if blob == d.blob && d.model != nil {
		return nil
	}
	head, err := d.cfg.Workspace.ReadModel()
	if err != nil {
		return err
	}
	m, err := archixml.Load(head.Data)
	if err != nil {
		return fmt.Errorf("load %s at %s: %w", d.cfg.Workspace.Model, short(head.Commit), err)
	}
	d.model, d.blob, d.headCommit = m, head.Blob, head.Commit
	d.log.Info("model at HEAD", "commit", short(head.Commit), "blob", short(head.Blob), "elements", len(m.Elements()))
	return nil
}

func (d *Daemon) path(name string) string { return filepath.Join(d.cfg.Inbox, name) }

// readPlan reads a plan file safely: regular files only (symlinks and special files are never
// followed or read), no bigger than the limit.
func (d *Daemon) readPlan(p planFile) ([]byte, *plans.Finding) {
	refuse := func(format string, args ...any) ([]byte, *plans.Finding) {
		f := plans.Finding{Severity: plans.Error, Code: plans.ExtractNotRegular, Message: fmt.Sprintf(format, args...)}
		return nil, &f
	}
	if !p.info.Mode().IsRegular() {
		return refuse("%s is a %s, not a regular file: archiplan never follows or reads those", p.file, kindOfMode(p.info.Mode()))
	}
	if p.info.Size() > plans.MaxPlanBytes {
		f := plans.Finding{Severity: plans.Error, Code: plans.ExtractTooLarge,
			Message: fmt.Sprintf("the plan is %d bytes, over the limit of %d", p.info.Size(), plans.MaxPlanBytes)}
		return nil, &f
	}
	f, err := os.OpenFile(d.path(p.file), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return refuse("cannot open %s: %v", p.file, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, plans.MaxPlanBytes+1))
	if err != nil {
		return refuse("cannot read %s: %v", p.file, err)
	}
	if len(data) > plans.MaxPlanBytes {
		return nil, &plans.Finding{Severity: plans.Error, Code: plans.ExtractTooLarge, Message: "the plan grew over the size limit while being read"}
	}
	return data, nil
}

func kindOfMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}

func (d *Daemon) info() plans.ModelInfo {
	return plans.ModelInfo{Path: d.cfg.Workspace.Model, Commit: d.headCommit, Blob: d.blob}
}

// preview judges a pending plan, unless it is unchanged against an unchanged HEAD, or still being
// written (then it returns how long to wait).
func (d *Daemon) preview(p planFile) time.Duration {
	st := fileState{size: p.info.Size(), modTime: p.info.ModTime(), blob: d.blob, commit: d.headCommit}
	if prev, ok := d.seen[p.name]; ok && prev == st && exists(d.path(p.name+".report.json")) {
		return 0
	}
	if age := time.Since(p.info.ModTime()); age < d.cfg.Settle {
		return d.cfg.Settle - age + 10*time.Millisecond
	}
	raw, bad := d.readPlan(p)
	var o *plans.Outcome
	if bad != nil {
		o = &plans.Outcome{SHA256: plans.SHA256(raw), Verdict: plans.VerdictInvalid, Findings: []plans.Finding{*bad}}
	} else {
		scope, err := ContextScope(d.path(p.name + ".context.json"))
		opts := d.cfg.Options
		opts.Scope = scope
		o = plans.Check(raw, d.model, opts)
		if err != nil {
			o.Findings = append(o.Findings, plans.Finding{Severity: plans.Error, Code: plans.PolicyOutOfScope,
				Message: "the plan's context cannot be read: " + err.Error()})
			o.Verdict = plans.VerdictInvalid
		}
		// a plan cut off mid-write is waited for a while before it is refused as truncated
		if truncated(o) && time.Since(p.info.ModTime()) < d.cfg.Grace {
			return d.cfg.Grace - time.Since(p.info.ModTime()) + 10*time.Millisecond
		}
	}
	if cur, err := d.currentReport(p.name); err == nil && cur.Plan.SHA256 == o.SHA256 && cur.Model.Blob == d.blob &&
		cur.Verdict == o.Verdict && (cur.Model.Commit == d.headCommit) {
		d.seen[p.name] = st
		return 0
	}
	d.writeOutputs(p.name, p.file, o, nil, "")
	d.seen[p.name] = st
	d.log.Info("previewed", "plan", p.file, "verdict", o.Verdict, "errors", len(o.Errors()), "warnings", len(o.Warnings()))
	return 0
}

func truncated(o *plans.Outcome) bool {
	for _, f := range o.Errors() {
		if f.Code == plans.ExtractTruncated || f.Code == plans.ExtractEmpty {
			return true
		}
	}
	return false
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func (d *Daemon) currentReport(name string) (*plans.Report, error) {
	data, err := os.ReadFile(d.path(name + ".report.json"))
	if err != nil {
		return nil, err
	}
	var r plans.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// writeOutputs writes NAME.report.json and NAME.preview.md atomically.
func (d *Daemon) writeOutputs(name, file string, o *plans.Outcome, report *plans.Report, preview string) {
	if report == nil {
		report = o.Report(file, d.info())
	}
	pv := []byte(preview)
	if preview == "" {
		pv = o.Preview(file, d.info())
	}
	// the preview first: the report is what programs wait for, so when it is there, both are
	if err := store.WriteFileAtomic(d.path(name+".preview.md"), pv, 0o644); err != nil {
		d.log.Error("write preview", "plan", file, "err", err)
	}
	if err := store.WriteFileAtomic(d.path(name+".report.json"), report.JSON(), 0o644); err != nil {
		d.log.Error("write report", "plan", file, "err", err)
	}
}

// approve applies an approved plan through the shared apply path; a refused one becomes
// NAME.rejected with the reason in its report and preview.
func (d *Daemon) approve(p planFile) time.Duration {
	if age := time.Since(p.info.ModTime()); age < d.cfg.Settle && p.info.Mode().IsRegular() {
		// a rename keeps the time the plan was written; only a plan written in place is this young
		if _, err := d.currentReport(p.name); err != nil {
			return d.cfg.Settle - age + 10*time.Millisecond
		}
	}
	raw, bad := d.readPlan(p)
	if bad != nil {
		o := &plans.Outcome{SHA256: plans.SHA256(raw), Verdict: VerdictRejected, Findings: []plans.Finding{*bad}}
		d.reject(p, o, nil, bad.Message)
		return 0
	}
	prev, err := d.currentReport(p.name)
	if err != nil {
		o := &plans.Outcome{SHA256: plans.SHA256(raw), Verdict: VerdictRejected}
		d.reject(p, o, nil, "approved before archiplan previewed it: rename it back to .json, read the preview, then approve")
		return 0
	}
	scope, _ := ContextScope(d.path(p.name + ".context.json"))
	opts := d.cfg.Options
	opts.Scope = scope
	if d.cfg.Remote.Pull {
		if err := Pull(d.applyCtx, d.cfg.Workspace, d.cfg.Remote); err != nil {
			d.log.Warn("pull before apply failed; applying on the local branch", "err", err)
		}
	}
	by := d.cfg.ApprovedBy
	if d.cfg.Approver != nil {
		by = d.cfg.Approver(p.name, sha(raw))
	}
	res, err := Apply(d.applyCtx, d.cfg.Workspace, Request{Name: p.name, File: d.path(p.file), Raw: raw, Previewed: prev,
		ReportFile: d.path(p.name + ".report.json"), Options: opts, ApprovedBy: by, Hooks: d.cfg.Hooks})
	if err != nil && d.applyCtx.Err() != nil {
		// cancelled by a hard stop: not the plan's fault; it stays approved for the next start
		d.log.Warn("apply cancelled; the plan stays approved", "plan", p.file)
		return 0
	}
	switch {
	case err == nil, errors.Is(err, ErrAlreadyApplied):
		for _, f := range []string{p.file, p.name + ".preview.md", p.name + ".report.json", p.name + ".context.json"} {
			os.Remove(d.path(f))
		}
		delete(d.seen, p.name)
		if err != nil {
			d.log.Info("already applied; inbox cleared", "plan", p.file, "commit", short(res.Commit))
		} else {
			d.log.Info("applied", "plan", p.file, "id", res.PlanID, "commit", short(res.Commit))
		}
		if err == nil && d.cfg.Remote.Push {
			d.push(res.PlanID)
		}
		if lerr := d.loadModel(); lerr != nil {
			d.log.Error("reload the model", "err", lerr)
		}
	case errors.Is(err, ErrRefused):
		d.reject(p, res.Outcome, res.Report, string(res.Preview))
	case errors.Is(err, store.ErrLocked):
		d.log.Info("workspace locked by another process; retrying", "plan", p.file)
		return time.Second
	default:
		d.log.Error("apply failed; retrying", "plan", p.file, "err", err)
		return 5 * time.Second
	}
	return 0
}

// sync pulls and pushes on the fetch timer: what others pushed comes in (previews follow), what
// could not be pushed before goes out.
func (d *Daemon) sync(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cfg.Remote.Pull {
		if err := Pull(d.applyCtx, d.cfg.Workspace, d.cfg.Remote); err != nil && !errors.Is(err, store.ErrLocked) {
			d.log.Warn("pull failed", "remote", d.cfg.Remote.Name, "err", err)
		}
	}
	if d.cfg.Remote.Push {
		d.push("")
	}
}

// push pushes the branch and reports the plans the remote made stale.
func (d *Daemon) push(applied string) {
	res, err := Sync(d.applyCtx, d.cfg.Workspace, d.cfg.Remote, d.cfg.Options)
	if err != nil {
		d.log.Warn("push failed; the commit stays local and is retried", "remote", d.cfg.Remote.Name, "err", err)
	}
	if res == nil {
		return
	}
	if res.Pushed {
		d.log.Info("pushed", "remote", d.cfg.Remote.Name, "plan", applied, "rebased", res.Rebased)
	}
	for _, dr := range res.Dropped {
		if dr.Raw == nil { // a revert made stale: nothing in the inbox to reject
			d.log.Warn("a revert was made stale by the remote", "plan", dr.PlanID, "reason", dr.Reason)
			continue
		}
		name := PlanName(dr.PlanID)
		o := &plans.Outcome{SHA256: plans.SHA256(dr.Raw), Verdict: VerdictStale}
		report := o.Report(name+".rejected", d.info())
		report.Verdict, report.Reason = VerdictStale, dr.Reason
		preview := "# Plan " + name + " was applied locally, then made stale by the remote\n\n" + dr.Reason + "\n"
		d.writeOutputs(name, name+".rejected", o, report, preview)
		if err := store.WriteFileAtomic(d.path(name+".rejected"), dr.Raw, 0o644); err != nil {
			d.log.Error("write rejected plan", "plan", name, "err", err)
			continue
		}
		d.log.Info("rejected as stale after a push race", "plan", name, "reason", dr.Reason)
	}
}

// reject renames an approved plan to NAME.rejected and writes why: the report and preview the
// apply path made (preview given), or ones saying reason.
func (d *Daemon) reject(p planFile, o *plans.Outcome, report *plans.Report, preview string) {
	reason := preview
	if report == nil {
		report = o.Report(p.file, d.info())
		report.Verdict, report.Reason = VerdictRejected, reason
		preview = string(o.Preview(p.file, d.info())) + "\n## Not applied\n\n" + reason + "\n"
	} else {
		reason = report.Reason
	}
	// why first, then the rename: whoever sees NAME.rejected finds the report saying why
	d.writeOutputs(p.name, p.name+".rejected", o, report, preview)
	if err := os.Rename(d.path(p.file), d.path(p.name+".rejected")); err != nil {
		d.log.Error("rename to .rejected", "plan", p.file, "err", err)
		return
	}
	delete(d.seen, p.name)
	d.log.Info("rejected", "plan", p.file, "reason", firstLine(reason))
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// ContextScope reads the ids a planning context file lists, when there is one: the scope of the
// plan beside it. No file means no scope (nil).
func ContextScope(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return plans.ScopeFromContext(data)
}
