package inbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/archiplan/archiplan/internal/osfile"
)

var (
	// ErrNotPreviewed means archiplan has no record of previewing the plan.
	ErrNotPreviewed = errors.New("not previewed by archiplan")
	// ErrForged means a file archiplan wrote is not what it wrote: someone else wrote it since.
	ErrForged = errors.New("not the file archiplan wrote")
)

// RecordFormat is the format_version of records.
const RecordFormat = "1"

// Record is what archiplan knows of a preview it wrote: everything an approval is checked
// against. It lives under .git/, out of every planner's reach.
type Record struct {
	FormatVersion string `json:"format_version"`
	Name          string `json:"name"`
	File          string `json:"file"`        // the plan file previewed
	PlanSHA256    string `json:"plan_sha256"` // its bytes
	Commit        string `json:"commit"`      // HEAD when previewed
	Blob          string `json:"blob"`        // the model's blob there
	Policy        string `json:"policy"`      // hash of the policy in force
	Scope         string `json:"scope"`       // hash of the context file's bytes; "" without one
	Verdict       string `json:"verdict"`
	Reason        string `json:"reason,omitempty"`
	// Rules is what the workspace's rules said of the plan at the preview (plans.RulesSaid; ""
	// when nothing): an approval's apply judges again and is withdrawn when they say otherwise.
	Rules   string `json:"rules,omitempty"`
	Summary string `json:"summary,omitempty"` // the plan's summary, for listings
	// Reviewer is the name a reviewer gave on the review page when approving ("" otherwise).
	Reviewer string `json:"reviewer,omitempty"`
	// Forge is the forge review that approved the plan's pull request (archiplan pr): its
	// account goes in Approved-By. Nil otherwise.
	Forge *ForgeApproval `json:"forge,omitempty"`
	// Needs are the approvals the owners and rules ask for (none: one approval, by anyone), and
	// Approvals those given so far, each bound to the preview read
	Needs     []Need     `json:"needs,omitempty"`
	Approvals []Approval `json:"approvals,omitempty"`
	// Outputs are the files written, with their SHA-256: the preview on disk must still be these.
	Outputs map[string]string `json:"outputs"`
	Created []string          `json:"created,omitempty"` // ids the plan creates
	Changes []string          `json:"changes,omitempty"` // what each action does, in words
	// Objects are, for each action, every object its edits create, change or delete, by id (the
	// cascades of a delete, what a merge moves, the folders made): bound like the words
	Objects []string  `json:"objects,omitempty"`
	Reads   []string  `json:"reads,omitempty"` // ids the plan reads or changes
	At      time.Time `json:"at"`
	// Fixed is what the NAME's first valid preview fixed; every record of the NAME carries it
	// on, and it outlives the record (see Fixed)
	Fixed *Fixed `json:"fixed,omitempty"`
	// Stale, when set, says why this preview, valid once, went stale: previewed again on another
	// HEAD, the plan would make changes that read otherwise than the NAME's first valid preview
	// (PLAN_WORDS_CHANGED). Its verdict is invalid; an approval of it is refused as stale.
	Stale string `json:"stale,omitempty"`
	// Next, when set, says that no approval of this preview applies anything, and what to do
	// instead: its plan bytes were applied before (PLAN_APPLIED_BEFORE, or PLAN_ALREADY_APPLIED
	// when a commit removed their record). Decided once, by the ledger's preview; approve, the
	// review page and its Approve say this step, in these words.
	Next string `json:"next,omitempty"`
}

// Outputs are the files of a preview.
type Outputs struct {
	Preview  []byte
	Report   []byte
	Pictures map[string][]byte // by file name (PictureFile)
}

// Hash is the hex SHA-256 of bytes, as records keep them.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (b *Inbox) recordPath(name string) string { return filepath.Join(b.StateDir, name+".json") }

// Fixed is what a NAME's first valid preview fixed: the plan bytes it showed and, in words, what
// each change does. Once fixed, no other bytes are ever approvable under that NAME, and the same
// bytes only while every change reads the same (a preview after HEAD or the policy moved). It
// lives under .git/, kept until the plan is applied, so that neither deleting the plan nor a
// rejection lets a NAME be reused for what the person did not read. It rides in the NAME's record
// (set by the first valid preview, carried on by every record after it), and is written to a file
// of its own only when the record goes while the plan is gone.
type Fixed struct {
	Name       string    `json:"name"`
	PlanSHA256 string    `json:"plan_sha256"`
	Created    []string  `json:"created,omitempty"`
	Changes    []string  `json:"changes,omitempty"`
	Objects    []string  `json:"objects,omitempty"`
	At         time.Time `json:"at"`
}

func (b *Inbox) fixedPath(name string) string {
	return filepath.Join(b.StateDir, "fixed", name+".json")
}

// Fixed reads what NAME's first valid preview fixed; nil (and no error) when nothing is fixed yet.
func (b *Inbox) Fixed(name string) (*Fixed, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if b.StateDir == "" {
		return nil, nil
	}
	if r, err := b.Record(name); err == nil && r.Fixed != nil {
		return r.Fixed, nil
	}
	return b.readFixed(name)
}

// fixedOf is what the NAME of rec had fixed, from the record in hand: the one it carries, or
// the file kept of its own (records written before Fixed rode in them).
func (b *Inbox) fixedOf(rec *Record) (*Fixed, error) {
	if b.StateDir == "" {
		return nil, nil
	}
	if rec.Fixed != nil {
		return rec.Fixed, nil
	}
	return b.readFixed(rec.Name)
}

func (b *Inbox) readFixed(name string) (*Fixed, error) {
	data, err := ReadFile(b.fixedPath(name), MaxContextBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read what %s's preview fixed: %w", name, err)
	}
	var f Fixed
	if err := json.Unmarshal(data, &f); err != nil || f.Name != name || f.PlanSHA256 == "" {
		return nil, fmt.Errorf("read what %s's preview fixed: not a record of archiplan's", name)
	}
	return &f, nil
}

// keepFixed writes what a NAME's preview fixed to a file of its own: its record is going.
func (b *Inbox) keepFixed(f *Fixed) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(b.fixedPath(f.Name)), 0o755); err != nil {
		return fmt.Errorf("keep what %s's preview fixed: %w", f.Name, err)
	}
	return writeAtomic(b.fixedPath(f.Name), append(data, '\n'))
}

// lock takes the inbox's preview lock, exclusive (LOCK_EX: while a NAME's outputs and record are
// written or removed) or shared (LOCK_SH: while they are read as one). It is an flock on a file
// under .git, where no planner writes, so no planner can take it; the kernel releases it when its
// holder dies. Without it, an approval read between a preview's files and its record found "no
// preview yet", or a new preview beside the old record: "not the one archiplan wrote". A shared
// lock that cannot be had (a read-only workspace) is no lock: a reader then checks as before,
// and refuses what does not match.
func (b *Inbox) lock(how osfile.How) (unlock func(), err error) {
	none := func() {}
	if b.StateDir == "" {
		return none, nil
	}
	// a reader makes the folder too: one that found none took no lock, and read the first
	// preview ever written while it was being written
	if err := os.MkdirAll(b.StateDir, 0o755); err != nil && how == osfile.Exclusive {
		return nil, fmt.Errorf("preview lock: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(b.StateDir, "previews.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if how == osfile.Shared {
			return none, nil
		}
		return nil, fmt.Errorf("preview lock: %w", err)
	}
	if err = osfile.Lock(f, how); err != nil {
		f.Close()
		if how == osfile.Shared {
			return none, nil
		}
		return nil, fmt.Errorf("preview lock: %w", err)
	}
	return func() { f.Close() }, nil // closing the last descriptor releases the lock
}

// Steady runs fn while no preview is being written: what fn reads of records and outputs is
// from whole previews, each record beside the files it names.
func (b *Inbox) Steady(fn func() error) error {
	unlock, err := b.lock(osfile.Shared)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// Publish writes a preview's outputs atomically (pictures, then the preview, then the report:
// whoever sees the report finds the rest), removes pictures of NAME no longer part of it, and
// records what it wrote, all under the preview lock (see Steady).
func (b *Inbox) Publish(name string, out Outputs, rec *Record) error {
	if err := CheckName(name); err != nil {
		return err
	}
	unlock, err := b.lock(osfile.Exclusive)
	if err != nil {
		return err
	}
	defer unlock()
	rec.FormatVersion, rec.Name, rec.Outputs = RecordFormat, name, map[string]string{}
	if rec.At.IsZero() {
		rec.At = time.Now().UTC()
	}
	pics := make([]string, 0, len(out.Pictures))
	for f := range out.Pictures {
		if n, kind, _ := Parse(f); kind != KindPicture || n != name {
			return fmt.Errorf("write picture %q: %w", f, ErrBadName)
		}
		pics = append(pics, f)
	}
	sort.Strings(pics)
	// a directory a planner made at one of the names, which no rename replaces, is refused before
	// anything is written: the preview would fail there after the pictures, at every pass
	for _, f := range append(pics, PreviewFile(name), ReportFile(name)) {
		if fi, err := os.Lstat(b.Path(f)); err == nil && fi.IsDir() {
			return fmt.Errorf("%w: %s", ErrNameTaken, takenWords(f))
		}
	}
	for _, f := range pics {
		if err := writeAtomic(b.Path(f), out.Pictures[f]); err != nil {
			return err
		}
		rec.Outputs[f] = Hash(out.Pictures[f])
	}
	if err := writeAtomic(b.Path(PreviewFile(name)), out.Preview); err != nil {
		return err
	}
	rec.Outputs[PreviewFile(name)] = Hash(out.Preview)
	if err := writeAtomic(b.Path(ReportFile(name)), out.Report); err != nil {
		return err
	}
	rec.Outputs[ReportFile(name)] = Hash(out.Report)
	b.removePictures(name, out.Pictures)
	return b.writeRecord(rec)
}

func (b *Inbox) writeRecord(rec *Record) error {
	if rec.Fixed == nil {
		// carried on from the NAME's earlier records: fixed once, fixed until applied
		if fx, err := b.Fixed(rec.Name); err == nil {
			rec.Fixed = fx
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.StateDir, 0o755); err != nil {
		return fmt.Errorf("record %s: %w", rec.Name, err)
	}
	return writeAtomic(b.recordPath(rec.Name), append(data, '\n'))
}

// removePictures removes NAME's pictures but those kept.
func (b *Inbox) removePictures(name string, keep map[string][]byte) {
	entries, err := os.ReadDir(b.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if n, kind, _ := Parse(e.Name()); kind == KindPicture && n == name {
			if _, ok := keep[e.Name()]; !ok {
				os.Remove(b.Path(e.Name()))
			}
		}
	}
}

// Record reads what archiplan recorded of NAME's preview.
func (b *Inbox) Record(name string) (*Record, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	data, err := ReadFile(b.recordPath(name), MaxContextBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", name, ErrNotPreviewed)
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read the record of %s: %w", name, err)
	}
	if r.Name != name {
		return nil, fmt.Errorf("the record of %s names %q: %w", name, r.Name, ErrNotPreviewed)
	}
	return &r, nil
}

// Verify checks that the files of a preview are still the ones archiplan wrote, and returns
// their bytes by file name. Anything else means the person may have read a forgery.
func (b *Inbox) Verify(rec *Record) (map[string][]byte, error) {
	files := make([]string, 0, len(rec.Outputs))
	for f := range rec.Outputs {
		files = append(files, f)
	}
	sort.Strings(files)
	out := map[string][]byte{}
	for _, f := range files {
		if n, kind, _ := Parse(f); n != rec.Name || kind != KindPreview && kind != KindReport && kind != KindPicture {
			return nil, fmt.Errorf("%s: %w", f, ErrForged)
		}
		data, err := ReadFile(b.Path(f), MaxOutputBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v", f, ErrForged, err)
		}
		if Hash(data) != rec.Outputs[f] {
			return nil, fmt.Errorf("%s was changed after archiplan wrote it: %w", f, ErrForged)
		}
		out[f] = data
	}
	return out, nil
}

// Reject writes why a plan was not applied (outputs and record), then renames its file to
// NAME.rejected: whoever sees NAME.rejected finds the preview saying why.
//
// A pending plan (rejected by hand while a daemon may run) is renamed first instead: a daemon
// previews pending plans, and one seeing NAME.json beside outputs it did not write would write
// its own preview over the reason. A rejected plan is never previewed.
//
// It is all or nothing: when a write or the rename fails, what was changed is put back (the plan's
// name, its preview, report, pictures and record) and the error returned.
func (b *Inbox) Reject(e Entry, out Outputs, rec *Record) error {
	rec.File = RejectedFile(e.Name)
	pending := e.State == Pending
	if e.File != rec.File {
		// a directory there is refused before the rejection is written over the preview: nothing
		// half-done (a file there is replaced by the rename, see move)
		if fi, err := os.Lstat(b.Path(rec.File)); err == nil && fi.IsDir() {
			return taken(e.File, rec.File)
		}
	}
	// all or nothing: what a write or rename that fails midway changed is put back, so the plan
	// is either rejected whole (renamed, its preview, report and record the rejection's) or left
	// as it was
	was := b.outputsNow(e.Name)
	if !pending {
		if err := b.Publish(e.Name, out, rec); err != nil {
			b.putBack(e.Name, was)
			return err
		}
	}
	if e.File != rec.File {
		if err := b.move(e.File, rec.File); err != nil {
			b.putBack(e.Name, was)
			return err
		}
	}
	if pending {
		if err := b.Publish(e.Name, out, rec); err != nil {
			b.putBack(e.Name, was)
			if e.File != rec.File {
				// back to NAME.json, unless a planner wrote a new one meanwhile (kept: the plan
				// stays NAME.rejected then, its old preview put back, and the error says so)
				if merr := renameNoReplace(b.Path(rec.File), b.Path(e.File)); merr != nil {
					return fmt.Errorf("%w (and %s could not be renamed back to %s: %v)", err, rec.File, e.File, merr)
				}
			}
			return err
		}
	}
	return nil
}

// outputsNow are the bytes of NAME's preview, report, pictures and record as they are now, by
// path (nil: absent), for putBack; a file that cannot be read (a planner's link) is not kept,
// and never written back.
func (b *Inbox) outputsNow(name string) map[string][]byte {
	paths := []string{b.Path(PreviewFile(name)), b.Path(ReportFile(name)), b.recordPath(name)}
	if entries, err := os.ReadDir(b.Dir); err == nil {
		for _, e := range entries {
			if n, kind, _ := Parse(e.Name()); kind == KindPicture && n == name {
				paths = append(paths, b.Path(e.Name()))
			}
		}
	}
	was := map[string][]byte{}
	for _, p := range paths {
		data, err := ReadFile(p, MaxOutputBytes)
		switch {
		case err == nil:
			was[p] = data
		case errors.Is(err, fs.ErrNotExist):
			was[p] = nil
		}
	}
	return was
}

// putBack makes NAME's outputs and record what outputsNow found: written back where they differ
// now, removed where they were absent (pictures written since included).
func (b *Inbox) putBack(name string, was map[string][]byte) {
	if entries, err := os.ReadDir(b.Dir); err == nil {
		for _, e := range entries {
			if n, kind, _ := Parse(e.Name()); kind == KindPicture && n == name {
				if _, ok := was[b.Path(e.Name())]; !ok {
					was[b.Path(e.Name())] = nil
				}
			}
		}
	}
	for p, data := range was {
		now, err := ReadFile(p, MaxOutputBytes)
		switch {
		case data == nil && err == nil:
			os.Remove(p)
		case data != nil && (err != nil || !bytes.Equal(now, data)):
			_ = writeAtomic(p, data)
		}
	}
}

// Approve renames NAME.json to NAME.approved: what a person does in a file manager.
func (b *Inbox) Approve(name string) error {
	e, err := b.Find(name)
	if err != nil {
		return err
	}
	switch e.State {
	case Approved:
		return nil
	case Rejected:
		return fmt.Errorf("%s is rejected (%s says why): archiplan resubmit %s writes it under a new name and previews it", e.File, PreviewFile(name), name)
	}
	return b.move(e.File, ApprovedFile(name))
}

// move renames a plan's file from to to, NAME.approved or NAME.rejected: names that say the
// person's (or archiplan's) decision, which a planner's file never holds. Whatever a planner put
// there beforehand (a file, a link, a pipe) is replaced in the rename's one step, never followed,
// opened or read, so that it can neither block the decision (issue 35: the person's approval is
// never refused because of a planner's file) nor receive it. Only a directory there, which a
// rename cannot replace, refuses the move (ErrNameTaken).
func (b *Inbox) move(from, to string) error {
	if err := os.Rename(b.Path(from), b.Path(to)); err != nil {
		if fi, lerr := os.Lstat(b.Path(to)); lerr == nil && fi.IsDir() {
			return taken(from, to)
		}
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	return nil
}

func taken(from, to string) error {
	return fmt.Errorf("%w: %s cannot become %s: a directory of that name is in the inbox, which archiplan did not "+
		"put there (it is neither removed nor entered): see who made it, remove it, then try again", ErrNameTaken, from, to)
}

// ErrPreviewChanged means the preview was written again since the reviewer's page was drawn.
var ErrPreviewChanged = errors.New("the preview changed since it was shown")

// ErrStale means the plan was previewed valid and went stale before its approval was taken: on
// today's HEAD it would make changes that read otherwise than that preview said.
var ErrStale = errors.New("the approval is stale")

// ErrNotValid means the preview shown did not say valid: only a plan previewed valid is approved.
var ErrNotValid = errors.New("only a plan previewed valid is approved")

// ErrAppliedBefore means the preview shown is of plan bytes applied before (the record's Next):
// an approval would apply nothing.
var ErrAppliedBefore = errors.New("these plan bytes were applied before: approving them applies nothing")

// ApproveSeen approves NAME for a reviewer who saw the preview whose SHA-256 is previewSHA: only
// if that is still the preview archiplan wrote, and the files on disk are still its own. The
// reviewer's name (may be empty) is kept in the record, for the commit's Approved-By. The name is
// typed, not authenticated: an owner's approval is the page's session's person (OSUser), never
// the name typed, so that whoever holds the page cannot count as two owners under two names.
func (b *Inbox) ApproveSeen(name, previewSHA, reviewer string) error {
	return b.Steady(func() error { return b.approveSeen(name, previewSHA, reviewer, OSUser()) })
}

// ApproveAs is ApproveSeen for a plan that may need its owners' approvals: who (the OS user on
// the command line) is recorded as one of them, and the plan is renamed approved only once they
// are complete; until then it stays pending, and its record says whose approvals are missing.
func (b *Inbox) ApproveAs(name, previewSHA, reviewer, who string) error {
	return b.Steady(func() error { return b.approveSeen(name, previewSHA, reviewer, who) })
}

func (b *Inbox) approveSeen(name, previewSHA, reviewer, who string) error {
	rec, err := b.Record(name)
	if err != nil {
		return err
	}
	if rec.Outputs[PreviewFile(name)] != previewSHA {
		return fmt.Errorf("%s: %w: read it again", name, ErrPreviewChanged)
	}
	if err := rec.Approvable(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := b.Verify(rec); err != nil {
		return err
	}
	rec.Reviewer = strings.Join(strings.Fields(strings.NewReplacer("<", "", ">", "").Replace(reviewer)), " ")
	if len(rec.Reviewer) > 100 {
		rec.Reviewer = rec.Reviewer[:100]
	}
	complete, err := b.approveAs(rec, previewSHA, who)
	if err != nil {
		return err
	}
	if err := b.writeRecord(rec); err != nil {
		return err
	}
	if !complete {
		return nil // waits for the other owners
	}
	return b.Approve(name)
}

// Approvable says why no approval of the preview recorded is taken (ErrNotValid, ErrAppliedBefore,
// with the step its Next says), or nil: one answer for approve and the review page.
func (r *Record) Approvable() error { return r.approvable(r.Next) }

// ApprovableAt is Approvable as of HEAD's model headBlob: a preview of plan bytes applied before,
// made on another model, says the step NextAt gives (a revert since may have undone them), not the
// one it said when it was made. The review page asks it until the daemon has previewed again.
func (r *Record) ApprovableAt(name, headBlob string) error {
	return r.approvable(r.NextAt(name, headBlob))
}

// NextAt is the step of a preview of plan bytes applied before (Next) as of HEAD's model
// headBlob: on the model it was made on, Next; on another (a revert or a commit since), the step
// is to preview the same bytes on HEAD under a new name (its NAME is bound to that preview's
// words). One wording for approve, the review page and its Approve.
func (r *Record) NextAt(name, headBlob string) string {
	if r.Next == "" || headBlob == "" || r.Blob == headBlob {
		return r.Next
	}
	return "the model changed since this preview (a revert since may have undone them): archiplan resubmit " + name +
		" previews the same bytes on HEAD under a new name; approve what that preview says"
}

func (r *Record) approvable(next string) error {
	switch {
	case next != "" && r.Verdict == "valid":
		return fmt.Errorf("%w. Next: %s", ErrAppliedBefore, next)
	case next != "":
		return fmt.Errorf("%w: its preview says %s. Next: %s", ErrNotValid, r.Verdict, next)
	case r.Verdict != "valid": // plans.VerdictValid: the inbox imports nothing of plans
		return fmt.Errorf("%w: its preview says %s", ErrNotValid, r.Verdict)
	}
	return nil
}

// Clear removes every file of NAME from the inbox (the plan in any state, its outputs, pictures
// and context) and its record: after it was applied.
func (b *Inbox) Clear(name string) {
	if CheckName(name) != nil {
		return
	}
	if unlock, err := b.lock(osfile.Exclusive); err == nil {
		defer unlock()
	}
	entries, _ := os.ReadDir(b.Dir)
	for _, e := range entries {
		if n, kind, _ := Parse(e.Name()); n == name && kind != KindOther && kind != KindTemp && kind != KindUnsafe {
			os.Remove(b.Path(e.Name()))
		}
	}
	os.Remove(b.recordPath(name))
	if b.StateDir != "" {
		os.Remove(b.fixedPath(name)) // applied: the NAME is free again
	}
}

// RemoveOutputs removes the outputs of a NAME whose plan is gone, and its record; the context a
// planner left stays until the plan goes. What its preview fixed stays: a plan deleted and
// written again is still bound to the bytes the person may have read. A listing can miss a plan
// that is being renamed (a directory read during a rename may return neither name, and an entry
// renamed after the read is gone when stat'ed), so NAME's plan files are looked for again first:
// while any is there, nothing is removed and it returns false. Removing the record of a plan just
// renamed to .approved rejected it as "approved before archiplan previewed it" (20 approvals at
// once).
func (b *Inbox) RemoveOutputs(name string, files []string) bool {
	if CheckName(name) != nil || b.HasPlan(name) {
		return false
	}
	if unlock, err := b.lock(osfile.Exclusive); err == nil {
		defer unlock()
	}
	for _, f := range files {
		if n, kind, _ := Parse(f); n == name && (kind == KindPreview || kind == KindReport || kind == KindPicture) {
			os.Remove(b.Path(f))
		}
	}
	if r, err := b.Record(name); err == nil && r.Fixed != nil && b.keepFixed(r.Fixed) != nil {
		return true // the outputs went; the record stays rather than the NAME be freed
	}
	os.Remove(b.recordPath(name))
	return true
}

// HasPlan says whether a plan file of NAME (in any state) is in the inbox now.
func (b *Inbox) HasPlan(name string) bool {
	for _, suffix := range []string{SuffixPlan, SuffixApproved, SuffixJSONApproved, SuffixRejected} {
		if _, err := os.Lstat(b.Path(name + suffix)); err == nil {
			return true
		}
	}
	return false
}

// Submit writes a new plan NAME.json, never over an existing file.
func (b *Inbox) Submit(name string, raw []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if len(raw) > MaxPlanBytes {
		return fmt.Errorf("plan %s: %w", name, ErrTooLarge)
	}
	return writeNew(b.Path(PlanFile(name)), raw)
}

// WriteContext writes NAME.context.json beside a plan that is about to be submitted.
func (b *Inbox) WriteContext(name string, data []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return writeAtomic(b.Path(ContextFile(name)), data)
}

// writeAtomic writes a file whole or not at all: a temporary file made new in the same folder
// (never through a link), synced, renamed over the target (a rename replaces a link, it never
// follows one).
func writeAtomic(path string, data []byte) error {
	tmp, err := tempFile(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename into %s: %w", filepath.Base(path), err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeNew writes a file that must not exist yet: a link from the finished temporary file, which
// fails when the name is taken.
func writeNew(path string, data []byte) error {
	tmp, err := tempFile(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", filepath.Base(path), ErrExists)
		}
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

func tempFile(path string, data []byte) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return name, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// takenWords says why an output f of a plan is not written: a planner's directory at its name.
func takenWords(f string) string {
	return f + " cannot be written: a directory of that name is in the inbox, which archiplan did not " +
		"put there (it is neither removed nor entered): see who made it, remove it, and the plan is previewed"
}

// Taken says, for each plan NAME a directory (a planner's) takes the name of one of its outputs
// (preview, report or a picture) from, why it is not previewed, in the words the daemon's refusal
// gives (INBOX_NAME_TAKEN); one read of the inbox. Status and the review page show it.
func (b *Inbox) Taken() map[string]string {
	out := map[string]string{}
	entries, err := os.ReadDir(b.Dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		n, kind, _ := Parse(e.Name())
		if !e.IsDir() || kind != KindPreview && kind != KindReport && kind != KindPicture || out[n] != "" {
			continue
		}
		out[n] = ErrNameTaken.Error() + ": " + takenWords(e.Name())
	}
	return out
}
