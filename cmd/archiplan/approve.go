package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

func approveCmd() *cobra.Command {
	var seen string
	c := &cobra.Command{
		Use:   "approve NAME [--preview SHA256]",
		Short: "Approve a plan previewed valid: rename plans/NAME.json to plans/NAME.approved",
		Long: "Approve a plan previewed valid: it prints what it approves (summary, number of changes, the preview's\n" +
			"SHA-256) and renames plans/NAME.json to plans/NAME.approved. It refuses a plan whose preview is not\n" +
			"valid, not archiplan's own, or of other bytes than the plan now holds, and plan bytes applied before\n" +
			"(approving them would apply nothing), each with the step that fits. --preview binds the approval\n" +
			"to the preview you read: the SHA-256 of NAME.preview.md (sha256sum prints it; 12 hex digits or more).",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			_, ws, box, err := openInboxFor(cmd, name)
			if err != nil {
				return err
			}
			// read while no preview is being written: a preview's files and its record are one
			_, headBlob, err := ws.HeadBlob()
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			var rec *inbox.Record
			err = box.Steady(func() (err error) { rec, err = approvable(box, name, seen, headBlob); return err })
			if err != nil {
				return appliedGone(ws, name, err)
			}
			// an apply over a save from Archi not committed rejects the plan: say so now, while the
			// plan can still be approved as it is once the save is committed or discarded
			if head, err := ws.ReadModel(); err == nil && head.Dirty {
				return codedError{exitRefused, fmt.Errorf("not approved: %s, then: archiplan approve %s", ledger.Uncommitted(ws.Model), name)}
			}
			out := cmd.OutOrStdout()
			sum := rec.Outputs[inbox.PreviewFile(name)]
			fmt.Fprintf(out, "approving %s: %s\n  %d change(s); preview %s sha256 %s\n", name, quoteSummary(rec.Summary),
				len(rec.Changes), inbox.PreviewFile(name), sum)
			if err := box.ApproveAs(name, sum, "", inbox.OSUser()); err != nil {
				if errors.Is(err, inbox.ErrNoPlan) {
					return usageError{err}
				}
				return codedError{exitRefused, err}
			}
			if after, err := box.Record(name); err == nil && len(after.Needs) > 0 {
				if missing := inbox.Missing(after.Needs, after.Approvals); len(missing) > 0 {
					fmt.Fprintf(out, "approval by %s recorded; %s waits for %s\n", inbox.OSUser(), name, inbox.MissingWords(missing))
					return nil
				}
				fmt.Fprintf(out, "approvals complete: %s\n", strings.Join(after.Approvers(), ", "))
			}
			fmt.Fprintf(out, "approved %s: renamed to %s\n", name, inbox.ApprovedFile(name))
			if !daemonServes(ws) {
				fmt.Fprintf(out, "no daemon serves this workspace: it applies when one starts, or now with: archiplan apply %s\n",
					box.Path(inbox.ApprovedFile(name)))
			}
			return nil
		},
	}
	c.Flags().StringVar(&seen, "preview", "", "the SHA-256 of the NAME.preview.md you read (12 hex digits or more): approve only that preview")
	return c
}

// approvable is NAME's record when its plan may be approved: pending, previewed valid by
// archiplan, the plan file still the bytes the preview showed (and the NAME's first valid preview
// fixed), the preview on disk still archiplan's, and, when seen is given, the preview read. A
// preview that said its bytes were applied before holds only on the model it was made on
// (headBlob: HEAD's model now), for a revert since undid them.
func approvable(box *inbox.Inbox, name, seen, headBlob string) (*inbox.Record, error) {
	refuse := func(code plans.Code, format string, args ...any) error {
		return codedError{exitRefused, fmt.Errorf("%s: %w", code, fmt.Errorf(format, args...))}
	}
	e, err := findPlan(box, name)
	if err != nil {
		return nil, err
	}
	switch e.State {
	case inbox.Rejected:
		return nil, refuse(plans.PlanIsRejected, "%s is rejected (%s says why): archiplan resubmit %s writes it under a new name and previews it", name, inbox.PreviewFile(name), name)
	case inbox.Approved:
		return nil, refuse(plans.PlanIsApproved, "%s is approved already: a daemon applies it when it runs, or now: archiplan apply %s", name, box.Path(e.File))
	}
	rec, err := box.Record(name)
	if err != nil {
		return nil, refuse(plans.PlanNotPreviewed, "%s has no preview yet: read its preview before approving (archiplan validate %s previews it)",
			name, box.Path(inbox.PlanFile(name)))
	}
	raw, err := box.ReadPlan(e)
	if err != nil {
		return nil, refuse(plans.PlanUnreadable, "read %s: %v", e.File, err)
	}
	changedAfterValid := func() error {
		// its code stands where it always stood, mid-sentence
		return codedError{exitRefused, fmt.Errorf("%s changed after it was previewed valid (%s): archiplan resubmit %s writes it under a new name and previews it", e.File, plans.PlanChangedAfterPreview, name)}
	}
	if inbox.Hash(raw) != rec.PlanSHA256 {
		if fx, _ := box.Fixed(name); fx != nil && fx.PlanSHA256 != inbox.Hash(raw) {
			// previewed valid once, NAME holds those bytes: previewing it again would reject it
			return nil, changedAfterValid()
		}
		return nil, refuse(plans.PlanChangedSince, "%s changed since its preview: nothing is approved that was not previewed (archiplan validate %s previews it now)", e.File, box.Path(e.File))
	}
	fx, err := box.Fixed(name)
	if err != nil || fx != nil && fx.PlanSHA256 != rec.PlanSHA256 {
		return nil, changedAfterValid()
	}
	if rec.Next != "" {
		// plan bytes applied before: the ledger's preview decided the step, said here in its
		// words; on the model it was made on only, for a revert since may have undone them
		step := rec.NextAt(name, headBlob)
		if rec.Verdict != plans.VerdictValid {
			return nil, refuse(plans.PlanNotValid, "the preview of %s says %s: only a plan previewed valid is approved (%s says why). Next: %s", name, rec.Verdict, inbox.PreviewFile(name), step)
		}
		return nil, refuse(plans.PlanAppliedBefore, "the plan bytes of %s were applied before (%s says where): approving them applies nothing. Next: %s", name, inbox.PreviewFile(name), step)
	}
	if rec.Verdict != plans.VerdictValid {
		step := "fix in " + box.Path(e.File) + " what it lists; it is previewed again"
		if fx != nil {
			// once previewed valid, NAME holds those bytes: they are fixed under a new name
			step = "archiplan resubmit " + name + " writes it under a new name and previews it"
		}
		if s := askingStep(name, raw); s != "" {
			step = s // a plan that asks or refuses has nothing to fix
		}
		return nil, refuse(plans.PlanNotValid, "the preview of %s says %s: only a plan previewed valid is approved (%s says why): %s", name, rec.Verdict, inbox.PreviewFile(name), step)
	}
	if _, err := box.Verify(rec); err != nil {
		return nil, refuse(plans.PreviewForged, "the preview on disk is not the one archiplan wrote, so what was read may be a forgery (%v): archiplan validate %s writes it again; read that one", err, box.Path(e.File))
	}
	sum := rec.Outputs[inbox.PreviewFile(name)]
	if seen != "" {
		s := strings.ToLower(strings.TrimSpace(seen))
		if len(s) < 12 || !strings.HasPrefix(sum, s) {
			return nil, refuse(plans.PreviewNotRead, "the preview of %s is sha256 %s, not the %s you read: read %s again", name, sum, seen, inbox.PreviewFile(name))
		}
	}
	return rec, nil
}

// askingStep is the step for a plan that asks questions or that its planner refused, as a
// rejection names it (ledger.NextStep); "" for any other plan.
func askingStep(name string, raw []byte) string {
	obj, _, bad := plans.Extract(raw, false)
	var p struct {
		Status    string   `json:"status"`
		Questions []string `json:"questions"`
	}
	if bad != nil || json.Unmarshal(obj, &p) != nil {
		return ""
	}
	if p.Status == plans.StatusRefusal || p.Status == plans.StatusNeedsClarification && len(p.Questions) > 0 {
		return ledger.NextStep(name, &plans.Outcome{Plan: &plans.Plan{Status: p.Status, Questions: p.Questions}})
	}
	return ""
}

// waitsForApproval refuses to resubmit NAME when it is pending and approve would take it as it is:
// previewed valid, against the model at HEAD. Under a new name it would only be previewed again,
// and NAME's preview, the one the person may be reading, would leave the inbox.
func waitsForApproval(ws *store.Workspace, box *inbox.Inbox, name string) error {
	e, err := box.Find(name)
	if err != nil || e.State != inbox.Pending {
		return nil
	}
	head, err := ws.ReadModel()
	if err != nil {
		return nil
	}
	var rec *inbox.Record
	if box.Steady(func() (err error) { rec, err = approvable(box, name, "", head.Blob); return err }) != nil || rec.Blob != head.Blob {
		return nil
	}
	return codedError{exitRefused, fmt.Errorf("%s: %s is previewed valid against HEAD and waits for approval: resubmit is for a rejected or stale plan; read %s, then: archiplan approve %s",
		plans.ResubmitNotNeeded, e.File, box.Path(inbox.PreviewFile(name)), name)}
}

func quoteSummary(s string) string {
	if s == "" {
		return "(no summary)"
	}
	return hidden.Quote(s)
}

func rejectCmd() *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use:   "reject NAME [--reason TEXT]",
		Short: "Reject a plan: plans/NAME.rejected, the reason on top of its preview",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			box := cfg.inbox(ws)
			e, err := findPlan(box, args[0])
			if err != nil {
				return appliedGone(ws, args[0], err)
			}
			if reason = ledger.PersonsReason(reason); reason == "" { // blanks say nothing (as on the page)
				reason = "rejected by " + ws.Identity().Name
			}
			rejectFound(e)
			if _, err := cfg.ledger(ws).Reject(e, reason); err != nil {
				switch {
				case errors.Is(err, inbox.ErrNameTaken):
					return codedError{exitRefused, err}
				case errors.Is(err, fs.ErrNotExist):
					// a daemon applied it (or its planner removed it) since it was found
					return codedError{exitRefused, fmt.Errorf("%s: %s left the inbox while it was being rejected (a daemon applied it, or its planner removed it): nothing was rejected; archiplan status and archiplan log say where it is (%w)",
						plans.RejectPlanGone, e.File, err)}
				}
				return codedError{exitNoUsable, fmt.Errorf("%s: %w", plans.InboxNotWritten, err)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rejected %s: %s\n", e.Name, inbox.RejectedFile(e.Name))
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why, shown on top of its preview")
	return c
}

// rejectFound is called between reject's lookup of the plan and its rejection: a test's hook
// (a daemon applying the plan in that moment).
var rejectFound = func(inbox.Entry) {}

// openInboxFor opens the workspace and its inbox for a command on one plan NAME, which must be a
// name the inbox takes (else wrong usage).
func openInboxFor(cmd *cobra.Command, name string) (*config, *store.Workspace, *inbox.Inbox, error) {
	cfg, ws, err := openWorkspace(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := inbox.CheckName(name); err != nil {
		return nil, nil, nil, usageError{fmt.Errorf("%s: %w", plans.PlanNameNotAllowed, err)}
	}
	return cfg, ws, cfg.inbox(ws), nil
}

// findPlan is plan NAME of the inbox, or why not with its code: a NAME the inbox never takes
// (PLAN_NAME_NOT_ALLOWED) or none there (PLAN_NOT_IN_INBOX), wrong usage both; an inbox that
// cannot be read.
func findPlan(box *inbox.Inbox, name string) (inbox.Entry, error) {
	e, err := box.Find(name)
	switch {
	case errors.Is(err, inbox.ErrBadName):
		return e, usageError{fmt.Errorf("%s: %w", plans.PlanNameNotAllowed, err)}
	case errors.Is(err, inbox.ErrNoPlan):
		return e, usageError{fmt.Errorf("%s: %w (archiplan status lists them)", plans.PlanNotInInbox, err)}
	case err != nil:
		return e, codedError{exitNoUsable, err}
	}
	return e, nil
}

func resubmitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "resubmit NAME",
		Short: "Submit a rejected or stale plan again under a new name, and preview it there",
		Long: "Submit plans/NAME.rejected (or a plans/NAME.json bound to an earlier preview) again: the same bytes, and its\n" +
			"context, as plans/NAME-2.json (the first free name), linked to NAME; NAME's files leave the inbox. The new\n" +
			"plan is previewed at once against HEAD (a daemon, when one runs, sees the same). A rejected NAME is never\n" +
			"previewed again, and one previewed valid stays bound to that preview's words: this is the step that follows.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			cfg, ws, box, err := openInboxFor(cmd, name)
			if err != nil {
				return err
			}
			if err := waitsForApproval(ws, box, name); err != nil {
				return err
			}
			led := cfg.ledger(ws)
			if p, err := box.Find(name); err == nil && p.State == inbox.Pending {
				led.Withdrawn(name) // it leaves the inbox unapplied (a rejected one is in the audit already)
			}
			e, err := box.Resubmit(name)
			if errors.Is(err, inbox.ErrNoPlan) {
				return usageError{appliedAsNamed(ws, name, box.Path(name+"-again.json"), fmt.Errorf("%s: %w", plans.PlanNotInInbox, err))}
			}
			if errors.Is(err, inbox.ErrBadName) {
				return usageError{err}
			}
			if err != nil {
				return codedError{exitRefused, err}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "resubmitted %s as %s\n", name, box.Path(e.File))
			c, err := led.Check(e)
			if errors.Is(err, ledger.ErrGone) {
				return nil // a daemon took it on already (or it was approved): its preview is the daemon's
			}
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			if _, err := led.Publish(c); err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(out, "%s: %s\n", box.Path(e.File), c.Outcome.Verdict)
			for _, f := range c.Outcome.Errors() {
				fmt.Fprintf(out, "  error %s: %s\n", f.Code, f.Message)
			}
			if c.Outcome.Verdict == plans.VerdictValid {
				fmt.Fprintf(out, "read %s, then: archiplan approve %s\n", box.Path(inbox.PreviewFile(e.Name)), e.Name)
				return nil
			}
			return silent{codedError{exitRefused, fmt.Errorf("plan %s: %d error(s): %s lists them", c.Outcome.Verdict, len(c.Outcome.Errors()), box.Path(inbox.PreviewFile(e.Name)))}}
		},
	}
}

// appliedGone adds to approve's or reject's refusal of NAME not in the inbox (PLAN_NOT_IN_INBOX)
// where it went when a plan submitted as NAME was applied: approved twice, the second approval
// finds nothing, and status, which the refusal points to, lists nothing of it either.
func appliedGone(ws *store.Workspace, name string, err error) error {
	if !errors.Is(err, inbox.ErrNoPlan) || errors.Is(err, inbox.ErrBadName) {
		return err
	}
	if gone := ledger.Gone(ws, name); gone != "" {
		return usageError{fmt.Errorf("%s: %w: %s", plans.PlanNotInInbox, inbox.ErrNoPlan, gone)}
	}
	return err
}

// appliedAsNamed adds to resubmit's refusal of NAME (not in the inbox) the step that submits a
// plan applied under NAME again, from its archive in the apply's commit (a revert removed it from
// HEAD; docs/revert.md) into the inbox as again (a path that holds from any folder), or where the
// plans are listed.
func appliedAsNamed(ws *store.Workspace, name, again string, err error) error {
	if named := ledger.AppliedAs(ws, name); len(named) > 0 {
		e := named[0] // the last apply under NAME
		return fmt.Errorf("%w: %s was applied as %s (commit %s); resubmit takes a rejected or stale plan of the inbox. To submit it again as a new plan: git show %s:%s/%s/plan.json > %s",
			err, name, e.PlanID, short(e.Commit), short(e.Commit), ledger.ArchiveDir, e.PlanID, again)
	}
	return fmt.Errorf("%w (archiplan status lists the plans of the inbox, archiplan log the applied ones)", err)
}
