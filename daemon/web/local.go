package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// maxOutput caps what the page reads of a preview or report: they are archiplan's outputs, but
// they lie in the inbox, where a planner can put anything.
const maxOutput = 8 << 20

// safeName is the names the page acts on; anything else is listed as text and left alone.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Local is the Backend over a workspace on disk: the inbox's files, the model at HEAD and the
// history in git.
type Local struct {
	ws       *store.Workspace
	inbox    string
	operator store.Signature
	log      *slog.Logger
	poll     time.Duration

	mu    sync.Mutex
	blob  string
	model *archixml.Model
	subs  map[chan struct{}]struct{}
	stop  chan struct{}
}

// LocalConfig is what a Local backend serves.
type LocalConfig struct {
	Workspace *store.Workspace
	Inbox     string          // absolute
	Operator  store.Signature // the daemon's user: Approved-By and revert commits
	Logger    *slog.Logger
	Poll      time.Duration // how often subscribers' watch looks for changes (default 250 ms)
}

// NewLocal makes the backend.
func NewLocal(c LocalConfig) *Local {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Poll <= 0 {
		c.Poll = 250 * time.Millisecond
	}
	return &Local{ws: c.Workspace, inbox: c.Inbox, operator: c.Operator, log: c.Logger, poll: c.Poll, subs: map[chan struct{}]struct{}{}}
}

func (l *Local) path(f string) string { return filepath.Join(l.inbox, f) }

// readSafe reads an inbox file as the daemon does: a regular file, no link followed, never
// blocking on a pipe, at most max bytes.
func readSafe(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", filepath.Base(path), max)
	}
	return data, nil
}

func hashOf(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// planFiles maps each plan name to its file in the inbox: an approval outranks a rejection,
// which outranks a pending plan, as in the daemon's pass.
func (l *Local) planFiles() (map[string]os.DirEntry, error) {
	entries, err := os.ReadDir(l.inbox)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]os.DirEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read inbox: %w", err)
	}
	rank := map[State]int{StatePending: 0, StateRejected: 1, StateApproved: 2}
	out := map[string]os.DirEntry{}
	for _, e := range entries {
		name, st, ok := classify(e.Name())
		if !ok {
			continue
		}
		if cur, ok := out[name]; ok {
			_, cst, _ := classify(cur.Name())
			if rank[cst] >= rank[st] {
				continue
			}
		}
		out[name] = e
	}
	return out, nil
}

// classify names a plan file's NAME and state; ok is false for outputs and other files.
func classify(file string) (string, State, bool) {
	if strings.HasPrefix(file, ".") || strings.HasSuffix(file, "~") || strings.HasSuffix(file, ".tmp") ||
		strings.Contains(file, ".tmp-") || strings.HasSuffix(file, ".swp") || strings.HasSuffix(file, ".part") {
		return "", "", false
	}
	for _, out := range []string{".preview.md", ".report.json", ".context.json"} {
		if strings.HasSuffix(file, out) {
			return "", "", false
		}
	}
	switch {
	case strings.HasSuffix(file, ".json.approved"):
		return strings.TrimSuffix(file, ".json.approved"), StateApproved, true
	case strings.HasSuffix(file, ".approved"):
		return strings.TrimSuffix(file, ".approved"), StateApproved, true
	case strings.HasSuffix(file, ".rejected"):
		return strings.TrimSuffix(file, ".rejected"), StateRejected, true
	case strings.HasSuffix(file, ".json"):
		return strings.TrimSuffix(file, ".json"), StatePending, true
	}
	return "", "", false
}

func (l *Local) report(name string) (*plans.Report, []byte, error) {
	data, err := readSafe(l.path(name+".report.json"), maxOutput)
	if err != nil {
		return nil, nil, err
	}
	var r plans.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("read report of %s: %w", name, err)
	}
	return &r, data, nil
}

// describe is one plan's inbox line; raw is the plan's bytes when it could be read.
func (l *Local) describe(name string, e os.DirEntry) (Plan, []byte, *plans.Report) {
	_, st, _ := classify(e.Name())
	p := Plan{Name: name, File: e.Name(), State: st}
	if info, err := e.Info(); err == nil {
		p.Modified = info.ModTime()
	}
	if !safeName.MatchString(name) {
		p.State, p.Note = StateRefused, "not an allowed plan name: archiplan leaves this file alone (names are letters, digits, '.', '_' and '-')"
		return p, nil, nil
	}
	if !e.Type().IsRegular() {
		p.State, p.Note = StateRefused, "not a regular file: archiplan never follows links or reads special files"
		return p, nil, nil
	}
	p.Linkable = true
	raw, rerr := readSafe(l.path(e.Name()), plans.MaxPlanBytes)
	r, _, err := l.report(name)
	if err != nil {
		return p, raw, nil
	}
	p.Verdict, p.Summary, p.Errors, p.Warnings = r.Verdict, r.Plan.Summary, len(r.Errors), len(r.Warnings)
	if st == StateRejected {
		p.Note = r.Reason
	}
	if st == StatePending {
		switch {
		case rerr != nil:
			p.Note = rerr.Error()
		case hashOf(raw) != r.Plan.SHA256:
			p.Note = "changed since its preview; archiplan previews it again"
		default:
			p.State = StatePreviewed
		}
	}
	return p, raw, r
}

// Inbox implements Backend.
func (l *Local) Inbox() ([]Plan, error) {
	files, err := l.planFiles()
	if err != nil {
		return nil, err
	}
	out := make([]Plan, 0, len(files))
	for name, e := range files {
		p, _, _ := l.describe(name, e)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (l *Local) find(name string) (os.DirEntry, error) {
	if !safeName.MatchString(name) {
		return nil, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	files, err := l.planFiles()
	if err != nil {
		return nil, err
	}
	e, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("plan %s: %w", name, ErrNotFound)
	}
	return e, nil
}

// Plan implements Backend.
func (l *Local) Plan(name string) (*PlanPage, error) {
	e, err := l.find(name)
	if err != nil {
		return nil, err
	}
	p, raw, r := l.describe(name, e)
	page := &PlanPage{Plan: p}
	if raw != nil {
		page.PlanSHA256 = hashOf(raw)
	}
	if pv, err := readSafe(l.path(name+".preview.md"), maxOutput); err == nil {
		page.Preview, page.PreviewSHA256 = pv, hashOf(pv)
	}
	if r != nil {
		// a report keeps severity by list, not per finding
		for sev, list := range map[string][]plans.Finding{"error": r.Errors, "warning": r.Warnings} {
			for _, f := range list {
				page.Findings = append(page.Findings, Finding{Severity: sev, Code: string(f.Code), Message: f.Message,
					Action: f.Action, Pointer: f.Pointer, Snippet: f.Snippet})
			}
		}
		sort.SliceStable(page.Findings, func(i, j int) bool { return page.Findings[i].Severity < page.Findings[j].Severity })
	}
	page.Decidable = p.State == StatePreviewed && page.PreviewSHA256 != ""
	page.Approvable = page.Decidable && p.Verdict == "valid"
	return page, nil
}

// renameNoReplace renames within the inbox, refusing to overwrite what is there.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		// a file system without RENAME_NOREPLACE: a hard link refuses to overwrite too
		if err = os.Link(from, to); err == nil {
			err = os.Remove(from)
		}
	}
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s is already there", ErrNotPending, filepath.Base(to))
	}
	return err
}

// pending checks that NAME is previewed and waiting, and returns its plan bytes and report.
func (l *Local) pending(name string) ([]byte, *plans.Report, error) {
	e, err := l.find(name)
	if err != nil {
		return nil, nil, err
	}
	p, raw, r := l.describe(name, e)
	if p.State != StatePreviewed || raw == nil || r == nil {
		return nil, nil, fmt.Errorf("%w: %s is %s", ErrNotPending, name, p.State)
	}
	return raw, r, nil
}

// Approve implements Backend: the rename plans/NAME.json -> plans/NAME.approved, only when the
// preview on disk is the one the page showed.
func (l *Local) Approve(name, previewSHA256, reviewer string) error {
	raw, _, err := l.pending(name)
	if err != nil {
		return err
	}
	pv, err := readSafe(l.path(name+".preview.md"), maxOutput)
	if err != nil || hashOf(pv) != previewSHA256 {
		return fmt.Errorf("%w: approve only what you saw; draw the page again", ErrPreviewChanged)
	}
	if err := recordReviewer(l.ws, name, hashOf(raw), CleanReviewer(reviewer)); err != nil {
		return fmt.Errorf("record the reviewer: %w", err)
	}
	return renameNoReplace(l.path(name+".json"), l.path(name+".approved"))
}

// Reject implements Backend: the reason goes on top of the preview and into the report, then
// plans/NAME.json becomes plans/NAME.rejected (renaming it back to .json previews it again).
func (l *Local) Reject(name, reason, reviewer string) error {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return ErrNoReason
	}
	if len(reason) > 2000 {
		reason = reason[:2000]
	}
	_, r, err := l.pending(name)
	if err != nil {
		return err
	}
	pv, _ := readSafe(l.path(name+".preview.md"), maxOutput)
	by := l.operator.Name
	if rv := CleanReviewer(reviewer); rv != "" {
		by = WithReviewer(l.operator, rv).Name
	}
	r.Verdict, r.Reason = daemon.VerdictRejected, "rejected by "+by+": "+reason
	top := fmt.Sprintf("# Rejected\n\nRejected from the review page by %s:\n\n> %s\n\nRename `%s.rejected` back to `%s.json` to preview it again.\n\n",
		mdText(by), strings.ReplaceAll(mdText(reason), "\n", "\n> "), name, name)
	if err := store.WriteFileAtomic(l.path(name+".preview.md"), append([]byte(top), pv...), 0o644); err != nil {
		return err
	}
	if err := store.WriteFileAtomic(l.path(name+".report.json"), r.JSON(), 0o644); err != nil {
		return err
	}
	return renameNoReplace(l.path(name+".json"), l.path(name+".rejected"))
}

// mdText escapes text for a preview: nothing in it is read as Markdown or HTML.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '(', ')', '#', '|', '!', '{', '}', '~', '+', '-', '.':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Log implements Backend.
func (l *Local) Log() ([]Entry, error) {
	hist, err := l.ws.History(nil)
	if err != nil {
		return nil, err
	}
	applies := map[string]string{}
	reverted := map[string]string{}
	for _, c := range hist {
		if id := c.Trailers[store.TrailerPlanID]; id != "" {
			applies[c.Hash] = id
		}
		if rc := c.Trailers[store.TrailerRevertsCommit]; rc != "" {
			reverted[rc] = c.Hash
		}
		if c.GitReverts != "" {
			reverted[c.GitReverts] = c.Hash
		}
	}
	var out []Entry
	for i, c := range hist {
		e := Entry{Commit: c.Hash, When: c.When, Author: c.Author, ApprovedBy: c.Trailers[store.TrailerApprovedBy], Summary: c.Subject}
		switch {
		case c.Trailers[store.TrailerPlanID] != "":
			e.Kind, e.PlanID, e.Summary = KindApply, c.Trailers[store.TrailerPlanID], strings.TrimPrefix(c.Subject, "plan: ")
			e.RevertedBy = reverted[c.Hash]
			e.Changes = bodyList(c.Message)
		case c.Trailers[store.TrailerRevertsPlan] != "":
			e.Kind, e.PlanID, e.Reverts = KindRevert, c.Trailers[store.TrailerRevertsPlan], c.Trailers[store.TrailerRevertsCommit]
			e.Summary = strings.TrimPrefix(c.Subject, "revert: ")
		case applies[c.GitReverts] != "":
			e.Kind, e.PlanID, e.Reverts = KindGitRevert, applies[c.GitReverts], c.GitReverts
		default:
			parent := ""
			if i+1 < len(hist) {
				parent = hist[i+1].ModelBlob
			}
			if c.ModelBlob == parent {
				continue // did not change the model
			}
			e.Kind = KindOutside
		}
		out = append(out, e)
	}
	return out, nil
}

// bodyList is the "- " lines of a commit message: an apply's actions, in words.
func bodyList(msg string) []string {
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		if s, ok := strings.CutPrefix(line, "- "); ok {
			out = append(out, s)
		}
	}
	return out
}

// Revert implements Backend, through the one revert path.
func (l *Local) Revert(target, reviewer string) (string, error) {
	res, err := daemon.Revert(context.Background(), l.ws, target, WithReviewer(l.operator, reviewer), nil)
	if err != nil {
		return "", err
	}
	return res.Commit, nil
}

func (l *Local) modelAtHead() (*archixml.Model, error) {
	_, blob, err := l.ws.HeadBlob()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.model != nil && l.blob == blob {
		return l.model, nil // HEAD's model is parsed once per blob
	}
	head, err := l.ws.ReadModel()
	if err != nil {
		return nil, err
	}
	m, err := archixml.Load(head.Data)
	if err != nil {
		return nil, err
	}
	l.model, l.blob = m, head.Blob
	return m, nil
}

// Views implements Backend.
func (l *Local) Views() ([]View, error) {
	m, err := l.modelAtHead()
	if err != nil {
		return nil, err
	}
	var out []View
	for _, v := range m.Views() {
		out = append(out, View{ID: v.ID(), Name: v.Name(), Folder: v.FolderPath()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ViewSVG implements Backend.
func (l *Local) ViewSVG(id, at string) ([]byte, error) {
	return nil, fmt.Errorf("view %s: drawing views needs archixml/render: %w", id, ErrNotFound)
}

// Subscribe implements Backend: subscribers share one watch of the inbox and HEAD, which runs
// while anyone listens.
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

// fingerprint changes whenever a file in the inbox or HEAD does.
func (l *Local) fingerprint() string {
	var b strings.Builder
	if head, err := l.ws.Head(); err == nil {
		b.WriteString(head)
	}
	entries, _ := os.ReadDir(l.inbox)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "|%s %d %d", e.Name(), info.Size(), info.ModTime().UnixNano())
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
		fp := l.fingerprint()
		if fp == last {
			continue
		}
		last = fp
		l.mu.Lock()
		for ch := range l.subs {
			select {
			case ch <- struct{}{}:
			default: // one pending change is enough: the page reads everything again
			}
		}
		l.mu.Unlock()
	}
}
