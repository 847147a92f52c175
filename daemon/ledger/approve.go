package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/store"
)

// Approve applies an approved plan of the inbox, if and only if it is the very plan previewed,
// the preview on disk is the one archiplan wrote, the policy and scope are those it was previewed
// under, and it is still valid; and clears its files from the inbox. A refused plan becomes
// NAME.rejected with the reason on top of its preview; an approval whose policy or scope changed
// is withdrawn (renamed back to NAME.json) and previewed again (ErrRepreview).
//
// The inbox answers once (Evidence: everything the approval is checked against, or one refusal,
// the approval withdrawn when it is to be previewed again); the decision is made from that answer
// alone, and its one effect on the inbox follows it (settle): the plan's files cleared, or its
// rejection written.
func (l *Ledger) Approve(ctx context.Context, e inbox.Entry) (*Result, error) {
	b := l.cfg.Inbox
	owner := -1
	if l.cfg.Adopted {
		owner = inbox.Adopter()
	}
	ev, err := b.Evidence(e, owner, PolicyHash(l.Options()))
	var res *Result
	if err != nil {
		res, err = l.refuseApproval(e, err)
	} else {
		req := Request{Name: e.Name, File: e.File, Raw: ev.Raw, Record: ev.Record, Approved: ev.Files, Context: ev.Context}
		if rec := ev.Record; rec.Reviewer != "" {
			by := l.cfg.ApprovedBy
			by.Name = fmt.Sprintf("%s (review page: %s)", by.Name, rec.Reviewer)
			req.ApprovedBy = &by
		}
		if f := ev.Record.Forge; f != nil {
			// the account the forge authenticated, as the forge names it
			by := store.Signature{Name: f.Account, Email: f.Account + "@" + f.Host}
			req.ApprovedBy = &by
		}
		res, err = l.Apply(ctx, req)
		if err != nil && ctx.Err() != nil {
			return res, fmt.Errorf("cancelled; the plan stays approved: %w", err) // not the plan's fault
		}
	}
	if serr := l.settle(e, res, err); serr != nil {
		return res, serr
	}
	return res, err
}

// refuseApproval decides what becomes of an approval the inbox refused: previewed again when the
// inbox withdrew it (its policy, scope or owners' approvals are what is missing: ErrRepreview),
// rejected with the inbox's reason otherwise (ErrRefused: the rejection decided and audited, for
// Approve to write).
func (l *Ledger) refuseApproval(e inbox.Entry, err error) (*Result, error) {
	r := &inbox.Refusal{Reason: err.Error(), Err: err, Unread: true}
	errors.As(err, &r)
	if r.Withdraw != "" {
		l.log.Info("approval withdrawn: "+r.Err.Error(), "plan", e.File, "why", r.Withdraw)
		return &Result{}, fmt.Errorf("%w: %s", ErrRepreview, r.Withdraw)
	}
	stale := errors.Is(r.Err, inbox.ErrStale)
	var unread error
	if r.Unread && !stale {
		unread = r.Err
	}
	o := l.outcomeRead(r.Raw, unread)
	// one decision, said once: the error carries the rejection's reason and step, not the
	// inbox's first words (the command line prints both)
	res := l.approvalRefused(e.Name, o, r, stale)
	return res, fmt.Errorf("%w: %s", ErrRefused, res.Reason)
}
