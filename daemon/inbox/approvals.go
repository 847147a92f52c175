package inbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/archiplan/archiplan/internal/osfile"
)

// Need is an approval a plan needs by the workspace's owners and rules (the ledger fills it in
// from the check): Count distinct approvals from the people in From (anyone when empty).
type Need struct {
	Rule    string   `json:"rule"`
	Count   int      `json:"count"`
	From    []string `json:"from,omitempty"`
	Message string   `json:"message,omitempty"`
}

// Approval is one person's approval of a plan that needs several, bound to the preview read.
type Approval struct {
	By      string    `json:"by"`
	Preview string    `json:"preview"` // the SHA-256 of the NAME.preview.md approved
	At      time.Time `json:"at"`
}

var (
	// ErrNoApprover means a plan that needs its owners' approvals was approved by nobody named.
	ErrNoApprover = errors.New("this plan needs its owners' approvals: say who approves")
	// ErrApprovedBy means the same person approved the plan already.
	ErrApprovedBy = errors.New("approved by this person already")
)

// OSUser is the approver this process speaks for: the name the system's user database gives its
// uid ("uid N" when it has none). On the command line it is the person running archiplan; on the
// review page the person its session was given to (the login address lies in a file only the
// daemon's user reads), whatever name is typed beside Approve. Never $USER, which anyone sets:
// one uid is one approver, so one person cannot count as two owners.
func OSUser() string {
	uid := strconv.Itoa(os.Getuid())
	if u, err := user.LookupId(uid); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + uid
}

// Missing is what needs still lack given the approvals: for each need that is not met, how many
// approvals more, from whom.
func Missing(needs []Need, approvals []Approval) []Need {
	var out []Need
	for _, n := range needs {
		got := 0
		for _, a := range approvals {
			if len(n.From) == 0 || contains(n.From, a.By) {
				got++
			}
		}
		if got < n.Count {
			m := n
			m.Count = n.Count - got
			out = append(out, m)
		}
	}
	return out
}

// MissingWords says in one line whose approvals a plan still needs ("" when none).
func MissingWords(missing []Need) string {
	var parts []string
	for _, n := range missing {
		who := "anyone"
		if len(n.From) > 0 {
			who = strings.Join(n.From, " or ")
		}
		parts = append(parts, fmt.Sprintf("%d more from %s (%s)", n.Count, who, n.Rule))
	}
	return strings.Join(parts, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Approvers are the people who approved a plan so far.
func (r *Record) Approvers() []string {
	var out []string
	for _, a := range r.Approvals {
		out = append(out, a.By)
	}
	return out
}

// WaitingWords says in one line who approved a plan and whose approvals it still waits for ("" when
// none are missing): what status and the review page show under a plan.
func WaitingWords(approvers []string, missing []Need) string {
	if len(missing) == 0 {
		return ""
	}
	by := "nobody yet"
	if len(approvers) > 0 {
		by = strings.Join(approvers, ", ")
	}
	return "approved by " + by + "; waits for " + MissingWords(missing)
}

// StillMissing says in one line whose approvals the plan still needs ("" when none).
func (r *Record) StillMissing() string { return MissingWords(Missing(r.Needs, r.Approvals)) }

// approveAs records who approves a plan that needs its owners' approvals. It returns true when
// the approvals are complete (the plan may be renamed approved), false when the plan waits for
// more; the record is written either way.
func (b *Inbox) approveAs(rec *Record, previewSHA, who string) (bool, error) {
	if len(rec.Needs) == 0 {
		return true, nil
	}
	who = strings.TrimSpace(who)
	if who == "" {
		return false, ErrNoApprover
	}
	for _, a := range rec.Approvals {
		if a.By == who {
			return false, fmt.Errorf("%s: %w (%s); still missing: %s", rec.Name, ErrApprovedBy, who, rec.StillMissing())
		}
	}
	rec.Approvals = append(rec.Approvals, Approval{By: who, Preview: previewSHA, At: time.Now().UTC()})
	return len(Missing(rec.Needs, rec.Approvals)) == 0, nil
}

var (
	// ErrPlanChanged means an approved plan is not the bytes previewed, or not those its NAME's
	// first valid preview fixed.
	ErrPlanChanged = errors.New("the plan changed after its preview")
	// ErrPreviewAgain means an approval was previewed under another policy or scope than the one
	// in force: it is withdrawn and previewed again, not rejected.
	ErrPreviewAgain = errors.New("previewed again")
	// ErrApprovalsMissing means an approval (renamed by hand) lacks the owners' approvals its
	// preview asked for: it is withdrawn, not rejected.
	ErrApprovalsMissing = errors.New("approvals missing")
)

// Evidence is everything an approval is checked against, read at once: the plan's bytes, the
// record of its preview, the preview's files as verified, and its context. An approval is this
// value, or a Refusal.
type Evidence struct {
	Raw     []byte            // the plan's bytes, as approved
	Record  *Record           // what archiplan recorded of the preview approved
	Files   map[string][]byte // the preview's files, each the one archiplan wrote
	Context []byte            // the plan's context file's bytes (its scope); nil without one
}

// Refusal is why an approval is not applied: the reason for the person, the sentinel error it
// wraps (its code), and the plan's bytes as read (nil, with Unread, when they could not be).
// Withdraw, when set, says why the approval went back to be previewed again rather than rejected
// (ErrPreviewAgain, ErrApprovalsMissing): Evidence withdrew it (NAME.json again).
type Refusal struct {
	Reason   string
	Err      error
	Raw      []byte
	Unread   bool
	Withdraw string
}

func (r *Refusal) Error() string { return r.Reason }
func (r *Refusal) Unwrap() error { return r.Err }

// Evidence reads the approval e once, while no preview is being written, and checks it against
// what archiplan recorded: the file opened is judged, not its listing (one link, and owner when
// it is not -1), the plan is the very bytes previewed and those its NAME's first valid preview
// fixed, the preview on disk is the one archiplan wrote and said valid (or not ready: the apply
// refuses that with its own code), its context can be read, and policy and scope are those the
// preview was made under (policy: the hash of the policy in force), its owners' approvals given.
// Any other answer is one *Refusal. An approval that is to be previewed again rather than
// rejected (policy or scope changed, owners' approvals missing) is withdrawn here, as part of the
// answer: its Refusal's Withdraw says why; one that cannot be (a NAME.json is beside it) is
// refused like any other.
func (b *Inbox) Evidence(e Entry, owner int, policy string) (*Evidence, error) {
	unlock, _ := b.lock(osfile.Shared) // a shared lock that cannot be had is none (see lock)
	defer unlock()
	a, err := b.gather(e, owner)
	if err != nil {
		return nil, err
	}
	ev, r := a.judge(policy)
	if r == nil {
		return ev, nil
	}
	if r.Withdraw != "" && b.Withdraw(e) != nil {
		r.Withdraw = "" // not withdrawn (a NAME.json is beside it): refused like any other
	}
	return nil, r
}

// approval is what the inbox and archiplan's records hold of one approval, read at once: the
// plan's bytes, its context (or why it cannot be read), the record of its preview, what its NAME's
// first valid preview fixed and the preview's files as verified (or why not). judge decides from
// it alone.
type approval struct {
	name     string
	raw, cx  []byte
	cxErr    error
	rec      *Record
	recErr   error
	fixed    *Fixed
	fixedErr error
	files    map[string][]byte
	filesErr error
}

// gather reads the approval e: the plan first (a plan that cannot be read, or is not taken for an
// approval, is refused at once: nothing else is read of it), then the inbox's context file, then
// what archiplan recorded under .git and the preview's files it names.
func (b *Inbox) gather(e Entry, owner int) (*approval, error) {
	raw, err := b.ReadApproval(e, owner)
	if err != nil {
		r := &Refusal{Reason: err.Error(), Err: err, Unread: true}
		if errors.Is(err, ErrNotAdopted) || errors.Is(err, ErrLinked) {
			r.Raw, r.Unread = raw, false // the file is read, only not taken for an approval
			r.Reason = "this approval has more than one link (" + err.Error() + "): a hard link to a previewed plan is no approval; only a previewed plan renamed by archiplan's user is applied"
			if errors.Is(err, ErrNotAdopted) {
				r.Reason = "this approval is a file archiplan did not adopt (a planner wrote it): in this workspace only a previewed plan, renamed by archiplan's user, is applied"
			}
		}
		return nil, r
	}
	a := &approval{name: e.Name, raw: raw}
	a.cx, a.cxErr = b.ReadContext(e.Name)
	if a.rec, a.recErr = b.Record(e.Name); a.recErr == nil {
		a.fixed, a.fixedErr = b.fixedOf(a.rec)
		a.files, a.filesErr = b.Verify(a.rec)
	}
	return a, nil
}

// judge decides an approval from what gather read, in the order a person's questions come: was
// it previewed, is it the very bytes previewed and those its NAME's first valid preview fixed, is
// the preview on disk archiplan's, did it say valid, can its scope be read, are policy and scope
// those it was previewed under, are its owners' approvals given. The answer is the Evidence or one
// Refusal; a Refusal with Withdraw set is for the approval to go back to be previewed again.
func (a *approval) judge(policy string) (*Evidence, *Refusal) {
	raw, rec := a.raw, a.rec
	cf := ContextFile(a.name)
	if a.recErr != nil {
		return nil, &Refusal{Err: a.recErr, Raw: raw, Reason: "approved before archiplan previewed it: only a plan whose preview was read is applied"}
	}
	if Hash(raw) != rec.PlanSHA256 {
		return nil, &Refusal{Err: ErrPlanChanged, Raw: raw, Reason: "the plan changed after its preview: only what was previewed is applied"}
	}
	if fx := a.fixed; a.fixedErr != nil || fx != nil && fx.PlanSHA256 != rec.PlanSHA256 {
		// the record is of other bytes than the NAME's first valid preview showed (the code is
		// plans.PlanChangedAfterPreview: the inbox imports nothing of plans)
		return nil, &Refusal{Err: ErrPlanChanged, Raw: raw,
			Reason: "the plan changed after " + a.name + " was previewed valid (PLAN_CHANGED_AFTER_PREVIEW): it is never applied under that name"}
	}
	if err := a.filesErr; err != nil {
		return nil, &Refusal{Err: err, Raw: raw,
			Reason: "the preview on disk is not the one archiplan wrote, so what was read may have been a forgery (" + err.Error() + "): read the new preview before you approve"}
	}
	if rec.Stale != "" {
		// previewed valid, then again as changing otherwise: the person read a valid preview, and
		// the plan went stale since (not "invalid", which would say they approved a refusal)
		return nil, &Refusal{Err: ErrStale, Raw: raw, Reason: rec.Stale}
	}
	if rec.Verdict != "valid" && rec.Verdict != "not_ready" { // plans.VerdictValid, plans.VerdictNotReady
		// the person was shown a plan that would not apply: what they approved is that refusal
		return nil, &Refusal{Err: ErrNotValid, Raw: raw, Reason: "its preview said " + rec.Verdict + ": only a plan previewed as valid is applied"}
	}
	if a.cxErr != nil {
		// a scope that cannot be read is never taken for no scope
		return nil, &Refusal{Err: a.cxErr, Raw: raw, Reason: "its context " + cf + " cannot be read (" + a.cxErr.Error() + "): a scoped plan is never applied unscoped"}
	}
	scope := ""
	if a.cx != nil {
		scope = Hash(a.cx)
	}
	if policy != rec.Policy || scope != rec.Scope {
		what := "the policy"
		if scope != rec.Scope {
			what = "its context (" + cf + ")"
		}
		return nil, &Refusal{Err: ErrPreviewAgain, Raw: raw, Reason: what + " changed since the preview: it is previewed again before an approval",
			Withdraw: what + " changed since the preview of " + a.name}
	}
	if missing := rec.StillMissing(); missing != "" {
		// renamed by hand: whose approval it was cannot be told; the owners approve with archiplan approve
		return nil, &Refusal{Err: ErrApprovalsMissing, Raw: raw, Reason: "approvals missing: " + missing,
			Withdraw: a.name + " needs more approvals (archiplan approve " + a.name + "): " + missing}
	}
	return &Evidence{Raw: raw, Record: rec, Files: a.files, Context: a.cx}, nil
}

// Withdraw renames an approved plan back to NAME.json, so that it is previewed again: for an
// approval whose policy or scope changed since its preview.
//
// A NAME.json a planner writes at any moment is never overwritten: the move is one link that
// fails when the name is taken (as writeNew does), not a look followed by a rename.
func (b *Inbox) Withdraw(e Entry) error {
	if e.State != Approved {
		return nil
	}
	if withdrawHook != nil {
		withdrawHook()
	}
	if err := renameNoReplace(b.Path(e.File), b.Path(PlanFile(e.Name))); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("withdraw %s: %w", e.File, ErrExists)
		}
		return fmt.Errorf("withdraw %s: %w", e.File, err)
	}
	syncDir(b.Dir)
	return nil
}

// linkThenRemove is a rename that fails (fs.ErrExist) on a taken name: a link, then the old name
// removed.
func linkThenRemove(from, to string) error {
	if err := os.Link(from, to); err != nil {
		return err
	}
	return os.Remove(from)
}

// withdrawHook, set by tests only, runs where a look-then-rename would have had its window: a
// planner's file placed there must survive the withdrawal.
var withdrawHook func()
