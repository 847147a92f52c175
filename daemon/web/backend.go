package web

import (
	"errors"
	"time"

	"github.com/archiplan/archiplan/plans"
)

var (
	// ErrNotFound means no plan, view or commit has the name given.
	ErrNotFound = errors.New("not found")
	// ErrPreviewChanged means the preview on disk is not the one the page showed: the approval is
	// refused, and the page drawn again shows the new one.
	ErrPreviewChanged = errors.New("the preview changed since the page was drawn")
	// ErrNotPending means the plan is not waiting for a decision (approved, rejected, not
	// previewed yet, or gone).
	ErrNotPending = errors.New("the plan is not waiting for a decision")
	// ErrBadName means a name that the inbox's safe pattern refuses.
	ErrBadName = errors.New("not an allowed plan name")
	// ErrNoReason means a rejection without a reason.
	ErrNoReason = errors.New("a rejection needs a reason")
	// ErrNotApproved means an approval the workspace refuses as it is (a save of the model not
	// committed, MODEL_UNCOMMITTED, which an apply could only reject): the words say what to do.
	ErrNotApproved = errors.New("not approved")
)

// Refusal is an approval or rejection the page refuses, with the code the command line gives the
// same refusal (plans.Refusals): the message starts with it, and a JSON answer gives it apart.
type Refusal struct {
	Code plans.Code
	Err  error
}

func (r *Refusal) Error() string { return string(r.Code) + ": " + r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// State is where a plan is in the inbox's life.
type State string

// The inbox states the page shows.
const (
	StatePending   State = "pending"   // written, not previewed yet
	StatePreviewed State = "previewed" // previewed, waiting for a person
	StateApproved  State = "approved"  // renamed to .approved, the daemon applies it
	StateRejected  State = "rejected"  // refused, with a reason
	StateRefused   State = "refused"   // a file the inbox will not read (bad name, not a regular file)
)

// Plan is one line of the inbox.
type Plan struct {
	Name     string // NAME of plans/NAME.json; shown as text, whatever it holds
	File     string // the file's name in the inbox
	State    State
	Verdict  string // from its report: valid, invalid, not_ready, stale, rejected
	Summary  string // the plan's summary (planner text)
	Errors   int
	Warnings int
	Note     string // why it is rejected or refused, or what changed since its preview
	Modified time.Time
	Linkable bool // the name is safe for a URL and a plan page exists
}

// Finding is one error or warning of a report.
type Finding struct {
	Severity string
	Code     string
	Message  string
	Action   *int
	Pointer  string
	Snippet  string
}

// PlanPage is what a plan's page shows.
type PlanPage struct {
	Plan
	Preview       []byte // the preview's Markdown, as archiplan wrote it
	PreviewSHA256 string // its hash: the approval carries it back
	PlanSHA256    string
	Findings      []Finding
	Pictures      []string // the preview's pictures (file names), as archiplan wrote them
	Decidable     bool     // previewed and waiting: reject is offered
	Approvable    bool     // and valid: approve is offered too (an invalid plan approved is only rejected)
	// Next, when set, is why no approval applies anything (plan bytes applied before) and the
	// step instead, as the ledger's preview decided it (the record's Next)
	Next string
	// Waiting says who approved it and whose approvals it still waits for, when the owners'
	// approvals it needs are not all given ("" otherwise)
	Waiting string
}

// EntryKind is what a history entry did.
type EntryKind string

// The history's kinds.
const (
	KindApply     EntryKind = "apply"
	KindRevert    EntryKind = "revert"
	KindGitRevert EntryKind = "git-revert"
	// KindGitReapply is a plain git revert of a plan's revert: the plan applied again
	KindGitReapply EntryKind = "git-reapply"
	KindOutside    EntryKind = "outside" // a commit made outside archiplan that changed the model
)

// Entry is one line of the history, newest first.
type Entry struct {
	Commit     string
	When       time.Time
	Kind       EntryKind
	PlanID     string
	Summary    string
	Author     string
	ApprovedBy string
	Reverts    string   // the commit a revert undoes
	RevertedBy string   // the commit that reverted this apply, if any
	UndoneBy   string   // a later commit outside archiplan that put back what the apply changed
	MergedBy   string   // the merge that brought this commit from its other side (a merged branch's)
	Changes    []string // what changed in the model, in words
	Comparing  bool     // the comparison with its parent is still being made
	Views      []View   // the views it changed, drawn after the commit
}

// LogPage is one page of the history.
type LogPage struct {
	Entries []Entry
	Page    int  // its number, from 1 (the newest)
	Older   bool // a page of older entries follows
}

// HistoryPageSize is how many entries a page of the history holds (a variable for tests).
var HistoryPageSize = 50

// View is one view of the model.
type View struct {
	ID     string
	Name   string
	At     string // the commit it is drawn at ("" for HEAD)
	Folder string
	// W and H are the size of its picture when known (0 otherwise): the page reserves the room
	// before the picture loads, so what is below it does not move
	W, H int
}

// Backend is everything the page reads and does. An implementation must make Approve and Reject
// exactly the inbox's renames, and Revert the ledger's revert: the page adds no other power.
type Backend interface {
	// Inbox lists every plan file in the inbox, refused ones included, sorted by name.
	Inbox() ([]Plan, error)
	// Plan is one plan's page; ErrNotFound when there is none.
	Plan(name string) (*PlanPage, error)
	// Approve renames plans/NAME.json to NAME.approved if, and only if, the preview on disk
	// still hashes to previewSHA256 (ErrPreviewChanged otherwise). reviewer is the name the
	// person gave on the page ("" for none): it is recorded beside the daemon's user.
	Approve(name, previewSHA256, reviewer string) error
	// Reject renames plans/NAME.json to NAME.rejected with reason written in its preview and
	// report.
	Reject(name, reason, reviewer string) error
	// Log is one page of the history (page 1 the newest; a page past the end is empty), newest
	// first, commits made outside archiplan included.
	Log(page int) (*LogPage, error)
	// Revert undoes one applied plan (by id or commit) and returns the new commit; a conflict's
	// error names the commit that conflicts.
	Revert(target string) (string, error)
	// Views lists the views of the model at HEAD.
	Views() ([]View, error)
	// ViewSVG draws one view at a commit ("" for HEAD).
	ViewSVG(id, at string) ([]byte, error)
	// Picture is one picture of plan NAME's preview (a file name PlanPage.Pictures lists), only
	// as archiplan wrote it.
	Picture(name, file string) ([]byte, error)
	// Subscribe returns a channel that receives a value whenever the inbox or HEAD may have
	// changed, and a function that ends the subscription.
	Subscribe() (<-chan struct{}, func())
}
