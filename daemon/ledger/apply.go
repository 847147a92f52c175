package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Request is one plan to apply.
type Request struct {
	Name string // the plan's NAME (checked against the safe pattern), part of its id
	File string // the plan file's name or path, for hooks and reports
	Raw  []byte // the plan's bytes, as approved
	// Record, for an approval, is what archiplan recorded of the preview approved: the apply binds
	// to it. Nil for a plan applied from the command line without a preview.
	Record *inbox.Record
	// Approved are the preview's files the person read (verified against the record), archived
	// byte for byte; nil to archive a preview made now.
	Approved map[string][]byte
	// Context is the plan's context file's bytes (its scope); nil without one.
	Context    []byte
	ApprovedBy *store.Signature // nil: the ledger's
}

// Result is what an apply did.
type Result struct {
	PlanID   string
	Commit   string // the apply commit (or, with ErrAlreadyApplied, the earlier one)
	Outcome  *plans.Outcome
	Verdict  string // the verdict of a refusal (stale, rejected, invalid, not_ready)
	Reason   string // why it was refused
	Outputs  inbox.Outputs
	Revalid  string // HEAD the plan was validated again on, when it moved since the preview
	HookNote string // output of the hooks, for people
	Warning  string // the apply is made, but something needs attention (git's index behind)

	rejection *Event // a rejection decided (rejected): audited by settle once it is written
}

// Apply is the one apply path under every front end: under the workspace's lock, against the
// model at HEAD, it recognises a plan applied before, refuses a dirty model, a stale approval (a
// commit since the preview changed what the plan reads or changes, or the plan now shows other
// changes than its preview did), a plan that is not valid and ready, or a pre-apply veto;
// otherwise it commits the new model and the plan's archive as one commit, and runs post-apply.
func (l *Ledger) Apply(ctx context.Context, req Request) (*Result, error) {
	if req.ApprovedBy == nil {
		by := l.cfg.ApprovedBy
		req.ApprovedBy = &by // who approves is settled once: the events say it, the commit is signed so
	}
	sig := signature(*req.ApprovedBy)
	if err := inbox.CheckName(req.Name); err != nil {
		return nil, err
	}
	go plans.Warm(req.Raw) // the plan's schema is compiled while the model is read
	id := PlanID(req.Name, plans.SHA256(req.Raw))
	var events []Event
	if rec := req.Record; rec != nil {
		// an approval: said before what came of it (at its time, in the same move of the audit's
		// ref as the outcome: one lock of the ref per approval, not two); its record is of these
		// very bytes (the inbox's Evidence checked it), so the plan's id is the record's
		events = append(events, Event{Event: EventApproved, Time: time.Now().UTC().Format(time.RFC3339Nano), Name: req.Name,
			PlanID: id, SHA256: rec.PlanSHA256, Verdict: rec.Verdict, Summary: rec.Summary, By: sig})
	}
	var res *Result
	ran := false
	err := l.locked(func() error {
		ran = true
		// written down before the commit, recorded before the lock is let go: a crash between
		// the two leaves the approval to the next holder of the lock (RecoverAudit)
		p := pendingAudit{Name: req.Name, PlanID: id, By: sig}
		if len(events) > 0 {
			p.Approved = &events[0]
		}
		l.notePending(p)
		defer l.donePending()
		var err error
		res, err = l.apply(ctx, req)
		if res != nil {
			ev := Event{Name: req.Name, PlanID: res.PlanID, Commit: res.Commit, Reason: res.Reason, By: sig}.WithOutcome(res.Outcome)
			switch {
			case err == nil:
				ev.Event, ev.Verdict = EventApplied, VerdictApplied
			case errors.Is(err, ErrRefused):
				ev.Event, ev.Verdict = EventRejected, res.Verdict
			}
			if ev.Event != "" { // what came of it, said once
				events = append(events, ev)
			}
		}
		l.audit(events...)
		return err
	})
	if !ran {
		l.audit(events...) // the lock could not be taken: the approval is said all the same
	}
	return res, err
}

func (l *Ledger) apply(ctx context.Context, req Request) (*Result, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ws := l.cfg.Workspace
	head, err := l.head()
	if err != nil {
		return nil, err
	}
	digest := plans.SHA256(req.Raw)
	res := &Result{PlanID: PlanID(req.Name, digest)}
	info := head.Info(ws.Model)
	a := &applying{l: l, req: req, head: head, info: info, res: res}
	opts, no, err := l.precheck(req, head, res, &a.step)
	switch {
	case errors.Is(err, ErrAlreadyApplied):
		return res, err
	case err != nil:
		return nil, err
	case no != nil:
		return a.refuse(nil, no.verdict, no.reason)
	}
	rec := req.Record
	m := head.Model
	o, inv, err := plans.Apply(req.Raw, m, opts)
	if rec != nil && plans.RulesSaid(o) != rec.Rules {
		return l.rulesChanged(req, m, inv, o, err, res)
	}
	if err != nil {
		// the refusal is said once: ErrRefused wraps the reason
		return a.refuse(o, o.Verdict, strings.TrimPrefix(err.Error(), plans.ErrRefused.Error()+": "))
	}
	res.Outcome = o
	var kept func() bool // set by the proof: whether m is left the model the apply made
	undo := func() { l.undo(m, inv, kept) }
	if rec != nil && !sameChanges(rec, o) {
		undo()
		reason := fmt.Sprintf("stale: on HEAD %s the plan would make other changes than its preview (made at %s) shows", short(head.Commit), short(rec.Commit))
		if moved := l.since(rec.Commit, head.Commit); moved != "" {
			reason = fmt.Sprintf("stale: the plan would make other changes than its preview (made at %s) shows, since %s", short(rec.Commit), moved)
		}
		return a.refuse(nil, VerdictStale, reason)
	}
	if reason := missingApprovals(rec, o); reason != "" {
		undo()
		return a.refuse(o, VerdictRejected, reason)
	}
	env := map[string]string{"ARCHIPLAN_PLAN": req.File, "ARCHIPLAN_PLAN_ID": res.PlanID, "ARCHIPLAN_PLAN_SHA256": digest,
		"ARCHIPLAN_MODEL": ws.Model, "ARCHIPLAN_BASE_COMMIT": head.Commit}
	if veto := l.preApply(ctx, env, res); veto != "" {
		undo()
		return a.refuse(o, VerdictRejected, veto)
	}
	data, err := m.Save()
	if err != nil {
		undo()
		return nil, err
	}
	// never commit a model archiplan could not read back
	if err := archixml.CheckSize(data); err != nil {
		undo()
		return a.refuse(o, VerdictRejected, err.Error())
	}
	// the model's blob is compressed and written while the inverse is proved and the preview made
	// (an apply refused from here on leaves an object no commit names, which git gc removes);
	// the apply waits for it before it commits or returns
	written := writeAhead(ws, data)
	defer written()
	// never commit an inverse a revert could not prove: the inverse as archived, read back, must
	// give back HEAD's model; proved on the model in hand, as a revert would on the committed one
	invJSON := inverseJSON(inv)
	if kept, err = proveApplied(req.Raw, invJSON, res.PlanID, m, head.Data, data); err != nil {
		l.forget() // m is the model of no commit now
		return a.refuse(o, VerdictRejected, "the plan's inverse would not undo it exactly, so it could not be reverted ("+err.Error()+"): not applied")
	}
	files := l.commitFiles(req, res.PlanID, o, info, invJSON, data)
	by := *req.ApprovedBy
	msg := applyMessage(o, res.PlanID, digest, head.Commit, by, res.Revalid, rec)
	if err := written(); err != nil {
		undo()
		return nil, err
	}
	commit, no, err := l.makeCommit(store.Change{Base: head.Commit, Files: files, Message: msg, Author: by, When: l.cfg.Now()}, res)
	if no != nil {
		undo()
		return a.refuse(o, no.verdict, no.reason)
	}
	if err != nil && commit == "" {
		undo()
		return nil, err
	}
	// the commit holds the plan applied to its parent's model, as just made: noted once, so that
	// log need not prove it again (a reader proves a commit it did not make)
	noteProof(l.cfg.Workspace, commit, res.PlanID, req.Raw, true)
	l.applied(ctx, commit, m, data, kept, inv.Touched, env, res)
	l.last.Store(&Replay{Commit: commit, Parent: head.Commit, Plan: req.Raw, Options: opts, Data: data})
	return res, err
}

// applying is an apply under way, as far as its refusal needs it.
type applying struct {
	l    *Ledger
	req  Request
	head *Head
	info plans.ModelInfo
	res  *Result
	step string // the step after a refusal, when NextStep's does not fit
}

// refuse is the apply's refusal with verdict and reason: its result holds the outcome (o, or the
// plan checked again on HEAD when nil) and the rejection's outputs; an approval's reason says how
// to go on (the plan becomes NAME.rejected), and so does any apply's when a.step is set.
func (a *applying) refuse(o *plans.Outcome, verdict, reason string) (*Result, error) {
	req, res := a.req, a.res
	if o == nil {
		o = plans.Check(req.Raw, a.head.Model, a.l.cfg.Options)
	}
	if req.Record != nil && a.step == "" {
		a.step = NextStep(req.Name, o)
	}
	if a.step != "" {
		// an approval's, or a step that fits only this refusal (precheck's), for any apply
		reason = withStep(reason, a.step)
	}
	res.Outcome, res.Verdict, res.Reason = o, verdict, reason
	res.Outputs = rejection(o, inbox.RejectedFile(req.Name), verdict, reason, a.info)
	return res, fmt.Errorf("%w: %s", ErrRefused, reason)
}

// precheck is what an apply checks before it applies anything, in this order: a plan applied before
// (ErrAlreadyApplied, its commit in res; refused when a commit removed its record without undoing
// it: recordRemoved, with the step after that refusal in step), a dirty model, a model Archi cannot open, a commit since
// the preview that changed what the plan reads or changes, a context that cannot be read. It
// gives the options the plan is applied under, or why it is refused.
func (l *Ledger) precheck(req Request, head *Head, res *Result, step *string) (plans.Options, *refusal, error) {
	opts := l.cfg.Options
	// a plan already applied is recognised before anything else: an apply cut off after its
	// commit is finished, not refused as stale
	if prior, id, err := l.appliedBefore(head.Commit, req.Raw); err != nil {
		return opts, nil, err
	} else if prior != "" {
		// the id it was applied as (its NAME then), the one log lists and revert takes
		res.Commit, res.PlanID = prior, id
		return opts, nil, fmt.Errorf("%w: %s in commit %s", ErrAlreadyApplied, res.PlanID, short(prior))
	} else if apply, removal, err := l.recordRemoved(req.Raw); err != nil {
		return opts, nil, err
	} else if apply != nil {
		// its record gone at HEAD, but not its changes: refused, naming both commits
		res.Commit, *step = apply.Hash, removedStep(req.Name, apply)
		return opts, &refusal{VerdictRejected, removedWords(apply, removal)}, nil
	}
	if dirty, err := l.dirty(head.Blob); err != nil {
		return opts, nil, err
	} else if dirty {
		return opts, &refusal{VerdictRejected, Uncommitted(l.cfg.Workspace.Model) + ", then submit the plan again"}, nil
	}
	if l.problem != nil {
		return opts, &refusal{VerdictRejected, fmt.Sprintf("the model at HEAD %s cannot be opened by Archi (%v): repair it first", short(head.Commit), l.problem)}, nil
	}
	if rec := req.Record; rec != nil && rec.Blob != head.Blob {
		// HEAD moved since the preview: only commits that touched nothing the plan reads or changes
		// let it be validated again here
		c, err := l.movedOver(rec, head.Commit)
		if err != nil {
			return opts, nil, err
		}
		if c != nil {
			return opts, &refusal{VerdictStale, fmt.Sprintf("stale: commit %s (%s) changed what this plan reads or changes since its preview at %s",
				short(c.Hash), oneLine(c.Subject), short(rec.Commit))}, nil
		}
		res.Revalid = head.Commit
	}
	if req.Context != nil {
		var err error
		if opts.Scope, err = plans.ScopeFromContext(req.Context); err != nil {
			return opts, &refusal{VerdictRejected, "the plan's context cannot be read: " + err.Error()}, nil
		}
	}
	return opts, nil, nil
}

// preApply runs the pre-apply hook: its failure or veto is why the apply is refused ("" when it
// lets the apply go on).
func (l *Ledger) preApply(ctx context.Context, env map[string]string, res *Result) string {
	pre, err := l.cfg.Hooks.Run(ctx, hooks.PreApply, l.cfg.Workspace.Root, env)
	if pre.Ran {
		res.HookNote = "pre-apply: " + strings.TrimSpace(pre.Output)
	}
	if err != nil {
		return fmt.Sprintf("the pre-apply hook failed: %v\n\n%s", err, pre.Output)
	}
	if pre.ExitCode != 0 {
		return fmt.Sprintf("vetoed by the pre-apply hook (exit %d):\n\n%s", pre.ExitCode, strings.TrimSpace(pre.Output))
	}
	return ""
}

// applied makes the model the apply committed the model at HEAD (kept, never parsed again, and
// noted as one Archi can open: the apply refuses a model that is not, and its edits keep it so),
// then runs post-apply.
func (l *Ledger) applied(ctx context.Context, commit string, m *archixml.Model, data []byte, kept func() bool, touched []string, env map[string]string, res *Result) {
	ws := l.cfg.Workspace
	// (whether m is left the model the apply made is found when it is used again: a command that
	// applies one plan and exits never compares them)
	l.model, l.data, l.blob, l.commit, l.unproved = m, data, ws.BlobOf(data), commit, kept
	l.remember(commit, touched)

	ws.MarkClean(l.blob)
	l.clean = l.stampOf(l.blob)
	res.Commit = commit
	env["ARCHIPLAN_COMMIT"] = commit
	post, herr := l.cfg.Hooks.Run(ctx, hooks.PostApply, ws.Root, env)
	if post.Ran {
		res.HookNote = strings.TrimSpace(res.HookNote + "\npost-apply: " + strings.TrimSpace(post.Output))
	}
	if herr != nil {
		res.HookNote += fmt.Sprintf("\npost-apply: %v", herr)
	}
}

// proveApplied proves the inverse as archived (invJSON, read back) gives back HEAD's model
// (before), on the model in hand; kept says whether m is left the model the apply made.
func proveApplied(raw, invJSON []byte, id string, m *archixml.Model, before, after []byte) (kept func() bool, err error) {
	archived, err := decodeInverse(invJSON, id)
	if err != nil {
		return nil, err
	}
	return proveInHand(raw, archived, m, before, after)
}

// makeCommit makes the apply's commit. A HEAD that moved meanwhile, or a link where the apply writes,
// is a refusal; a commit made while git's index could not be written is made (the warning in
// res). Another error with no commit made leaves everything as it was.
func (l *Ledger) makeCommit(c store.Change, res *Result) (string, *refusal, error) {
	commit, err := l.cfg.Workspace.Publish(c)
	switch {
	case errors.Is(err, store.ErrHeadMoved):
		return "", &refusal{VerdictStale, err.Error()}, nil
	case errors.Is(err, store.ErrSymlink) && commit == "":
		// a link where the apply writes (planted by a hook?): never written through
		return "", &refusal{VerdictRejected, "not applied: " + err.Error()}, nil
	case errors.Is(err, store.ErrIndexStale) && commit != "":
		// committed, and the work tree written; git's index is repaired by the next command
		res.Warning = err.Error()
		l.log.Warn("applied, but git's index is behind until the next archiplan command repairs it", "commit", short(commit), "err", err)
		return commit, nil, nil
	}
	return commit, nil, err
}

// undo takes a plan applied in memory back out of m, the ledger's model at HEAD; kept (set once
// the inverse is proved) says whether m is still the model the apply made. Where undoing could
// not give HEAD's model back, the model is forgotten, to be read again.
func (l *Ledger) undo(m *archixml.Model, inv *plans.Inverse, kept func() bool) {
	if kept != nil && !kept() {
		l.forget() // undoing the plan on another model would not give HEAD's
		return
	}
	if err := plans.Revert(m, inv); err != nil {
		l.forget()
	}
}

// writeAhead writes the model's blob while the apply goes on; the func waits for it (once).
func writeAhead(ws *store.Workspace, data []byte) func() error {
	ahead := make(chan error, 1)
	go func() { ahead <- ws.WriteBlob(data) }()
	return sync.OnceValue(func() error { return <-ahead })
}

// commitFiles are the files of the apply's commit: the new model and the plan's archive (the
// plan, the preview approved, the inverse, the conversation that wrote it).
func (l *Ledger) commitFiles(req Request, id string, o *plans.Outcome, info plans.ModelInfo, invJSON, data []byte) map[string][]byte {
	preview, report, pictures := l.approvedFiles(req, o, info)
	files := archiveFiles(id, req.Raw, preview, report, pictures, invJSON)
	if conv := l.conversationFile(req.Name); conv != nil {
		files[archivePath(id, ArchiveConversation)] = conv // the intent and the planner
	}
	files[l.cfg.Workspace.Model] = data
	return files
}

// approvedFiles are the preview, report and pictures an apply archives: the very files the person
// approved (the report with the verdict applied added), or, without a preview, ones made now.
func (l *Ledger) approvedFiles(req Request, o *plans.Outcome, info plans.ModelInfo) (preview, report []byte, pictures map[string][]byte) {
	if req.Record == nil || req.Approved == nil {
		r := o.Report(inbox.PlanFile(req.Name), info)
		r.Verdict = VerdictApplied
		return o.Preview(inbox.PlanFile(req.Name), info), r.JSON(), nil
	}
	pictures = map[string][]byte{}
	for f, data := range req.Approved {
		name, kind, _ := inbox.Parse(f)
		switch {
		case name != req.Name:
		case kind == inbox.KindPreview:
			preview = data
		case kind == inbox.KindReport:
			report = withVerdict(data, VerdictApplied)
		case kind == inbox.KindPicture:
			pictures[strings.TrimPrefix(f, name+".")] = data
		}
	}
	return preview, report, pictures
}

// withVerdict is a report with its verdict replaced, the rest as it was.
func withVerdict(report []byte, verdict string) []byte {
	var r plans.Report
	if err := json.Unmarshal(report, &r); err != nil {
		return report
	}
	r.Verdict = verdict
	return r.JSON()
}

// appliedBefore finds the commit that applied these plan bytes, and the plan id they were applied
// as (their archive's name, their NAME then): the archive at HEAD and the
// commits' Plan-Id trailers only say where to look; the commit counts only when its model is the
// plan applied to its parent's (a folder or a trailer a colleague pushed proves nothing). The
// walk is stopped by a proved apply only, as findApply's is: a later commit that merely names
// the plan (a trailer copied) is passed over, never hiding the apply under it (archiplan log
// lists it as unverified).
func (l *Ledger) appliedBefore(head string, raw []byte) (commit, id string, err error) {
	ws := l.cfg.Workspace
	digest := plans.SHA256(raw)
	names, err := ws.DirAt(head, ArchiveDir)
	if err != nil {
		return "", "", err
	}
	for _, n := range names {
		if !strings.HasSuffix(n, "-"+digest[:12]) {
			continue
		}
		var proved string // the commit proved the plan's apply (onBranch asks the last one twice)
		var perr error
		hist, err := onBranch(ws, func(c store.CommitInfo) bool {
			if c.Trailers[store.TrailerPlanID] != n || perr != nil {
				return false
			}
			if c.Hash == proved {
				return true
			}
			ok, err := appliedIn(ws, c, raw)
			if ok {
				proved = c.Hash
			}
			perr = err
			return ok
		})
		if err == nil {
			err = perr
		}
		if err != nil {
			return "", "", err
		}
		if len(hist) > 0 && hist[len(hist)-1].Hash == proved {
			return proved, n, nil
		}
	}
	return "", "", nil
}

// movedOver finds, among the commits from a preview's HEAD to now, the first that changed an
// object the plan reads or changes; nil when none did. A preview's HEAD that is not an ancestor
// of HEAD (history rewritten) counts as a change.
func (l *Ledger) movedOver(rec *inbox.Record, head string) (*store.CommitInfo, error) {
	ws := l.cfg.Workspace
	base, err := ws.MergeBase(rec.Commit, head)
	if err != nil || base != rec.Commit {
		info := store.CommitInfo{Hash: head, Subject: "history no longer holds the preview's commit " + short(rec.Commit)}
		return &info, nil
	}
	// the commits since, the sides of merges included (a first-parent walk from a merge can miss
	// the preview's commit and run to the root)
	later, err := spanOf(ws, rec.Commit, head)
	if err != nil {
		return nil, err
	}
	later.made = l.made
	return later.touching(rec.Reads)
}

// since names the commits from a preview's HEAD to now, for a refusal that cannot tell which of
// them changed what the plan would make (a plan approved with another that changes what it
// cascades to): the person sees what moved, not only two hashes.
func (l *Ledger) since(preview, head string) string {
	if preview == head {
		return ""
	}
	later, err := l.cfg.Workspace.CommitsBetween(preview, head)
	if err != nil || len(later) == 0 {
		return ""
	}
	newest := later[len(later)-1]
	if len(later) == 1 {
		return fmt.Sprintf("commit %s (%s)", short(newest.Hash), oneLine(newest.Subject))
	}
	return fmt.Sprintf("%d commits, the newest %s (%s)", len(later), short(newest.Hash), oneLine(newest.Subject))
}

// applyMessage is an apply commit's message. Nothing of the plan can add a line of its own: the
// summary and every description are one line, with control characters dropped, and the trailers
// come last from values archiplan made.
func applyMessage(o *plans.Outcome, id, digest, base string, by store.Signature, revalid string, rec *inbox.Record) string {
	var b strings.Builder
	summary := oneLine(o.Plan.Summary)
	if summary == "" {
		summary = id
	}
	fmt.Fprintf(&b, "plan: %s\n\n", summary)
	for _, r := range o.Results {
		fmt.Fprintf(&b, "- %s\n", oneLine(r.Description))
		for _, g := range r.Given {
			if g.Key != "" {
				fmt.Fprintf(&b, "  %s: %s = %s\n", g.Field, oneLine(g.Key), oneLine(g.Value))
			} else {
				fmt.Fprintf(&b, "  %s: %s\n", g.Field, oneLine(g.Value))
			}
		}
	}
	if revalid != "" && rec != nil {
		fmt.Fprintf(&b, "\nPreviewed at %s; HEAD moved since only through commits that touched nothing this plan reads or changes, so it was validated again on %s and shows the same changes.\n",
			short(rec.Commit), short(base))
	}
	fmt.Fprintf(&b, "\n%s: %s\n%s: %s\n%s: %s\n", store.TrailerPlanID, id, store.TrailerPlanSHA256, digest,
		store.TrailerBaseCommit, base)
	if rec != nil {
		for _, a := range rec.Approvals { // the owners', before the one who applies (read last)
			fmt.Fprintf(&b, "%s: %s (owner, preview sha256 %s)\n", store.TrailerApprovedBy, oneLine(a.By), short(a.Preview))
		}
	}
	fmt.Fprintf(&b, "%s: %s\n", store.TrailerApprovedBy, signature(by))
	return b.String()
}

// missingApprovals says why a plan cannot apply yet when the owners and rules ask for approvals
// its record does not hold ("" when they are complete).
func missingApprovals(rec *inbox.Record, o *plans.Outcome) string {
	needs := needsOf(o)
	if len(needs) == 0 {
		return ""
	}
	var given []inbox.Approval
	if rec != nil {
		given = rec.Approvals
	}
	if missing := inbox.Missing(needs, given); len(missing) > 0 {
		return "approvals missing: " + inbox.MissingWords(missing) + "; the owners approve with archiplan approve NAME"
	}
	return ""
}

// oneLine is text as one line of a commit message: line breaks and tabs become spaces, a leading
// "Key: " cannot pass for a trailer because it never starts a line, and any other character that
// could hide or reorder text (a right-to-left override in a summary) is written as its code, as
// the preview the person read showed it.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return ' '
		}
		return r
	}, s)
	return plans.ShowHidden(strings.Join(strings.Fields(s), " "))
}

// signature is "Name <email>" for a trailer, on one line.
func signature(s store.Signature) string {
	return oneLine(s.Name) + " <" + oneLine(s.Email) + ">"
}

// againStepWords is the step after an approval withdrawn at its apply (POLICY_VERDICT_CHANGED).
const againStepWords = "archiplan previews the plan again (NAME.json); read the new preview, then approve it"

// rulesChanged refuses an approval whose rules, judged again now, say otherwise than the preview
// the person read (a rule reading the time: a freeze began; a deny or warning came or went): never
// applied against a verdict they did not read. The approval is withdrawn (NAME.json again) to be
// previewed again, as the inbox withdraws one whose policy changed; one that cannot be (a
// NAME.json beside it) stays approved, and the error says why. The error leaves the step to the
// front end, as a withdrawal by the inbox does. err is plans.Apply's: nil when the model in hand
// holds the plan (undone here).
func (l *Ledger) rulesChanged(req Request, m *archixml.Model, inv *plans.Inverse, o *plans.Outcome, err error, res *Result) (*Result, error) {
	if err == nil {
		l.undo(m, inv, nil)
	}
	why := fmt.Sprintf("%s: the workspace's rules, judged again at the apply, say otherwise than the preview approved (now: %s)",
		plans.PolicyVerdictChanged, rulesWords(o))
	e := inbox.Entry{Name: req.Name, File: filepath.Base(req.File), State: inbox.Approved}
	if werr := l.cfg.Inbox.Withdraw(e); werr != nil {
		return nil, fmt.Errorf("%s; not applied, and not withdrawn: %w", why, werr)
	}
	res.Outcome, res.Verdict, res.Reason = o, VerdictStale, withStep(why, againStepWords)
	return res, fmt.Errorf("%w: %s", ErrRepreview, why)
}

// rulesWords is what the rules say of a checked plan, in words: their findings, or "nothing".
func rulesWords(o *plans.Outcome) string {
	var out []string
	for _, f := range o.Findings {
		if f.Code == plans.PolicyDeny || f.Code == plans.PolicyWarn || f.Code == plans.PolicyError {
			out = append(out, string(f.Code)+" "+f.Message)
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, "; ")
}
