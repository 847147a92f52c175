package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/internal/lazyre"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Local is the Backend over a workspace on disk, through the inbox's file protocol and the
// ledger: the page trusts what the inbox's record under .git/ says archiplan wrote, and shows a
// preview only when the file on disk is still that one.
type Local struct {
	led  *ledger.Ledger
	box  *inbox.Inbox
	ws   *store.Workspace
	log  *slog.Logger
	poll time.Duration
	excl func(func() error) error

	revertRefused error // LocalConfig.RevertRefused

	mu    sync.Mutex
	subs  map[chan struct{}]struct{}
	stop  chan struct{}
	lines map[string]line // the inbox's lines, by NAME, while their files are unchanged

	hmu     sync.Mutex
	models  []blobModel                 // the last few models read at commits, by blob
	diffs   map[string]*commitDiff      // what each commit changed: commits never change
	logAt   string                      // the HEAD the history below was read at
	logged  []Entry                     // without the diffs, which are added as they are made
	commits map[string]store.CommitInfo // the commits of that history, by hash
	walked  int                         // how many commits from logAt were read
	whole   bool                        // all of them: the history is read to its root
	queue   []store.CommitInfo          // commits whose diff is still to be made, newest first
	asked   map[string]bool             // commits queued
	busy    bool                        // the diff worker runs

	rmu         sync.Mutex
	reviewed    *ReviewPage // the last branch reviewed, at reviewedKey (BASE..HEAD commits)
	reviewedKey string
}

type blobModel struct {
	blob  string
	model *archixml.Model
}

// commitDiff is what one commit changed in the model, in words, and the views it changed.
type commitDiff struct {
	changes []string
	views   []View
}

// maxChanges and maxViews bound what one history entry shows.
const (
	maxChanges = 40
	maxViews   = 4
)

// line is one inbox line and the stamps of every file it was judged from.
type line struct {
	key  string
	plan Plan
}

// stamp identifies a file's content without reading it: size, modification and change times and
// inode. The change time cannot be set back by a writer, so a file written over is always seen.
func stamp(fi os.FileInfo) string {
	if fi == nil {
		return "-"
	}
	if sec, nsec, ino, ok := changeTime(fi); ok {
		return fmt.Sprintf("%d.%d.%d.%d.%d", fi.Size(), fi.ModTime().UnixNano(), sec, nsec, ino)
	}
	return fmt.Sprintf("%d.%d", fi.Size(), fi.ModTime().UnixNano())
}

func infos(dir string) map[string]os.FileInfo {
	out := map[string]os.FileInfo{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			out[e.Name()] = fi
		}
	}
	return out
}

// LocalConfig is what a Local backend serves.
type LocalConfig struct {
	Ledger *ledger.Ledger
	Logger *slog.Logger
	Poll   time.Duration // how often subscribers' watch looks for changes (default 250 ms)
	// Exclusive runs the page's approvals and rejections between the daemon's passes
	// (daemon.Daemon.Exclusive); nil runs them at once.
	Exclusive func(func() error) error
	// RevertRefused, when set, is why the page makes no revert (deliver: pull-request: a revert
	// goes through a pull request, as an apply does): Revert returns it and changes nothing.
	RevertRefused error
}

// NewLocal makes the backend.
func NewLocal(c LocalConfig) *Local {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Poll <= 0 {
		c.Poll = 250 * time.Millisecond
	}
	if c.Exclusive == nil {
		c.Exclusive = func(fn func() error) error { return fn() }
	}
	l := &Local{led: c.Ledger, log: c.Logger, poll: c.Poll, excl: c.Exclusive, revertRefused: c.RevertRefused, subs: map[chan struct{}]struct{}{},
		diffs: map[string]*commitDiff{}, asked: map[string]bool{}}
	if c.Ledger != nil {
		l.box, l.ws = c.Ledger.Inbox(), c.Ledger.Workspace()
	}
	return l
}

// HooksWaiting implements HooksHeld: the hooks a pull brought that wait for the person's trust.
func (l *Local) HooksWaiting() []string {
	if l.ws == nil {
		return nil
	}
	waiting, err := hooks.Waiting(filepath.Join(l.ws.Root, "hooks"), l.ws.GitPath(hooks.TrustFile))
	if err != nil {
		return []string{"(the trust file cannot be read: " + err.Error() + ")"}
	}
	return waiting
}

// Where implements Placed: the workspace's folder name and the model's path in it.
func (l *Local) Where() (workspace, model string) {
	if l.ws == nil {
		return "", ""
	}
	return filepath.Base(l.ws.Root), l.ws.Model
}

// CleanReviewer makes a reviewer's name safe for a commit trailer: printable characters on one
// line, no angle brackets or parentheses, at most 100 runes.
func CleanReviewer(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n >= 100 {
			break
		}
		switch {
		case r == '<' || r == '>' || r == '(' || r == ')':
			continue
		case unicode.IsSpace(r):
			r = ' '
		case !unicode.IsPrint(r):
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// judged is what the page knows of one plan: its line, and, when archiplan's outputs on disk are
// the ones it recorded, those outputs.
type judged struct {
	plan  Plan
	raw   []byte
	rec   *inbox.Record
	files map[string][]byte // verified outputs by file name
}

func (l *Local) judge(e inbox.Entry) judged {
	j := judged{plan: Plan{Name: e.Name, File: e.File, State: State(e.State), Linkable: true}}
	p := &j.plan
	if e.Info != nil {
		p.Modified = e.Info.ModTime()
		if !e.Info.Mode().IsRegular() {
			p.State, p.Note = StateRefused, inbox.KindOfMode(e.Info.Mode())+", not a regular file: archiplan never follows or reads those"
		}
	}
	raw, rerr := l.box.ReadPlan(e)
	if rerr == nil {
		j.raw = raw
	}
	var rec *inbox.Record
	var files map[string][]byte
	var verr error
	// a preview's record and its files, read while no preview is written: one preview's
	_ = l.box.Steady(func() (err error) {
		if rec, err = l.box.Record(e.Name); err == nil {
			files, verr = l.box.Verify(rec)
		}
		return err
	})
	if rec == nil {
		if p.State == StatePending {
			p.Note = "not previewed yet"
		}
		return j
	}
	j.rec = rec
	// planner text: a character that reorders text is shown as its code, as the preview does
	p.Verdict, p.Summary = rec.Verdict, plans.ShowHidden(rec.Summary)
	if p.State == StateRejected {
		p.Note = rec.Reason
	}
	if verr != nil {
		p.Note = "its preview on disk is not the one archiplan wrote (" + verr.Error() + "): wait for the next preview"
		if p.State == StatePending {
			p.Verdict = ""
		}
		return j
	}
	j.files = files
	var r plans.Report
	if json.Unmarshal(files[inbox.ReportFile(e.Name)], &r) == nil {
		p.Errors, p.Warnings = len(r.Errors), len(r.Warnings)
	}
	if p.State == StatePending {
		switch {
		case j.raw == nil:
			p.Note = fmt.Sprintf("cannot be read: %v", rerr)
		case inbox.Hash(j.raw) != rec.PlanSHA256:
			p.Note = "changed since its preview: archiplan previews it again, and rejects it if this NAME was previewed valid before"
		default:
			p.State = StatePreviewed
			p.Note = rec.Next // plan bytes applied before: the preview's step, as status says it
		}
	}
	return j
}

// Inbox implements Backend.
func (l *Local) Inbox() ([]Plan, error) {
	list, err := l.box.List()
	if errors.Is(err, os.ErrNotExist) {
		return []Plan{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read inbox: %w", err)
	}
	out := make([]Plan, 0, len(list.Plans)+len(list.Unsafe))
	// a line is judged again only when one of its files changed: the listing reads no file twice
	files, records := infos(l.box.Dir), infos(l.box.StateDir)
	l.mu.Lock()
	if l.lines == nil {
		l.lines = map[string]line{}
	}
	cached := l.lines
	l.mu.Unlock()
	fresh := make(map[string]line, len(list.Plans))
	taken := l.box.Taken() // a planner's directory at an output's name: why no preview comes
	for _, e := range list.Plans {
		var k strings.Builder
		k.WriteString(e.File + "=" + stamp(files[e.File]) + ";rec=" + stamp(records[e.Name+".json"]))
		outs := append([]string(nil), list.Outputs[e.Name]...)
		sort.Strings(outs)
		for _, f := range outs {
			k.WriteString(";" + f + "=" + stamp(files[f]))
		}
		ln, ok := cached[e.Name]
		if !ok || ln.key != k.String() {
			ln = line{key: k.String(), plan: l.judge(e).plan}
		}
		fresh[e.Name] = ln
		p := ln.plan
		if t := taken[e.Name]; t != "" && e.State == inbox.Pending {
			p.Note = t // as status says it; not kept with the line: the directory is no file of its key
		}
		out = append(out, p)
	}
	l.mu.Lock()
	l.lines = fresh
	l.mu.Unlock()
	for _, f := range list.Unsafe {
		name, _, st := inbox.Parse(f)
		if name == "" {
			name = f
		}
		p := Plan{Name: name, File: f, State: StateRefused, Note: "not an allowed plan name: archiplan leaves this file alone (names match " +
			inbox.NamePattern + ")"}
		_ = st
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (l *Local) find(name string) (inbox.Entry, error) {
	if err := inbox.CheckName(name); err != nil {
		return inbox.Entry{}, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	e, err := l.box.Find(name)
	if errors.Is(err, inbox.ErrNoPlan) {
		return e, fmt.Errorf("plan %s: %w", name, ErrNotFound)
	}
	return e, err
}

// decided is the plan NAME an approval or rejection decides, or why not: one applied since the
// page was drawn is refused as archiplan approve refuses it (PLAN_NOT_IN_INBOX, where it went).
func (l *Local) decided(name string) (inbox.Entry, error) {
	e, err := l.find(name)
	if errors.Is(err, ErrNotFound) {
		if gone := ledger.Gone(l.ws, name); gone != "" {
			return e, &Refusal{plans.PlanNotInInbox, fmt.Errorf("%w: %s", ErrNotPending, gone)}
		}
	}
	return e, err
}

// Plan implements Backend.
func (l *Local) Plan(name string) (*PlanPage, error) {
	e, err := l.find(name)
	if err != nil {
		return nil, err
	}
	j := l.judge(e)
	page := &PlanPage{Plan: j.plan}
	if j.raw != nil {
		page.PlanSHA256 = inbox.Hash(j.raw)
	}
	if j.files == nil {
		return page, nil // only what archiplan wrote is shown
	}
	page.Preview = j.files[inbox.PreviewFile(name)]
	page.PreviewSHA256 = j.rec.Outputs[inbox.PreviewFile(name)]
	var r plans.Report
	if json.Unmarshal(j.files[inbox.ReportFile(name)], &r) == nil {
		for _, f := range r.Errors {
			page.Findings = append(page.Findings, finding("error", f))
		}
		for _, f := range r.Warnings {
			page.Findings = append(page.Findings, finding("warning", f))
		}
	}
	for f := range j.files {
		if _, kind, _ := inbox.Parse(f); kind == inbox.KindPicture {
			page.Pictures = append(page.Pictures, f)
		}
	}
	sort.Strings(page.Pictures)
	page.Decidable = page.State == StatePreviewed
	// one answer with approve's: plan bytes applied before are not offered (the record's step)
	// as of HEAD now: a preview made before a revert or a commit says its step as approve does
	// until the daemon has previewed the plan again
	headBlob := ""
	if l.ws != nil {
		_, headBlob, _ = l.ws.HeadBlob()
	}
	page.Approvable = page.Decidable && page.Verdict == plans.VerdictValid && j.rec.ApprovableAt(name, headBlob) == nil
	if next := j.rec.NextAt(name, headBlob); page.Decidable && next != "" {
		page.Next, page.Note = next, "" // said once, where Approve would be
	}
	if page.Decidable {
		page.Waiting = inbox.WaitingWords(j.rec.Approvers(), inbox.Missing(j.rec.Needs, j.rec.Approvals))
	}
	return page, nil
}

// a report keeps severity by list, not per finding
func finding(sev string, f plans.Finding) Finding {
	return Finding{Severity: sev, Code: string(f.Code), Message: f.Message, Action: f.Action, Pointer: f.Pointer, Snippet: f.Snippet}
}

// Picture implements Backend: a picture of NAME's preview, only as archiplan wrote it.
func (l *Local) Picture(name, file string) ([]byte, error) {
	if n, kind, _ := inbox.Parse(file); n != name || kind != inbox.KindPicture {
		return nil, fmt.Errorf("picture %q: %w", file, ErrNotFound)
	}
	e, err := l.find(name)
	if err != nil {
		return nil, err
	}
	j := l.judge(e)
	data, ok := j.files[file]
	if !ok {
		return nil, fmt.Errorf("picture %s: %w", file, ErrNotFound)
	}
	return data, nil
}

// Approve implements Backend: the inbox's rename NAME.json -> NAME.approved, only when the
// preview archiplan wrote is still the one the page showed, and still on disk as written.
func (l *Local) Approve(name, previewSHA256, reviewer string) error {
	e, err := l.decided(name)
	if err != nil {
		return err
	}
	if e.State != inbox.Pending {
		return notPending(e)
	}
	err = l.excl(func() error {
		// an apply over a save from Archi not committed rejects the plan: refused now, as
		// archiplan approve refuses it, while the plan can still be approved as it is
		if _, blob, err := l.ws.HeadBlob(); err != nil {
			return err
		} else if dirty, err := l.ws.Dirty(blob); err != nil {
			return err
		} else if dirty {
			return fmt.Errorf("%w: %s, then approve it again", ErrNotApproved, ledger.Uncommitted(l.ws.Model))
		} else if rec, err := l.box.Record(name); err == nil {
			// a preview made before HEAD moved (a revert) is answered as of HEAD, as the page says
			if err := rec.ApprovableAt(name, blob); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return l.box.ApproveSeen(name, previewSHA256, CleanReviewer(reviewer))
	})
	switch {
	case errors.Is(err, inbox.ErrForged):
		return &Refusal{plans.PreviewForged, fmt.Errorf("%w: approve only what you saw; draw the page again (%v)", ErrPreviewChanged, err)}
	case errors.Is(err, inbox.ErrPreviewChanged):
		return &Refusal{plans.PreviewNotRead, fmt.Errorf("%w: approve only what you saw; draw the page again (%v)", ErrPreviewChanged, err)}
	case errors.Is(err, inbox.ErrNotPreviewed):
		return &Refusal{plans.PlanNotPreviewed, fmt.Errorf("%w: %v", ErrNotPending, err)}
	case errors.Is(err, inbox.ErrNotValid):
		return &Refusal{plans.PlanNotValid, fmt.Errorf("%w: %v", ErrNotPending, err)}
	case errors.Is(err, inbox.ErrAppliedBefore):
		return &Refusal{plans.PlanAppliedBefore, fmt.Errorf("%w: %v", ErrNotApproved, err)}
	}
	return err
}

// notPending is the refusal of an approval or rejection of a plan no longer waiting for one,
// coded as the command line codes its state.
func notPending(e inbox.Entry) error {
	code := plans.PlanIsApproved
	if e.State == inbox.Rejected {
		code = plans.PlanIsRejected
	}
	return &Refusal{code, fmt.Errorf("%w: %s is %s", ErrNotPending, e.Name, e.State)}
}

// Reject implements Backend: the ledger's rejection by hand, NAME.rejected with the reason on top
// of its preview and in its report.
func (l *Local) Reject(name, reason, reviewer string) error {
	if reason = ledger.PersonsReason(reason); reason == "" {
		return &Refusal{plans.RejectNeedsReason, ErrNoReason}
	}
	e, err := l.decided(name)
	if err != nil {
		return err
	}
	if e.State != inbox.Pending {
		return notPending(e)
	}
	if r := CleanReviewer(reviewer); r != "" {
		reason += " (rejected on the review page by " + r + ")"
	}
	return l.excl(func() error {
		_, err := l.led.Reject(e, reason)
		return err
	})
}

// Log implements Backend: a page of the ledger's log, with the commits made outside archiplan
// that changed the model between them, each with what it changed in words and the views it
// changed. The history is walked from HEAD only as far as the page needs, and the comparisons
// are made in the background for the page asked for only.
func (l *Local) Log(page int) (*LogPage, error) {
	page = max(page, 1)
	head, err := l.ws.Head()
	if err != nil {
		return nil, err
	}
	need := page*HistoryPageSize + 1 // entries to know whether an older page follows
	// the history of a HEAD never changes: what was read of it is kept until HEAD moves
	l.hmu.Lock()
	if l.logAt != head {
		l.logAt, l.logged, l.commits, l.walked, l.whole = head, nil, nil, 0, false
	}
	enough := l.whole || len(l.logged) >= need
	walked := l.walked
	l.hmu.Unlock()
	for n := max(2*need, 2*walked); !enough; n *= 2 {
		out, hist, whole, err := l.readLog(head, n)
		if err != nil {
			return nil, err
		}
		byHash := make(map[string]store.CommitInfo, len(hist))
		for _, c := range hist {
			byHash[c.Hash] = c
		}
		l.hmu.Lock()
		if l.logAt == head {
			l.logged, l.commits, l.walked, l.whole = out, byHash, len(hist), whole
		}
		enough = whole || len(out) >= need
		l.hmu.Unlock()
	}
	l.hmu.Lock()
	defer l.hmu.Unlock()
	from := min((page-1)*HistoryPageSize, len(l.logged))
	to := min(from+HistoryPageSize, len(l.logged))
	lp := &LogPage{Page: page, Older: to < len(l.logged), Entries: make([]Entry, 0, to-from)}
	queued := false
	for _, e := range l.logged[from:to] { // newest first: the top of the page is compared first
		c := l.commits[e.Commit]
		if _, ok := l.diffs[c.Hash]; !ok && !l.asked[c.Hash] && c.Parent != "" && c.ModelBlob != "" {
			l.asked[c.Hash] = true
			l.queue = append(l.queue, c)
			queued = true
		}
	}
	if queued && !l.busy {
		l.busy = true
		go l.differ()
	}
	for _, e := range l.logged[from:to] {
		if d, ok := l.diffs[e.Commit]; ok && d != nil {
			e.Changes, e.Views = d.changes, d.views
		} else if ok || l.asked[e.Commit] {
			e.Comparing = !ok
		}
		lp.Entries = append(lp.Entries, e)
	}
	return lp, nil
}

// differ compares queued commits with their parents, one at a time, and tells subscribers after
// each: the history page fills in as it goes, and its first answer waits for none of it.
func (l *Local) differ() {
	for {
		l.hmu.Lock()
		if len(l.queue) == 0 {
			l.busy = false
			l.hmu.Unlock()
			return
		}
		c := l.queue[0]
		l.queue = l.queue[1:]
		l.hmu.Unlock()
		d := l.diffOf(c)
		l.hmu.Lock()
		l.diffs[c.Hash] = d
		l.hmu.Unlock()
		l.Notify()
	}
}

// readLog reads the newest n commits of the history from head (whole: that is all of it) and
// the entries they make; the oldest of a part is read only as its child's parent. The commits a
// merge brought from its other side (a colleague's apply merged by a git pull, a pull request's)
// follow the merge, as far back as the part reaches (store's SideCommitsSince); the commits
// returned are the line's, then those.
func (l *Local) readLog(head string, n int) ([]Entry, []store.CommitInfo, bool, error) {
	hist, err := l.ws.HistoryFrom(head, n)
	if err != nil {
		return nil, nil, false, err
	}
	whole := len(hist) < n
	var since time.Time
	if !whole && len(hist) > 0 {
		since = hist[len(hist)-1].When
	}
	side, err := l.ws.SideCommitsSince(hist, since)
	if err != nil {
		return nil, nil, false, err
	}
	led, sideLed := ledger.LogOf(l.ws, hist), ledger.LogOf(l.ws, side)
	ledger.UndoneOnSide(l.ws, hist, side, sideLed, append(led[:len(led):len(led)], sideLed...)) // as ledger.LogChecked does
	byCommit := map[string]ledger.Entry{}
	reverted := map[string]string{} // apply commit -> the commit that reverted it
	blobs := map[string]string{}    // commit -> its model's blob
	for _, e := range append(led, sideLed...) {
		byCommit[e.Commit] = e
		if e.Reverts != "" {
			reverted[e.Reverts] = e.Commit
		}
	}
	bySide := map[string][]store.CommitInfo{} // merge -> the commits it brought
	for _, c := range append(hist, side...) {
		blobs[c.Hash] = c.ModelBlob
	}
	for _, c := range side {
		bySide[c.Via] = append(bySide[c.Via], c)
	}
	var out []Entry
	add := func(c store.CommitInfo, parent string) {
		e := Entry{Commit: c.Hash, When: c.When, Author: plans.ShowHidden(c.Author), Summary: plans.ShowHidden(c.Subject), MergedBy: c.Via}
		if le, ok := byCommit[c.Hash]; ok {
			// an approver only for an apply or revert the commit holds: on any other commit the
			// trailer is a claim anyone who can commit writes (a hand-made commit "approved by")
			e.Kind, e.PlanID, e.Summary, e.Reverts = EntryKind(le.Kind), le.PlanID, plans.ShowHidden(le.Summary), le.Reverts
			e.ApprovedBy = plans.ShowHidden(c.Trailers[store.TrailerApprovedBy])
			e.RevertedBy = reverted[c.Hash]
			if le.UndoneBy != "" && e.RevertedBy == "" {
				e.UndoneBy = le.UndoneBy
			}
		} else {
			if c.ModelBlob == parent {
				return // did not change the model
			}
			e.Kind = KindOutside
		}
		out = append(out, e)
	}
	for i, c := range hist {
		if !whole && i == len(hist)-1 {
			break // its parent was not read: the next walk, longer, says what it is
		}
		parent := ""
		if i+1 < len(hist) {
			parent = hist[i+1].ModelBlob
		}
		add(c, parent)
		for _, s := range bySide[c.Hash] {
			pb, ok := blobs[s.Parent]
			if !ok && s.Parent != "" {
				p, _ := l.ws.Info(s.Parent)
				pb = p.ModelBlob
			}
			add(s, pb)
		}
	}
	// a plan applied again by a git revert of its revert is reverted by a later revert of the
	// plan, which names the first apply (entries newest first)
	later := map[string]string{}
	for i := range out {
		switch e := &out[i]; e.Kind {
		case KindRevert, KindGitRevert:
			if e.PlanID != "" && later[e.PlanID] == "" {
				later[e.PlanID] = e.Commit
			}
		case KindGitReapply:
			if e.RevertedBy == "" {
				e.RevertedBy = later[e.PlanID]
			}
		}
	}
	return out, append(hist, side...), whole, nil
}

// diffOf is what a commit changed against its first parent (nil for a model that cannot be
// read). Only the differ calls it.
func (l *Local) diffOf(c store.CommitInfo) *commitDiff {
	l.hmu.Lock()
	before, err1 := l.modelAtLocked(c.Parent)
	after, err2 := l.modelAtLocked(c.Hash)
	l.hmu.Unlock()
	if err1 != nil || err2 != nil || before == nil || after == nil {
		l.log.Warn("history: cannot compare the model at a commit with its parent", "commit", store.Short(c.Hash), "err", errors.Join(err1, err2))
		return nil
	}
	r := diff.Models(before, after)
	d := &commitDiff{}
	for i, ch := range r.Changes {
		if i == maxChanges {
			d.changes = append(d.changes, fmt.Sprintf("… and %d more", len(r.Changes)-maxChanges))
			break
		}
		d.changes = append(d.changes, plans.ShowHidden(ch.Text))
	}
	for i, id := range r.Views() {
		if i == maxViews {
			break
		}
		name := id
		if v, ok := after.Object(id); ok {
			name = hidden.Show(v.Name())
		}
		w, h, _ := render.Size(after, id) // 0 x 0 for a view the commit removed: no room kept
		d.views = append(d.views, View{ID: id, Name: name, At: c.Hash, W: w, H: h})
	}
	return d
}

// modelAtLocked reads the model at a commit, keeping the last few by blob (consecutive commits
// share them); hmu is held.
func (l *Local) modelAtLocked(commit string) (*archixml.Model, error) {
	info, err := l.ws.Info(commit)
	if err != nil {
		return nil, err
	}
	for _, bm := range l.models {
		if bm.blob == info.ModelBlob {
			return bm.model, nil
		}
	}
	data, ok, err := l.ws.ModelAt(commit)
	if err != nil || !ok {
		return nil, err
	}
	m, err := archixml.Load(data)
	if err != nil {
		return nil, err
	}
	l.models = append(l.models, blobModel{info.ModelBlob, m})
	if len(l.models) > 4 {
		l.models = l.models[1:]
	}
	return m, nil
}

// Revert implements Backend, through the ledger's revert, between the daemon's passes: a click
// right after an apply waits for the pass that made it to end instead of finding the workspace
// locked by it.
func (l *Local) Revert(target string) (string, error) {
	if l.revertRefused != nil {
		return "", l.revertRefused
	}
	var res *ledger.RevertResult
	err := l.excl(func() error {
		var err error
		res, err = l.led.Revert(context.Background(), target)
		return err
	})
	if err != nil {
		return "", err
	}
	return res.Commit, nil
}

// Views implements Backend: the views of the model at HEAD (the ledger's cached model).
func (l *Local) Views() ([]View, error) {
	var out []View
	err := l.led.ReadHead(func(h *ledger.Head) error { // the daemon may be applying a plan to it
		for _, v := range h.Model.Views() {
			out = append(out, View{ID: v.ID(), Name: hidden.Show(v.Name()), Folder: hidden.Show(v.FolderPath())})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

var commitHash = lazyre.New(`^[0-9a-f]{40}$`)

// ViewSVG implements Backend: a view of the model at HEAD, or at a commit named in full.
func (l *Local) ViewSVG(id, at string) ([]byte, error) {
	if at == "" {
		// drawn from the ledger's model while no apply edits it
		var svg []byte
		err := l.led.ReadHead(func(h *ledger.Head) (err error) {
			svg, err = render.View(h.Model, id)
			return err
		})
		if errors.Is(err, render.ErrNoView) {
			return nil, fmt.Errorf("view %q: %w", id, ErrNotFound)
		}
		return svg, err
	}
	if !commitHash.MatchString(at) {
		return nil, fmt.Errorf("commit %q: %w", at, ErrNotFound)
	}
	l.hmu.Lock()
	m, err := l.modelAtLocked(at)
	l.hmu.Unlock()
	if err != nil || m == nil {
		return nil, fmt.Errorf("model at %s: %w", store.Short(at), ErrNotFound)
	}
	svg, err := render.View(m, id)
	if errors.Is(err, render.ErrNoView) {
		return nil, fmt.Errorf("view %q: %w", id, ErrNotFound)
	}
	return svg, err
}

// Notify tells subscribers that something may have changed (the daemon's Changed hook).
func (l *Local) Notify() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs {
		select {
		case ch <- struct{}{}:
		default: // one pending change is enough: the page reads everything again
		}
	}
}

// Subscribe implements Backend: subscribers share one watch of the inbox and HEAD, which runs
// while anyone listens (besides Notify, for the daemon's passes).
func (l *Local) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	l.subs[ch] = struct{}{}
	if l.stop == nil {
		l.stop = make(chan struct{})
		go l.watch(l.stop)
	}
	l.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.subs, ch)
			if len(l.subs) == 0 && l.stop != nil {
				close(l.stop)
				l.stop = nil
			}
			l.mu.Unlock()
		})
	}
}

// fingerprint changes whenever a file in the inbox, a record, or HEAD does.
func (l *Local) fingerprint() string {
	var b strings.Builder
	if head, err := l.ws.Head(); err == nil {
		b.WriteString(head)
	}
	for _, dir := range []string{l.box.Dir, l.box.StateDir} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				fmt.Fprintf(&b, "|%s %d %d", e.Name(), info.Size(), info.ModTime().UnixNano())
			}
		}
	}
	return b.String()
}

func (l *Local) watch(stop chan struct{}) {
	t := time.NewTicker(l.poll)
	defer t.Stop()
	last := l.fingerprint()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if fp := l.fingerprint(); fp != last {
			last = fp
			l.Notify()
		}
	}
}
