package daemon

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// pass reconciles the whole inbox with HEAD and the policy once. It returns how soon another
// pass is needed for files that were still being written or approvals to retry (0 when none).
func (d *Daemon) pass(ctx context.Context) time.Duration {
	d.starting.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.kickPublish() // HEAD may have moved: an apply, or a revert or sync seen by this pass
	d.Passes++
	d.reload()
	head, err := d.led.Head()
	if err != nil {
		if d.headErr != err.Error() {
			d.log.Error("cannot read the model at HEAD; waiting", "err", err)
		}
		d.headErr = err.Error()
		return d.cfg.Settle * 10
	}
	d.headErr = ""
	l, err := d.box.List()
	if errors.Is(err, fs.ErrNotExist) {
		return 0 // the inbox is gone; its parent's watch sees it come back
	}
	if err != nil {
		d.log.Error("read inbox", "err", err)
		return d.cfg.Settle * 10
	}
	for _, f := range l.Unsafe {
		if !d.unsafe[f] {
			d.unsafe[f] = true
			d.log.Warn("a plan file whose name is not safe is left alone: rename it", "pattern", inbox.NamePattern)
		}
	}
	changed := false
	var again time.Duration
	soon := func(w time.Duration) {
		if w > 0 && (again == 0 || w < again) {
			again = w
		}
	}
	policy := ledger.PolicyHash(d.led.Options())
	names := map[string]bool{}
	handled := 0
	for _, p := range l.Plans {
		names[p.Name] = true
		if ctx.Err() != nil {
			return 0
		}
		if handled > 0 && d.waiting.Load() > 0 { // at least one plan per pass: progress under a busy syncer
			// a sync's or the page's writes go first; the next pass goes on after them (the
			// cleanup below needs the whole listing, so none happens in a pass cut short)
			if changed && d.Changed != nil {
				d.Changed()
			}
			return time.Millisecond
		}
		handled++
		switch p.State {
		case inbox.Pending:
			w, did := d.preview(p, head, policy)
			soon(w)
			changed = changed || did
		case inbox.Approved:
			w := d.approve(p)
			soon(w)
			changed = changed || w == 0
		}
	}
	// the outputs and record of a plan that is gone go too
	for name, files := range l.Outputs {
		if !names[name] && !d.box.HasPlan(name) {
			d.led.Withdrawn(name)
			d.box.RemoveOutputs(name, files)
			delete(d.seen, name)
			changed = true
		}
	}
	for name := range d.retries {
		if !names[name] {
			delete(d.retries, name)
		}
	}
	for name := range d.taken {
		if !names[name] {
			delete(d.taken, name) // the plan went: a directory of its NAME blocks nothing now
		}
	}
	unsafe := map[string]bool{}
	for _, f := range l.Unsafe {
		unsafe[f] = true
	}
	for f := range d.unsafe {
		if !unsafe[f] {
			delete(d.unsafe, f) // renamed or gone: said again should it come back
		}
	}
	if changed && d.Changed != nil {
		d.Changed()
	}
	return again
}

// reload reads the configuration again when its file changed.
func (d *Daemon) reload() {
	if d.cfg.Reload == nil || d.cfg.ConfigFile == "" {
		return
	}
	st, pst := lstamp(d.cfg.ConfigFile), dirStamp(d.cfg.PolicyDir)
	if st == d.cfgStamp && pst == d.polStamp {
		return
	}
	opts, err := d.cfg.Reload()
	if err != nil {
		d.log.Error("the configuration cannot be read; the policy in force stays", "file", d.cfg.ConfigFile, "err", err)
		return // tried again when the file changes again
	}
	d.cfgStamp, d.polStamp = st, pst
	d.led.SetOptions(opts)
	d.log.Info("configuration reloaded; plans are previewed again under its policy", "file", d.cfg.ConfigFile)
}

// preview judges a pending plan, unless it is unchanged against an unchanged HEAD, policy and
// context with its preview as written, or still being written (then it returns how long to
// wait).
func (d *Daemon) preview(p inbox.Entry, head *ledger.Head, policy string) (time.Duration, bool) {
	st := fileState{plan: stampOf(p.Info), context: lstamp(d.box.Path(inbox.ContextFile(p.Name))),
		preview: lstamp(d.box.Path(inbox.PreviewFile(p.Name))), report: lstamp(d.box.Path(inbox.ReportFile(p.Name))),
		blob: head.Blob, commit: head.Commit, policy: policy}
	if prev, ok := d.seen[p.Name]; ok && prev == st {
		return 0, false
	}
	if age := time.Since(p.Info.ModTime()); age < d.cfg.Settle && !d.complete(p) {
		return d.cfg.Settle - age + 10*time.Millisecond, false
	}
	if d.cfg.Adopt {
		adopted, err := d.box.Adopt(p)
		if err != nil {
			d.log.Warn("cannot adopt a plan; it waits", "plan", p.File, "err", err)
			return d.cfg.Settle * 10, false
		}
		p = adopted
		st.plan = stampOf(p.Info)
	}
	c, err := d.led.Check(p)
	if errors.Is(err, ledger.ErrGone) {
		return 0, false // the next pass sees what it became
	}
	if err != nil {
		d.log.Error("check", "plan", p.File, "err", err)
		return d.cfg.Settle * 10, false
	}
	// a plan cut off mid-write is waited for a while before it is refused as truncated
	if c.Truncated() && time.Since(p.Info.ModTime()) < d.cfg.Grace {
		d.log.Info("a plan cut off mid-write; waiting for the rest", "plan", p.File)
		return d.cfg.Grace - time.Since(p.Info.ModTime()) + 10*time.Millisecond, false
	}
	if _, err := d.led.Publish(c); err != nil {
		d.log.Error("write the preview", "plan", p.File, "err", err)
		if errors.Is(err, inbox.ErrNameTaken) {
			// a planner's directory takes an output's name: tried again when it goes (see ours),
			// not ten times a second, checking and drawing the plan each time
			d.taken[p.Name] = true
			return 0, false
		}
		return d.cfg.Settle * 10, false
	}
	st.preview, st.report = lstamp(d.box.Path(inbox.PreviewFile(p.Name))), lstamp(d.box.Path(inbox.ReportFile(p.Name)))
	d.seen[p.Name] = st
	delete(d.taken, p.Name)
	d.kickDeliver()
	d.log.Info("previewed", "plan", p.File, "verdict", c.Outcome.Verdict, "errors", len(c.Outcome.Errors()), "warnings", len(c.Outcome.Warnings()))
	return 0, true
}

// complete says whether a plan file written moments ago is already a whole plan, to be judged at
// once rather than after the settle time: its bytes hold a complete JSON object (one cut off, an
// empty file, prose whose object has not come yet, a character cut in two all wait), and the file
// is still as listed (it did not grow while it was read). A plan that changes after its preview
// is previewed again, and an approval binds the bytes previewed, so judging early costs at most a
// preview written again.
func (d *Daemon) complete(p inbox.Entry) bool {
	raw, err := d.box.ReadPlan(p)
	if err != nil {
		return false
	}
	if _, _, f := plans.Extract(raw, false); f != nil {
		return false
	}
	return int64(len(raw)) == p.Info.Size() && lstamp(d.box.Path(p.File)) == stampOf(p.Info)
}

// approve applies an approved plan through the ledger; a refused one becomes NAME.rejected with
// the reason in its report and preview. It returns how soon to try again when the failure was
// not the plan's (a lock held by another process, a file system error).
func (d *Daemon) approve(p inbox.Entry) time.Duration {
	if r, ok := d.retries[p.Name]; ok && time.Now().Before(r.at) {
		return time.Until(r.at)
	}
	if age := time.Since(p.Info.ModTime()); age < d.cfg.Settle && p.Info.Mode().IsRegular() {
		// a rename keeps the time the plan was written; only a plan written in place is this young
		if _, err := d.box.Record(p.Name); err != nil {
			return d.cfg.Settle - age + 10*time.Millisecond
		}
	}
	// the pull before an apply goes only as far as the syncer's last fetch (no network here: a
	// hung remote holds up no approval); an apply made on a head the remote has moved past since
	// is made again on top of it, or rejected as stale, by the sync after it
	if d.cfg.Remote.Pull {
		if err := d.led.FastForward(); err != nil && !errors.Is(err, store.ErrCommitRefused) {
			d.log.Warn("fast-forward before apply failed; applying on the local branch", "err", err)
		}
	}
	res, err := d.led.Approve(d.applyCtx, p)
	if err != nil && d.applyCtx.Err() != nil {
		// cancelled by a hard stop: not the plan's fault; it stays approved for the next start
		d.log.Warn("apply cancelled; the plan stays approved", "plan", p.File)
		return 0
	}
	delete(d.seen, p.Name)
	switch {
	case err == nil, errors.Is(err, ledger.ErrAlreadyApplied):
		delete(d.retries, p.Name)
		if err != nil {
			d.log.Info("already applied; inbox cleared", "plan", p.File, "commit", store.Short(res.Commit))
		} else {
			d.log.Info("applied", "plan", p.File, "id", res.PlanID, "commit", store.Short(res.Commit), "revalidated", res.Revalid != "")
		}
		if err == nil && d.cfg.Remote.Push {
			d.kickSync()
		}
	case errors.Is(err, ledger.ErrRepreview):
		delete(d.retries, p.Name)
		d.log.Info("approval withdrawn; the plan is previewed again", "plan", p.File, "why", err)
	case errors.Is(err, ledger.ErrRefused):
		delete(d.retries, p.Name)
	default:
		r := d.retries[p.Name]
		if r.delay == 0 {
			r.delay = time.Second
		} else if r.delay < time.Minute {
			r.delay *= 2
		}
		r.at = time.Now().Add(r.delay)
		d.retries[p.Name] = r
		if errors.Is(err, store.ErrLocked) {
			d.log.Info("workspace locked by another process; retrying", "plan", p.File, "in", r.delay)
		} else {
			d.log.Error("apply failed; retrying", "plan", p.File, "in", r.delay, "err", err)
		}
		return r.delay
	}
	return 0
}

// sync pulls and pushes, from the syncer: what others pushed comes in (previews follow), what
// could not be pushed before goes out. It holds no pass: its writes after the network take turns
// with the passes through the ledger (SetBetween).
func (d *Daemon) sync(ctx context.Context, pull bool) {
	if d.cfg.Remote.Pull && (pull || !d.cfg.Remote.Push) {
		if err := d.led.Pull(ctx); err != nil && !errors.Is(err, store.ErrLocked) && !errors.Is(err, store.ErrBackoff) {
			d.log.Warn("pull failed", "remote", d.cfg.Remote.Name, "err", err)
		}
	}
	if d.cfg.Remote.Push && ctx.Err() == nil {
		d.push(ctx)
	}
}

// push pushes the branch; the plans the remote made stale are rejected by the ledger.
func (d *Daemon) push(ctx context.Context) {
	res, err := d.led.Sync(ctx)
	// a remote backing off is not tried: the attempt that failed was logged, and status says
	// until when; a line per tick would say nothing new
	if err != nil && !errors.Is(err, store.ErrBackoff) {
		d.log.Warn("push failed; the commit stays local and is retried", "remote", d.cfg.Remote.Name, "err", err)
	}
	if res == nil {
		return
	}
	if res.Pushed {
		d.log.Info("pushed", "remote", d.cfg.Remote.Name, "rebased", res.Rebased)
	}
	for _, dr := range res.Dropped {
		d.log.Info("made stale by the remote", "plan", dr.PlanID, "reason", dr.Reason)
	}
	for _, id := range res.OnRemote {
		d.log.Info("already applied on the remote; not applied again", "plan", id)
	}
}
