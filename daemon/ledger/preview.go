package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

// ErrGone means a plan file was renamed or deleted between the listing and its reading.
var ErrGone = errors.New("gone since the inbox was listed")

// Checked is a plan of the inbox checked against the model at HEAD, not yet published.
type Checked struct {
	Entry   inbox.Entry
	Raw     []byte
	Outcome *plans.Outcome
	Head    *Head
	Policy  string // hash of the policy it was checked under
	Scope   string // hash of its context file ("" without one)
	pics    *pictures
	// fixed is what the NAME's first valid preview fixed (nil before one); refused, when set, is
	// why this check breaks that binding: it is published as a rejection, never as a preview
	fixed   *inbox.Fixed
	refused *refusal
	// stale, when set, is why this check went stale against the NAME's first valid preview
	// (PLAN_WORDS_CHANGED): kept in the record, so an approval arriving later is refused as stale
	stale string
	// next, when set, is the step for plan bytes applied before (appliedNote): no approval of
	// them applies anything, so every front end refuses one with this step (the record's Next)
	next string
}

// refusal is a check's verdict that the plan is rejected at once.
type refusal struct{ verdict, reason string }

// Truncated says the plan looks cut off mid-write: worth waiting for before refusing it.
func (c *Checked) Truncated() bool {
	for _, f := range c.Outcome.Errors() {
		if f.Code == plans.ExtractTruncated || f.Code == plans.ExtractEmpty {
			return true
		}
	}
	return false
}

// Check reads a plan of the inbox (safely: never through a link, never blocking, capped) and its
// context, and checks it against the model at HEAD under the policy in force. It writes nothing.
func (l *Ledger) Check(e inbox.Entry) (*Checked, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	head, err := l.head()
	if err != nil {
		return nil, err
	}
	c := &Checked{Entry: e, Head: head, Policy: PolicyHash(l.cfg.Options)}
	raw, err := l.cfg.Inbox.ReadPlan(e)
	if errors.Is(err, fs.ErrNotExist) {
		// renamed (approved, say) or deleted since the listing: nothing to preview, and a preview
		// of "nothing" must never be recorded for its NAME
		return nil, fmt.Errorf("%s: %w", e.File, ErrGone)
	}
	if err != nil {
		c.Outcome = unreadable(raw, err)
		return c, nil
	}
	c.Raw = raw
	opts := l.cfg.Options
	ctx, cerr := l.cfg.Inbox.ReadContext(e.Name)
	if cerr == nil && ctx != nil {
		opts.Scope, cerr = plans.ScopeFromContext(ctx)
	}
	c.Scope = scopeHash(ctx)
	pics := newPictures(e.Name)
	c.Outcome = plans.CheckThen(raw, head.Model, opts, func(o *plans.Outcome) {
		pics.changedViews(o, head.Model)
		pics.draw(head.Model, true)
	})
	pics.draw(head.Model, false)
	c.pics = pics
	if l.problem != nil {
		c.Outcome.Findings = append(c.Outcome.Findings, plans.Finding{Severity: plans.Error, Code: plans.ModelInvalid,
			Message: fmt.Sprintf("the model at HEAD %s cannot be opened by Archi: %v", short(head.Commit), l.problem)})
		c.Outcome.Verdict = plans.VerdictInvalid
	}
	if cerr != nil {
		c.Outcome.Findings = append(c.Outcome.Findings, plans.Finding{Severity: plans.Error, Code: plans.PolicyOutOfScope,
			Message: "the plan's context " + inbox.ContextFile(e.Name) + " cannot be read: " + cerr.Error()})
		c.Outcome.Verdict = plans.VerdictInvalid
		c.Scope = "unreadable"
	}
	fx, err := l.cfg.Inbox.Fixed(e.Name)
	if err != nil {
		return nil, err
	}
	c.fixed = fx
	c.bind()
	if err := l.appliedNote(c); err != nil {
		return nil, err
	}
	return c, nil
}

// appliedNote warns on a check of plan bytes applied before on the branch (and not reverted),
// and refuses those whose record a commit removed without undoing them (recordRemoved):
// the preview would otherwise say "ready to apply" of a plan whose approval applies nothing.
// The apply decides it the same way (appliedBefore, the models proving the commit).
func (l *Ledger) appliedNote(c *Checked) error {
	if c.Raw == nil || c.refused != nil {
		return nil
	}
	prior, id, err := l.appliedBefore(c.Head.Commit, c.Raw)
	if err != nil {
		return err
	}
	if prior == "" {
		// its record removed at HEAD without undoing it: the apply refuses it (precheck), so the
		// preview says so, never "valid" of a plan no approval applies
		apply, removal, err := l.recordRemoved(c.Raw)
		if err != nil || apply == nil {
			return err
		}
		c.next = removedStep(c.Entry.Name, apply)
		c.Outcome.Findings = append(c.Outcome.Findings, plans.Finding{Severity: plans.Error, Code: plans.PlanAlreadyApplied,
			Message: withStep(strings.TrimPrefix(removedWords(apply, removal), string(plans.PlanAlreadyApplied)+": "), c.next)})
		c.Outcome.Verdict = plans.VerdictInvalid
		return nil
	}
	again := againStep(c.Entry.Name, id)
	c.next = fmt.Sprintf("nothing to apply: already applied as %s in commit %s. %s", id, short(prior), again)
	c.Outcome.Findings = append(c.Outcome.Findings, plans.Finding{Severity: plans.Warning, Code: plans.PlanAppliedBefore,
		Message: fmt.Sprintf("these very plan bytes were applied as %s in commit %s and stand in the model: approving them applies nothing. %s",
			id, short(prior), again)})
	return nil
}

// againStep is what follows for plan NAME whose bytes were applied as id and stand in the model
// (PLAN_APPLIED_BEFORE): the person either undoes them first, to make them again, or takes the
// plan out of the inbox.
func againStep(name, id string) string {
	return fmt.Sprintf("To make its changes again, revert it first (archiplan revert %s), then submit it again (archiplan resubmit %s); "+
		"archiplan reject %s takes it out of the inbox", id, name, name)
}

// bind holds a check to what its NAME's first valid preview fixed: other plan bytes are never
// approvable under the NAME, and the same bytes only while every change reads as it did then.
func (c *Checked) bind() {
	fx, o := c.fixed, c.Outcome
	if fx == nil {
		return
	}
	finding := func(code plans.Code, reason string) {
		o.Findings = append(o.Findings, plans.Finding{Severity: plans.Error, Code: code, Message: reason})
		o.Verdict = plans.VerdictInvalid
	}
	name := c.Entry.Name
	step := NextStep(name, o) // judged before the binding's own finding makes it invalid
	switch {
	case o.SHA256 != fx.PlanSHA256:
		reason := fmt.Sprintf("%s changed after %s was previewed valid (sha256 %s then, %s now): a NAME's plan bytes are fixed at its first valid preview, so this plan is never approved as %s",
			c.Entry.File, name, short12(fx.PlanSHA256), short12(o.SHA256), name)
		reason = withStep(reason, step)
		finding(plans.PlanChangedAfterPreview, reason)
		c.refused = &refusal{verdict: VerdictRejected, reason: reason}
	case o.Verdict == plans.VerdictValid:
		// stays in the inbox, not approvable: valid again only if HEAD comes back to words
		// identical to those first read
		if !o.Bound().Same(plans.Bound{Created: fx.Created, Words: fx.Changes, Objects: fx.Objects}) {
			c.stale = withStep(fmt.Sprintf(
				"stale: on HEAD %s the plan would make changes that read otherwise than its first valid preview of %s said, so an approval of %s could apply what nobody read",
				short(c.Head.Commit), fx.At.UTC().Format("2006-01-02 15:04:05 UTC"), name), step)
			finding(plans.PlanWordsChanged, c.stale)
		}
	}
}

func short12(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// unreadable is the outcome of a plan file that could not be read.
func unreadable(raw []byte, err error) *plans.Outcome {
	return plans.Unreadable(raw, errors.Is(err, inbox.ErrTooLarge), err)
}

// Publish writes a checked plan's preview, report and pictures, and records what it wrote and
// what the preview binds: plan bytes, model blob, policy, scope, the ids it creates.
//
// A check that breaks what the NAME's first valid preview fixed is published as a rejection
// (NAME.rejected, the reason on top); the first valid preview of a NAME fixes it.
func (l *Ledger) Publish(c *Checked) (*inbox.Record, error) {
	rec, _, err := l.PublishOutputs(c)
	return rec, err
}

// PublishOutputs is Publish, also handing back what it wrote: the command line prints the very
// preview the inbox holds (its pictures included) instead of making another.
func (l *Ledger) PublishOutputs(c *Checked) (*inbox.Record, inbox.Outputs, error) {
	ws := l.cfg.Workspace
	info := c.Head.Info(ws.Model)
	file := c.Entry.File
	if c.refused != nil {
		res := &Result{Outcome: c.Outcome, Verdict: c.refused.verdict, Reason: c.refused.reason}
		out := rejection(c.Outcome, inbox.RejectedFile(c.Entry.Name), c.refused.verdict, c.refused.reason, info)
		rec := rejectRecord(c.Entry, c.Raw, res)
		if err := l.cfg.Inbox.Reject(c.Entry, out, rec); err != nil {
			return nil, out, fmt.Errorf("reject %s: %w", file, err)
		}
		l.log.Info("rejected", "plan", file, "verdict", c.refused.verdict, "reason", c.refused.reason)
		return rec, out, nil
	}
	preview := c.Outcome.Preview(file, info)
	applied := ""
	for _, f := range c.Outcome.Findings {
		if f.Code == plans.PlanAppliedBefore {
			applied = "**Applied before** (" + string(f.Code) + "): " + plans.MDEscape(f.Message)
		}
	}
	if c.Outcome.Verdict == plans.VerdictValid && applied == "" {
		preview = withNote(preview, ApproveNote(c.Entry.Name))
	}
	if applied != "" {
		// said on top, and no step to approve it: the verdict below says "ready to apply" of
		// what is applied already, and an approval would apply nothing
		preview = withNote(preview, applied)
	}
	conv, _ := l.cfg.Inbox.Conversation(c.Entry.Name)
	if conv.Wrote(c.Outcome.SHA256) != "" {
		// archiplan's own record, never the inbox's: who wrote the plan, asked what
		preview = withNote(preview, plans.MDEscape(conv.Wrote(c.Outcome.SHA256))+" for: "+plans.MDEscape(conv.Intent))
	}
	if conv != nil && conv.ResubmittedFrom != "" {
		preview = withNote(preview, fmt.Sprintf("Submitted again from %s (archiplan resubmit): a plan of its own, bound to no earlier preview.",
			plans.MDEscape(conv.ResubmittedFrom)))
	}
	var files map[string][]byte
	if c.pics != nil {
		var section string
		files, section = c.pics.files()
		preview = append(preview, section...)
	}
	out := inbox.Outputs{Preview: preview, Report: c.Outcome.Report(file, info).JSON(), Pictures: files}
	rec := recordOf(c, file)
	if c.fixed == nil && c.Outcome.Verdict == plans.VerdictValid {
		// the NAME's first valid preview: its bytes and words are fixed from now on
		rec.Fixed = &inbox.Fixed{Name: c.Entry.Name, PlanSHA256: c.Outcome.SHA256, Created: rec.Created, Changes: rec.Changes,
			Objects: rec.Objects, At: l.cfg.Now().UTC()}
	}
	prev, _ := l.cfg.Inbox.Record(c.Entry.Name)
	if err := l.cfg.Inbox.Publish(c.Entry.Name, out, rec); err != nil {
		return nil, out, fmt.Errorf("publish the preview of %s: %w", file, err)
	}
	l.auditPreview(c, prev, rec)
	return rec, out, nil
}

func recordOf(c *Checked, file string) *inbox.Record {
	rec := &inbox.Record{File: file, PlanSHA256: c.Outcome.SHA256, Commit: c.Head.Commit, Blob: c.Head.Blob,
		Policy: c.Policy, Scope: c.Scope, Verdict: c.Outcome.Verdict}
	// what the preview shows and an apply must make again (plans.Bound), and the objects the
	// plan reads or changes
	b := c.Outcome.Bound()
	rec.Created, rec.Changes, rec.Objects, rec.Reads = b.Created, b.Words, b.Objects, c.Outcome.Reads()
	rec.Summary = summaryOf(c.Outcome)
	rec.Needs = needsOf(c.Outcome)
	rec.Stale = c.stale
	rec.Next = c.next
	rec.Rules = plans.RulesSaid(c.Outcome)
	return rec
}

// needsOf are the approvals a checked plan needs by the owners and rules.
func needsOf(o *plans.Outcome) []inbox.Need {
	var out []inbox.Need
	for _, a := range o.Approvals {
		out = append(out, inbox.Need{Rule: a.Rule, Count: a.Count, From: a.From, Message: a.Message})
	}
	return out
}

// sameChanges says whether an outcome shows what a record says its preview showed.
func sameChanges(rec *inbox.Record, o *plans.Outcome) bool {
	return o.Bound().Same(plans.Bound{Created: rec.Created, Words: rec.Changes, Objects: rec.Objects})
}

// rejection is the preview and report of a plan that was not applied: its summary and actions
// as checked, with the reason on top.
func rejection(o *plans.Outcome, file, verdict, reason string, info plans.ModelInfo) inbox.Outputs {
	report := o.Report(file, info)
	report.Verdict, report.Reason = verdict, reason
	// the preview under the reason says the verdict given, never "valid — ready to apply"
	shown := *o
	shown.Verdict = verdict
	preview := append([]byte("> **Not applied** ("+verdict+"): "+plans.MDEscape(reason)+"\n\n"), shown.Preview(file, info)...)
	return inbox.Outputs{Preview: preview, Report: report.JSON()}
}

func summaryOf(o *plans.Outcome) string {
	if o == nil || o.Plan == nil {
		return ""
	}
	return o.Plan.Summary
}

// withNote puts a paragraph of archiplan's own under a preview's title.
func withNote(preview []byte, note string) []byte {
	s := string(preview)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return []byte(s[:i+2] + note + "\n\n" + s[i+2:])
	}
	return []byte(note + "\n\n" + s)
}

// ApproveNote is the line a valid preview of the inbox says how to approve it with (a pull
// request's description says its own instead).
func ApproveNote(name string) string {
	return fmt.Sprintf("To apply it, rename %s to %s (or run archiplan approve %s).",
		plans.MDEscape(inbox.PlanFile(name)), plans.MDEscape(inbox.ApprovedFile(name)), name)
}
