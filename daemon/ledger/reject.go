package ledger

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

// settle puts what was decided of the plan e (res, err) in the inbox, the decision's one effect
// there: a refused plan becomes NAME.rejected, its preview and report the refusal's (decided and
// audited before, see rejected: the one way every rejection reaches the inbox); an applied plan's
// files (or those of one applied before) are cleared. Nothing else touches the inbox.
func (l *Ledger) settle(e inbox.Entry, res *Result, err error) error {
	refused := errors.Is(err, ErrRefused)
	switch {
	case refused:
		if err := l.cfg.Inbox.Reject(e, res.Outputs, rejectRecord(e, nil, res)); err != nil {
			return err
		}
	case err == nil, errors.Is(err, ErrAlreadyApplied):
		l.cfg.Inbox.Clear(e.Name)
	}
	if refused {
		if res.rejection != nil { // said once it is written: a rejection not written did not happen
			l.audit(*res.rejection)
		}
		l.log.Info("rejected", "plan", e.File, "verdict", res.Verdict, "reason", res.Reason)
	}
	return nil
}

// MaxReason is the most of a person's reason a rejection by hand keeps, in bytes, whichever front
// end it was typed in (the page's form, the command line's --reason): what is shown on top of the
// preview, in the report and the audit is one bound.
const MaxReason = 2000

// PersonsReason is a person's reason for a rejection by hand as it is kept: trimmed, and cut at
// MaxReason bytes at a character's start (a letter cut in two would show as another, U+FFFD).
// "" says no reason was given.
func PersonsReason(reason string) string {
	reason = strings.TrimSpace(reason)
	if len(reason) > MaxReason {
		cut := MaxReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	return reason
}

// Reject rejects a plan of the inbox by hand, with a reason: NAME.rejected, its preview keeping
// the plan's summary and actions with the reason on top. The person's reason is kept as written:
// they said what is wrong with the plan, so no step to submit it again is added.
// The error is nil when the plan was rejected.
func (l *Ledger) Reject(e inbox.Entry, reason string) (*Result, error) {
	raw, err := l.cfg.Inbox.ReadPlan(e)
	res := l.rejected(e.Name, l.outcomeRead(raw, err), VerdictRejected, reason)
	return res, l.settle(e, res, ErrRefused)
}

// outcomeRead is what a rejection shows of plan bytes read with err: the plan checked against
// HEAD, or, when it could not be read, why.
func (l *Ledger) outcomeRead(raw []byte, err error) *plans.Outcome {
	if err != nil {
		return unreadable(raw, err)
	}
	return l.outcomeOf(raw)
}

// outcomeOf checks plan bytes against HEAD, for what a rejection shows; nil when HEAD cannot be
// read.
func (l *Ledger) outcomeOf(raw []byte) *plans.Outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	head, err := l.head()
	if err != nil {
		return &plans.Outcome{SHA256: plans.SHA256(raw), Verdict: plans.VerdictInvalid}
	}
	return plans.Check(raw, head.Model, l.cfg.Options)
}

// approvalRefused is the rejection of an approval the inbox refused (r), its plan checked again
// on HEAD (o): a stale one with the stale preview's own reason, its next step in it; plan bytes
// previewed invalid, or approved unpreviewed, whose record a commit removed without undoing them
// (appliedNote) with the apply's own refusal and step (precheck's), never resubmit, which meets
// the same; any
// other with the inbox's reason and the step that leads to an approvable preview.
func (l *Ledger) approvalRefused(name string, o *plans.Outcome, r *inbox.Refusal, stale bool) *Result {
	if stale {
		return l.rejected(name, o, VerdictStale, r.Reason)
	}
	if (errors.Is(r.Err, inbox.ErrNotValid) || errors.Is(r.Err, inbox.ErrNotPreviewed)) && r.Raw != nil {
		// previewed or not, resubmit meets the same refusal: the step that fits is the apply's
		if apply, removal, err := l.recordRemoved(r.Raw); err == nil && apply != nil {
			return l.rejected(name, o, VerdictRejected, withStep(removedWords(apply, removal), removedStep(name, apply)))
		}
	}
	return l.refused(name, o, VerdictRejected, r.Reason)
}

// rejectEntry rejects a plan that archiplan refused, the reason followed by the step that leads
// to a preview that can be approved.
func (l *Ledger) rejectEntry(e inbox.Entry, o *plans.Outcome, verdict, reason string) (*Result, error) {
	res := l.refused(e.Name, o, verdict, reason)
	return res, l.settle(e, res, ErrRefused)
}

// refused is the rejection of a plan that archiplan refused (see rejected), the reason followed
// by the step that leads to a preview that can be approved.
func (l *Ledger) refused(name string, o *plans.Outcome, verdict, reason string) *Result {
	return l.rejected(name, o, verdict, withStep(reason, NextStep(name, o)))
}

// rejected decides the rejection of the plan NAME: its result holding the preview and report
// that say why, and its audit event, for settle to put in the inbox and then audit.
func (l *Ledger) rejected(name string, o *plans.Outcome, verdict, reason string) *Result {
	res := &Result{Outcome: o, Verdict: verdict, Reason: reason}
	if o.SHA256 != "" {
		res.PlanID = PlanID(name, o.SHA256)
	}
	var info plans.ModelInfo
	if h, err := l.Head(); err == nil {
		info = h.Info(l.cfg.Workspace.Model)
	}
	res.Outputs = rejection(o, inbox.RejectedFile(name), verdict, reason, info)
	ev := Event{Event: EventRejected, Name: name, PlanID: res.PlanID, Reason: reason}.WithOutcome(o)
	ev.Verdict = verdict
	res.rejection = &ev
	return res
}

func rejectRecord(e inbox.Entry, raw []byte, res *Result) *inbox.Record {
	rec := &inbox.Record{Verdict: res.Verdict, Reason: res.Reason, Summary: summaryOf(res.Outcome)}
	if res.Outcome != nil {
		rec.PlanSHA256 = res.Outcome.SHA256
	} else if raw != nil {
		rec.PlanSHA256 = plans.SHA256(raw)
	}
	return rec
}
