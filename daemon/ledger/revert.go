package ledger

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

var (
	// ErrNoSuchPlan means no apply commit has the id or hash given.
	ErrNoSuchPlan = errors.New("no applied plan")
	// ErrConflict means a later commit changed what the plan's inverse restores, so it cannot
	// apply to the model at HEAD; revert names the object and the field.
	ErrConflict = errors.New("a later commit changed the same objects")
	// ErrBadInverse means an archived inverse is not one an apply writes: never used.
	ErrBadInverse = errors.New("the archived inverse is not one archiplan wrote")
	// ErrAlreadyReverted means the plan was reverted before.
	ErrAlreadyReverted = errors.New("plan already reverted")
	// ErrRevertApprovals means the revert changes what the owners or an approval rule ask
	// approvals for, and the person reverting does not give them all (REVERT_NEEDS_APPROVALS).
	ErrRevertApprovals = errors.New(string(plans.RevertNeedsApprovals))
	// ErrRevertModel means the model the revert would write could not be read back, or Archi could
	// not open it (REVERT_MODEL_INVALID): nothing is committed.
	ErrRevertModel = errors.New(string(plans.RevertModelInvalid))
	// ErrRevertDenied means a deny rule of the workspace's policy refuses what the revert changes,
	// as it would refuse a plan making the same changes (REVERT_POLICY_DENY).
	ErrRevertDenied = errors.New(string(plans.RevertPolicyDeny))
	// ErrRevertOfRevert means the commit given is a plan's revert, not its apply
	// (REVERT_OF_REVERT): applying the plan again is a new apply, previewed and approved.
	ErrRevertOfRevert = errors.New(string(plans.RevertOfRevert))
	// ErrRevertMoved means a revert bound to its preview (RevertOptions.Base, Blob) would not be
	// the one previewed: HEAD moved, or the model it writes differs.
	ErrRevertMoved = errors.New("the revert is not the one previewed")
)

// RevertResult is what a revert did.
type RevertResult struct {
	PlanID        string
	RevertsCommit string
	Commit        string
	Base          string // HEAD the revert was made on (the commit's parent)
	Blob          string // the model the revert writes
	Summary       string // the reverted plan's summary, as its apply commit's subject says it
}

// RevertOptions say how a revert is made; the zero value is archiplan revert's: committed on the
// branch now, approved by the ledger's person.
type RevertOptions struct {
	// Preview writes the revert commit without moving any branch (what a revert's pull request
	// shows): nothing is published, the work tree is not read, no event is recorded.
	Preview bool
	// ApprovedBy is who approved the revert, its commit's author too (nil: the ledger's).
	ApprovedBy *store.Signature
	// Approvers are the people whose approvals the revert has, held to the owners and approval
	// rules (a pull request's: the forge accounts whose reviews count); nil: the person running
	// it (inbox.OSUser), or ApprovedBy's name when set. A revert only previewed is asked none:
	// its pull request gathers them.
	Approvers []string
	// Base and Blob, when set, bind the revert to its preview: HEAD must still be Base and the
	// model the revert writes must be Blob, else nothing is committed (ErrRevertMoved).
	Base, Blob string
}

// Revert undoes one applied plan, named by its id or its apply commit, in a new commit, using the
// inverse archived with it, proved first: on the apply commit's model it must give back the
// parent's (proveInverse), else it is refused as not archiplan's (ErrBadInverse). Later plans and commits are kept; when
// one of them changed a field the inverse restores (and it is not as the apply left it), the
// revert is refused, naming the object and the field (undoAtHead).
// The model it makes is read again before it is committed, and it removes from the archive only
// the files the apply added.
func (l *Ledger) Revert(ctx context.Context, target string) (*RevertResult, error) {
	return l.RevertWith(ctx, target, RevertOptions{})
}

// RevertWith is Revert as opt asks: only previewed, or approved by someone else, bound to the
// preview a person read.
func (l *Ledger) RevertWith(ctx context.Context, target string, opt RevertOptions) (*RevertResult, error) {
	var res *RevertResult
	err := l.locked(func() error {
		var err error
		res, err = l.revert(target, opt)
		return revertCoded(err)
	})
	if err == nil && res != nil && !opt.Preview {
		by := l.cfg.ApprovedBy
		if opt.ApprovedBy != nil {
			by = *opt.ApprovedBy
		}
		l.audit(Event{Event: EventReverted, Name: PlanName(res.PlanID), PlanID: res.PlanID, Commit: res.Commit,
			Reason: "reverts commit " + res.RevertsCommit, By: signature(by)})
	}
	return res, err
}

// revert makes the revert of target, in its steps: the apply commit found, its archived inverse
// read and proved on the model at HEAD, the work tree clean, the inverse undone at HEAD, the
// model it makes checked, then committed (or only written, for a preview).
func (l *Ledger) revert(target string, opt RevertOptions) (*RevertResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ws := l.cfg.Workspace
	apply, hist, err := findApply(ws, l.cfg.Inbox, target)
	if err != nil {
		return nil, err
	}
	id := apply.Trailers[store.TrailerPlanID]
	a, err := ReadArchive(ws, apply.Hash, id)
	if err != nil {
		return nil, err
	}
	head, err := l.provedHead(apply, a, opt)
	if err != nil {
		return nil, err
	}
	if opt.Preview {
		// the work tree is neither read nor touched
	} else if dirty, err := l.dirty(head.Blob); err != nil {
		return nil, err
	} else if dirty {
		return nil, fmt.Errorf("%w: commit or discard them first", store.ErrDirty)
	}
	m := head.Model
	problem := l.problem // a model Archi could not open before is not the revert's fault
	if err := undoAtHead(ws, *apply, head.Blob, m, a.Inverse); err != nil {
		l.forget()
		return nil, undoRefused(err, apply, id, hist[:len(hist)-1])
	}
	if err := l.revertRules(head, m, a.Inverse, apply.Subject, opt); err != nil {
		l.forget()
		return nil, err
	}
	data, cerr, err := l.revertedModel(m, id, problem)
	if err != nil {
		return nil, err
	}
	blob := store.BlobID(data)
	if opt.Blob != "" && blob != opt.Blob {
		return nil, fmt.Errorf("%w: it would write model %s, not %s", ErrRevertMoved, short(blob), short(opt.Blob))
	}
	res, change := l.revertCommit(apply, a, head, data, opt)
	res.Blob = blob
	if opt.Preview {
		// dated as HEAD is: the same revert on the same HEAD is the same commit, and its review
		// the same preview
		change.When = hist[0].When
		res.Commit, err = ws.WriteCommit(change)
		return res, err
	}
	res.Commit, err = ws.Publish(change)
	if err != nil && res.Commit == "" {
		return nil, err
	}
	if cerr == nil {
		ws.MarkClean(blob)
	}
	return res, err
}

// findApply finds the apply commit of target (a plan id or an apply commit) on the branch, with
// the history from it to HEAD (newest first, the apply last). box is the inbox a refusal's step
// submits into.
func findApply(ws *store.Workspace, box *inbox.Inbox, target string) (*store.CommitInfo, []store.CommitInfo, error) {
	full, _ := ws.ResolveCommit(target)
	if c, err := ws.Info(full); full != "" && err == nil && c.Trailers[store.TrailerPlanID] == "" {
		if id := reapplies(ws, c); id != "" {
			target, full = id, "" // a plain git revert of a plan's revert: the plan is reverted again
		}
	}
	var apply *store.CommitInfo
	hist, err := onBranch(ws, func(c store.CommitInfo) bool {
		if id := c.Trailers[store.TrailerPlanID]; id == "" || c.Hash != full && id != target {
			return false
		} else if c.Hash == full {
			return true
		}
		// named by its id: a later commit whose trailer merely names it (anyone can write one)
		// is passed over for the commit that holds the apply
		parent, _ := ws.Info(c.Parent)
		return c.Parent == "" || heldApply(ws, c, parent.ModelBlob, target, c.Trailers[store.TrailerPlanSHA256]) == ""
	})
	if err != nil {
		return nil, nil, err
	}
	if len(hist) > 0 {
		last := hist[len(hist)-1]
		if last.Trailers[store.TrailerPlanID] != "" && (last.Trailers[store.TrailerPlanID] == target || last.Hash == full) {
			apply = &last
		}
	}
	if apply == nil {
		if full != "" {
			if err := revertOfRevert(ws, box, full); err != nil {
				return nil, nil, err
			}
			if c, err := ws.Info(full); err == nil && namedID(c.Trailers[store.TrailerPlanID]) {
				// the hash an apply printed, its commit since made again by a sync (or another
				// branch's): the plan is named by its id, as log lists it
				id := c.Trailers[store.TrailerPlanID]
				return nil, nil, fmt.Errorf("%w %q on this branch: commit %s names plan %s but is not on this branch (a sync makes a local apply again on top of the remote's commits, with a new hash; or it is another branch's): archiplan log lists the plans applied here; by its id: archiplan revert %s",
					ErrNoSuchPlan, target, short(c.Hash), id, id)
			}
		}
		return nil, nil, fmt.Errorf("%w %q on this branch", ErrNoSuchPlan, target)
	}
	return apply, hist, nil
}

// namedID says whether a trailer's plan id reads as one archiplan makes (a NAME, '-', 12 hex
// digits), safe to print in a refusal's step.
func namedID(id string) bool {
	if len(id) <= 13 || inbox.CheckName(PlanName(id)) != nil {
		return false
	}
	for _, r := range id[len(id)-12:] {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// revertOfRevert refuses a revert asked of commit, when commit holds the revert of a plan
// (archiplan's, or a plain git revert of its apply: heldRevert), with the step that applies the
// plan again: submitted as a new plan from the archive the revert's parent holds, it is previewed
// against HEAD and approved by a person, as any apply: into box, the configured inbox, by a path
// that holds from any folder (resubmit's step says the same). nil when commit is no such revert.
func revertOfRevert(ws *store.Workspace, box *inbox.Inbox, commit string) error {
	id := revertedIn(ws, commit)
	// the id goes into a command the person pastes: a NAME the inbox takes, and 12 hex digits
	if name := PlanName(id); name == id || inbox.CheckName(name) != nil || strings.Trim(id[len(name)+1:], "0123456789abcdef") != "" {
		return nil
	}
	r, err := ws.Info(commit) // (heldRevert found its parent)
	if err != nil {
		return nil
	}
	return fmt.Errorf("%w: commit %s is the revert of plan %s, not an apply: a revert is not reverted. To apply the plan again, "+
		"submit it as a new plan (previewed against HEAD, then approved, as any): git show %s:%s > %s",
		ErrRevertOfRevert, short(r.Hash), id, short(r.Parent), archivePath(id, archivePlan), againPath(ws, box, PlanName(id)))
}

// againPath is where a plan named name is submitted again: name-again.json in box, or in the
// default inbox of ws when the ledger was made without one.
func againPath(ws *store.Workspace, box *inbox.Inbox, name string) string {
	if box == nil {
		return filepath.Join(ws.Root, "plans", name+"-again.json")
	}
	return box.Path(name + "-again.json")
}

// provedHead is the model at HEAD a revert is made on, once the archived inverse a is proved
// archiplan's (proveArchived) and HEAD is the one a bound revert was previewed on.
func (l *Ledger) provedHead(apply *store.CommitInfo, a *Archived, opt RevertOptions) (*Head, error) {
	ws := l.cfg.Workspace
	head, err := l.head()
	if err != nil {
		return nil, err
	}
	if opt.Base != "" && head.Commit != opt.Base {
		return nil, fmt.Errorf("%w: HEAD moved from %s to %s since", ErrRevertMoved, short(opt.Base), short(head.Commit))
	}
	// a revert of the plan HEAD's model came from (the usual one: right after its apply) proves
	// the inverse on the model in hand, which is that model, instead of parsing it again
	var inHand *archixml.Model
	if head.Blob == apply.ModelBlob {
		inHand = head.Model
	}
	restored, err := proveArchived(ws, *apply, a, inHand)
	if inHand != nil && (!restored || !inHand.SavesAs(head.Data)) {
		// not put back as HEAD's model (50 ms at 100,000 elements to compare): read it again
		l.forget()
		if err == nil {
			head, err = l.head()
		}
	}
	if err != nil {
		return nil, err
	}
	return head, nil
}

// undoRefused is why the inverse of plan id (applied in apply) could not be undone at HEAD: a
// later commit reverted it already, or changed what it restores, or the inverse is not one an
// apply writes. later are the commits after the apply, newest first.
func undoRefused(err error, apply *store.CommitInfo, id string, later []store.CommitInfo) error {
	var changed *archixml.ChangedError
	if errors.As(err, &changed) {
		// which later commit reverted it is words for a refusal the models make, not a reason
		for _, c := range later {
			if c.Trailers[store.TrailerRevertsPlan] == id || c.GitReverts == apply.Hash {
				return fmt.Errorf("%w: %s by commit %s", ErrAlreadyReverted, id, short(c.Hash))
			}
		}
		which := ""
		if plainID(changed.ID) {
			which = " (archiplan log --object " + changed.ID + " lists the commits that changed it)"
		}
		return fmt.Errorf("%w: %s changed since %s applied it: %s; revert what changed it first%s, or undo it by hand",
			ErrConflict, changed.Object, id, changed.How, which)
	}
	if errors.Is(err, archixml.ErrBadStep) {
		return fmt.Errorf("%w: %v: nothing was committed", ErrBadInverse, err)
	}
	return fmt.Errorf("%w: %v", ErrConflict, err)
}

// plainID says whether a model's id is safe to print in a command a person pastes (Archi's ids
// are letters, digits, '-' and '_'; a model's file may hold any).
func plainID(id string) bool {
	if id == "" || len(id) > 100 || id[0] == '-' {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// revertedModel is the model m the revert of plan id made, as it is committed: saved, read back
// (a model archiplan and Archi can read) and checked; cerr is why Archi could not open it, which
// refuses the revert unless HEAD's model had a problem already.
func (l *Ledger) revertedModel(m *archixml.Model, id string, problem error) ([]byte, error, error) {
	data, err := m.Save()
	if err != nil {
		l.forget()
		return nil, nil, err
	}
	l.forget() // the model was changed; whatever happens next, HEAD is read again
	// what is committed must be a model archiplan (and Archi) can read: data read back must be
	// m's tree (Rebase compares them without building another; Load when it cannot tell)
	back := m
	if !m.Rebase(data) {
		if back, err = archixml.Load(data); err != nil {
			return nil, nil, fmt.Errorf("%w: the revert of %s would write a model that cannot be read (%v): nothing was committed", ErrRevertModel, id, err)
		}
	}
	cerr := archixml.Check(back)
	if cerr != nil && problem == nil {
		return nil, nil, fmt.Errorf("%w: the revert of %s would write a model Archi cannot open (%v): nothing was committed", ErrRevertModel, id, cerr)
	}
	return data, cerr, nil
}

// revertCommit is the revert's commit on head: the model data, the files the apply archived
// removed, its message and trailers, by who approves it.
func (l *Ledger) revertCommit(apply *store.CommitInfo, a *Archived, head *Head, data []byte, opt RevertOptions) (*RevertResult, store.Change) {
	ws := l.cfg.Workspace
	id := apply.Trailers[store.TrailerPlanID]
	files := map[string][]byte{ws.Model: data}
	for _, f := range a.Files {
		files[f] = nil
	}
	by := l.cfg.ApprovedBy
	if opt.ApprovedBy != nil {
		by = *opt.ApprovedBy
	}
	subject := strings.TrimPrefix(oneLine(apply.Subject), "plan: ")
	msg := fmt.Sprintf("revert: %s\n\nUndoes plan %s, applied in %s.\n\n%s: %s\n%s: %s\n%s: %s\n", subject, id, short(apply.Hash),
		store.TrailerRevertsPlan, id, store.TrailerRevertsCommit, apply.Hash, store.TrailerApprovedBy, signature(by))
	change := store.Change{Base: head.Commit, Files: files, Message: msg, Author: by, When: l.cfg.Now()}
	return &RevertResult{PlanID: id, RevertsCommit: apply.Hash, Base: head.Commit, Summary: subject}, change
}

// undoAtHead undoes the proved inverse of the plan applied in apply on m, the model at HEAD (its
// blob headBlob). When HEAD's model is the one the apply made, the steps are undone as they are;
// otherwise alongside that model (archixml.Model.UndoAlong): each step must find at HEAD what the
// apply left there, so later commits that changed other objects or other fields, or that were
// reverted themselves, keep their changes and do not stand in the way; one that changed what the
// revert restores stops it (archixml.ErrChangedSince, naming the object and the field).
func undoAtHead(ws *store.Workspace, apply store.CommitInfo, headBlob string, m *archixml.Model, inv *plans.Inverse) error {
	if headBlob == apply.ModelBlob {
		return plans.Revert(m, inv)
	}
	data, ok, err := ws.ModelAt(apply.Hash)
	if err != nil || !ok {
		return fmt.Errorf("the model at %s: %v", short(apply.Hash), err)
	}
	made, err := archixml.Load(data)
	if err != nil {
		return fmt.Errorf("the model at %s: %v", short(apply.Hash), err)
	}
	return m.UndoAlong(made, inv.Steps)
}

func objectXML(m *archixml.Model, id string) (string, bool) {
	if m == nil {
		return "", false
	}
	o, ok := m.Object(id)
	if !ok {
		return "", false
	}
	return o.XML(), true
}

// revertRules holds a revert to the workspace's rules as an apply of the same changes is held:
// m is the model the revert makes of head's. The static policy (.archiplan.yaml's allowed types
// and protected folders: plans.JudgePolicy) and a deny rule it brings in refuse it
// (ErrRevertDenied: undoing a plan may put back what a rule forbids now); each approval the
// owners or an approval rule ask for what it changes must be among opt's approvers (a person's
// own revert: theirs alone, inbox.OSUser, as archiplan approve records an owner's), else
// ErrRevertApprovals. Either way nothing is committed.
func (l *Ledger) revertRules(head *Head, m *archixml.Model, inv *plans.Inverse, subject string, opt RevertOptions) error {
	rules, pol := l.cfg.Options.Rules, l.cfg.Options.Policy
	static := len(pol.AllowedElementTypes)+len(pol.AllowedRelationshipTypes)+len(pol.ProtectedFolders) > 0
	if rules == nil && !static {
		return nil
	}
	before, err := archixml.Load(head.Data) // head.Model is m, reverted already
	if err != nil {
		return err
	}
	d := plans.RevertDelta(before, m, inv, "revert: "+subject)
	// the static policy first, as a plan's ops meet it before the rules (the same codes and words)
	var denied []string
	for _, f := range plans.JudgePolicy(pol, d) {
		denied = append(denied, string(f.Code)+": "+f.Message)
	}
	var found []plans.Finding
	var approvals []plans.Approval
	if rules != nil {
		if found, approvals, err = plans.JudgeDelta(context.Background(), rules, d); err != nil {
			return fmt.Errorf("%w: the workspace's policy cannot be evaluated (%v): nothing was committed", ErrRevertApprovals, err)
		}
	}
	for _, f := range found {
		if f.Code == plans.PolicyDeny {
			denied = append(denied, f.Message)
		}
	}
	if len(denied) > 0 {
		return fmt.Errorf("%w: the workspace's rules refuse what the revert puts back, as they would refuse a plan making the same changes: %s; nothing was committed",
			ErrRevertDenied, strings.Join(denied, "; "))
	}
	if opt.Preview || rules == nil {
		return nil
	}
	who := opt.Approvers
	if who == nil && opt.ApprovedBy != nil {
		who = []string{opt.ApprovedBy.Name}
	} else if who == nil {
		who = []string{inbox.OSUser()}
	}
	var given []inbox.Approval
	for _, by := range who {
		given = append(given, inbox.Approval{By: by})
	}
	if missing := inbox.Missing(needsOf(&plans.Outcome{Approvals: approvals}), given); len(missing) > 0 {
		return fmt.Errorf("%w: the revert changes what the owners ask approvals for, as its apply did; approved by %s, it lacks %s: "+
			"one of them reverts it, or a plan making the same changes is approved by them; nothing was committed",
			ErrRevertApprovals, strings.Join(who, ", "), inbox.MissingWords(missing))
	}
	return nil
}

// revertCoded is a revert's refusal with its code first (plans.Refusals), whichever front end
// shows it (the command line, the review page, a revert's pull request); the refusals whose
// error is their code already (ErrRevertApprovals, ErrRevertDenied, ErrRevertModel) are as
// they are.
func revertCoded(err error) error {
	for _, c := range []struct {
		err  error
		code plans.Code
	}{{ErrNoSuchPlan, plans.RevertNoSuchPlan}, {ErrConflict, plans.RevertConflict},
		{ErrAlreadyReverted, plans.RevertAlready}, {ErrBadInverse, plans.RevertBadInverse},
		{store.ErrDirty, plans.RevertDirty}} {
		if errors.Is(err, c.err) {
			return fmt.Errorf("%s: %w", c.code, err)
		}
	}
	return err
}
