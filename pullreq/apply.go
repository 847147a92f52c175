package pullreq

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Outcome is what one look at a plan's pull request found and did.
type Outcome struct {
	Name    string
	Reverts string // a revert's pull request: the plan id it undoes
	Number  int
	State   string   // Waiting, Stale, Applied, Closed
	Reason  string   // one line: why it waits, why stale
	By      []string // the approvers that counted
	Commit  string   // the apply commit
	Merged  bool     // the forge merged the pull request
	Warning string   // applied, but the merge did not happen (the apply commit is on the branch)
}

// States of an Outcome.
const (
	Waiting = "waiting"
	Stale   = "stale"
	Applied = "applied"
	Closed  = "closed"
)

// ErrNoPR means archiplan opened no pull request for the plan.
var ErrNoPR = errors.New("no pull request: archiplan pr NAME opens one")

// Sync looks at every plan's pull request archiplan opened and applies those approved.
func (f *Flow) Sync(ctx context.Context) ([]*Outcome, error) {
	names, err := f.Names()
	if err != nil {
		return nil, err
	}
	var out []*Outcome
	var errs []error
	for _, n := range names {
		o, err := f.Apply(ctx, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n, err))
			continue
		}
		out = append(out, o)
	}
	reverts, err := f.revertNames()
	if err != nil {
		return out, errors.Join(append(errs, err)...)
	}
	for _, id := range reverts {
		o, err := f.ApplyRevert(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("revert of %s: %w", id, err))
			continue
		}
		out = append(out, o)
	}
	return out, errors.Join(errs...)
}

// Apply applies plan NAME when its pull request is approved as the promise asks: by someone
// allowed (not its author; the approvers configured; the owners rules of policy/, by forge
// account), on the very head archiplan pushed with the preview (a review of another head, or
// one the forge says a later push voided, does not count), the branch still that head, and the
// base still the commit the plan was previewed on (else the pull request is marked stale). The
// apply is the ledger's (one commit, the approver's account in Approved-By); then the branch is
// set to the apply commit and the forge merges it.
func (f *Flow) Apply(ctx context.Context, name string) (*Outcome, error) {
	st, err := f.Load(name)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNoPR)
	}
	return f.apply(ctx, st)
}

// apply applies what st's pull request shows, a plan or a revert, when it is approved as Apply
// says.
func (f *Flow) apply(ctx context.Context, st *State) (*Outcome, error) {
	name := st.Name
	o := &Outcome{Name: name, Reverts: st.Reverts, Number: st.Number}
	if st.Applied != "" {
		o.State, o.Commit, o.Merged = Applied, st.Applied, true
		return o, nil
	}
	pr, err := f.Forge.PR(ctx, st.Number)
	if err != nil {
		return nil, err
	}
	if pr.Merged || pr.State != "open" {
		o.State, o.Reason = Closed, "the pull request was closed or merged without archiplan: nothing is applied"
		return o, nil
	}
	box := f.Ledger.Inbox()
	var rec *inbox.Record
	if st.Reverts == "" {
		// a revert's binding is st itself (Base, Blob), kept under .git/ beside the ledger's
		if rec, err = box.Record(name); err != nil {
			return nil, err
		}
		// the preview the description shows must be the ledger's binding still
		if rec.Outputs[inbox.PreviewFile(name)] != st.Preview || rec.PlanSHA256 != st.Plan {
			return f.stale(ctx, st, o, "the plan was previewed again since this pull request showed it: archiplan pr "+name+" shows the new preview")
		}
		if rec.Verdict != plans.VerdictValid {
			o.State, o.Reason = Waiting, "the preview says "+rec.Verdict+": only a valid plan is applied"
			return o, nil
		}
	}
	// the branch as git says it (a forge updates its pull request's head a moment after a push)
	at, err := f.ws().BranchAt(ctx, f.Remote, st.Branch)
	if err != nil {
		return nil, err
	}
	if at != st.Head && at != "" {
		pr.HeadSHA = at
	}
	if pr.HeadSHA != st.Head {
		return f.stale(ctx, st, o, fmt.Sprintf("the branch moved to %s after archiplan pushed %s with the preview: what it shows is not what was previewed; %s previews it again",
			store.Short(pr.HeadSHA), store.Short(st.Head), st.again()))
	}
	by, why, err := f.approvers(ctx, st, pr, rec)
	if err != nil {
		return nil, err
	}
	if len(by) == 0 {
		o.State, o.Reason = Waiting, why
		return o, nil
	}
	// the base: the forge's and ours, both still the commit previewed on
	if err := f.Ledger.Pull(ctx); err != nil && !errors.Is(err, store.ErrUnreachable) {
		f.log().Warn("pull", "err", err)
	}
	head, err := f.ws().Head()
	if err != nil {
		return nil, err
	}
	if pr.BaseSHA != "" && pr.BaseSHA != st.Base || head != st.Base {
		moved := pr.BaseSHA
		if moved == st.Base || moved == "" {
			moved = head
		}
		return f.stale(ctx, st, o, fmt.Sprintf("the base moved from %s to %s after the preview: the approval is for a change on %s; %s previews it again on the new base",
			store.Short(st.Base), store.Short(moved), store.Short(st.Base), st.again()))
	}
	host := ""
	if u, err := url.Parse(pr.URL); err == nil {
		host = u.Hostname()
	}
	if st.Reverts != "" {
		return f.applyRevert(ctx, st, o, by, host)
	}
	res, waiting, err := f.recordApprovals(ctx, st, pr, rec, by, host)
	if waiting {
		o.State, o.Reason = Waiting, "approvals missing by the owners rules: "+missingWords(box, name)
		return o, nil
	}
	if err != nil {
		if res != nil && res.Reason != "" {
			return f.stale(ctx, st, o, "not applied ("+res.Verdict+"): "+res.Reason)
		}
		return nil, err
	}
	return f.merge(ctx, st, o, res.Commit, by, fmt.Sprintf("apply plan %s (archiplan, approved by %s)", name, strings.Join(by, ", ")))
}

// recordApprovals records each approval in by once, as archiplan approve records an owner's, until
// the plan's needs are met (the approval that meets them renames it approved); then the ledger
// applies it. waiting says the needs are not met yet.
func (f *Flow) recordApprovals(ctx context.Context, st *State, pr forge.PR, rec *inbox.Record, by []string, host string) (res *ledger.Result, waiting bool, err error) {
	name, box := st.Name, f.Ledger.Inbox()
	err = f.between(func() error {
		e, err := box.Find(name)
		for _, who := range by {
			if err != nil || e.State != inbox.Pending {
				break
			}
			if contains(rec.Approvers(), who) {
				continue
			}
			if err = box.ApproveByForge(name, st.Preview, inbox.ForgeApproval{Kind: f.Forge.Kind(), Host: host, Account: who, PR: pr.Number, Head: st.Head}); err != nil {
				return err
			}
			e, err = box.Find(name)
		}
		if err != nil {
			return err
		}
		if e.State != inbox.Approved {
			waiting = true
			return nil
		}
		res, err = f.Ledger.Approve(ctx, e)
		return err
	})
	return res, waiting, err
}

// merge ends an apply made as commit: kept in st, the pull request's branch set to it (only while
// it still holds the head previewed), and merged by the forge.
func (f *Flow) merge(ctx context.Context, st *State, o *Outcome, commit string, by []string, msg string) (*Outcome, error) {
	o.State, o.Commit, o.By = Applied, commit, by
	st.Applied = commit
	if err := f.save(st); err != nil {
		return nil, err
	}
	// the apply commit goes where the pull request's head was, and the forge merges it
	if err := f.ws().PushBranch(ctx, f.Remote, commit, st.Branch, st.Head); err != nil {
		o.Warning = "applied as " + store.Short(commit) + "; the branch could not be set to it: " + err.Error()
		return o, nil
	}
	if err := f.Forge.Merge(ctx, st.Number, commit, msg); err != nil {
		o.Warning = "applied as " + store.Short(commit) + "; the forge did not merge it: " + err.Error()
		return o, nil
	}
	o.Merged = true
	if err := f.Ledger.Pull(ctx); err != nil {
		f.log().Warn("pull after the merge", "err", err)
	}
	_ = f.Forge.SetStatus(ctx, commit, forge.Status{Context: StatusContext, State: forge.StatusSuccess,
		Description: "applied as " + store.Short(commit)})
	return o, nil
}

func missingWords(box *inbox.Inbox, name string) string {
	rec, err := box.Record(name)
	if err != nil {
		return err.Error()
	}
	return inbox.MissingWords(inbox.Missing(rec.Needs, rec.Approvals))
}

// approvers are the accounts whose approval of the pull request counts: each reviewer's latest
// review, an approval, given on the head archiplan pushed and not voided by the forge, by
// someone other than the pull request's author, among the approvers configured. why says, when
// none counts, what the reviews were.
func (f *Flow) approvers(ctx context.Context, st *State, pr forge.PR, rec *inbox.Record) (by []string, why string, err error) {
	reviews, err := f.Forge.Reviews(ctx, st.Number)
	if err != nil {
		return nil, "", err
	}
	latest := map[string]forge.Review{}
	for _, r := range reviews {
		if r.State != forge.ReviewApproved && r.State != forge.ReviewChangesRequested {
			continue // a comment neither gives nor takes back an approval
		}
		latest[r.User] = r
	}
	var notes []string
	for _, user := range sortedKeys(latest) {
		r := latest[user]
		switch {
		case r.State != forge.ReviewApproved:
			notes = append(notes, user+" requested changes")
		case r.User == pr.Author:
			notes = append(notes, user+" opened it and cannot approve it")
		case r.CommitID != st.Head || r.Stale:
			notes = append(notes, fmt.Sprintf("%s approved %s, not the head previewed (%s): a push after an approval voids it", user, store.Short(r.CommitID), store.Short(st.Head)))
		case len(f.Approvers) > 0 && !contains(f.Approvers, user):
			notes = append(notes, user+" is not among the approvers configured")
		default:
			by = append(by, user)
		}
	}
	if len(by) == 0 {
		if len(notes) == 0 {
			notes = append(notes, "no approval yet")
		}
		return nil, strings.Join(notes, "; "), nil
	}
	return by, "", nil
}

func sortedKeys(m map[string]forge.Review) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// stale marks a plan's pull request stale: on top of its description, and as its head's status.
func (f *Flow) stale(ctx context.Context, st *State, o *Outcome, reason string) (*Outcome, error) {
	o.State, o.Reason = Stale, reason
	if st.Stale == reason {
		return o, nil
	}
	st.Stale = reason
	pr, err := f.Forge.PR(ctx, st.Number)
	if err != nil {
		return nil, err
	}
	body := pr.Body
	if i := strings.Index(body, "\n---\n"); strings.HasPrefix(body, marker) && i >= 0 {
		body = marker + "\n> **Stale**: " + plans.MDEscape(reason) + "\n" + body[i:]
	} else {
		body = marker + "\n> **Stale**: " + plans.MDEscape(reason) + "\n\n---\n\n" + body
	}
	if err := f.Forge.EditPR(ctx, st.Number, pr.Title, body); err != nil {
		return nil, err
	}
	if err := f.Forge.SetStatus(ctx, st.Head, forge.Status{Context: StatusContext, State: forge.StatusFailure,
		Description: "stale: " + st.again() + " previews it again"}); err != nil {
		return nil, err
	}
	return o, f.save(st)
}
