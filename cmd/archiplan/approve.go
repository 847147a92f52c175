package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

func approveCmd() *cobra.Command {
	var seen string
	c := &cobra.Command{
		Use:   "approve NAME [--preview SHA256]",
		Short: "Approve a plan previewed valid: rename plans/NAME.json to plans/NAME.approved",
		Long: "Approve a plan previewed valid: it prints what it approves (summary, number of changes, the preview's\n" +
			"SHA-256) and renames plans/NAME.json to plans/NAME.approved. It refuses a plan whose preview is not\n" +
			"valid, not archiplan's own, or of other bytes than the plan now holds. --preview binds the approval\n" +
			"to the preview you read: the SHA-256 of NAME.preview.md (sha256sum prints it; 12 hex digits or more).",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			box := cfg.inbox(ws)
			name := args[0]
			if err := inbox.CheckName(name); err != nil {
				return usageError{err}
			}
			// read while no preview is being written: a preview's files and its record are one
			var rec *inbox.Record
			err = box.Steady(func() (err error) { rec, err = approvable(box, name, seen); return err })
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			sum := rec.Outputs[inbox.PreviewFile(name)]
			fmt.Fprintf(out, "approving %s: %s\n  %d change(s); preview %s sha256 %s\n", name, quoteSummary(rec.Summary),
				len(rec.Changes), inbox.PreviewFile(name), sum)
			if err := box.ApproveSeen(name, sum, ""); err != nil {
				if errors.Is(err, inbox.ErrNoPlan) {
					return usageError{err}
				}
				return codedError{exitRefused, err}
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
// fixed), the preview on disk still archiplan's, and, when seen is given, the preview read.
func approvable(box *inbox.Inbox, name, seen string) (*inbox.Record, error) {
	refuse := func(format string, args ...any) error { return codedError{exitRefused, fmt.Errorf(format, args...)} }
	e, err := box.Find(name)
	if err != nil {
		return nil, usageError{err}
	}
	switch e.State {
	case inbox.Rejected:
		return nil, refuse("%s is rejected (%s says why): submit the plan under a new name", name, inbox.PreviewFile(name))
	case inbox.Approved:
		return nil, refuse("%s is approved already", name)
	}
	rec, err := box.Record(name)
	if err != nil {
		return nil, refuse("%s has no preview yet: read its preview before approving (archiplan validate %s previews it)",
			name, box.Path(inbox.PlanFile(name)))
	}
	raw, err := box.ReadPlan(e)
	if err != nil {
		return nil, refuse("read %s: %v", e.File, err)
	}
	if inbox.Hash(raw) != rec.PlanSHA256 {
		return nil, refuse("%s changed since its preview: nothing is approved that was not previewed (read its new preview)", e.File)
	}
	if fx, err := box.Fixed(name); err != nil || fx != nil && fx.PlanSHA256 != rec.PlanSHA256 {
		return nil, refuse("%s changed after it was previewed valid (%s): submit it under a new name", e.File, plans.PlanChangedAfterPreview)
	}
	if rec.Verdict != plans.VerdictValid {
		return nil, refuse("the preview of %s says %s: only a plan previewed valid is approved (%s says why)", name, rec.Verdict, inbox.PreviewFile(name))
	}
	if _, err := box.Verify(rec); err != nil {
		return nil, refuse("the preview on disk is not the one archiplan wrote, so what was read may be a forgery: %v", err)
	}
	sum := rec.Outputs[inbox.PreviewFile(name)]
	if seen != "" {
		s := strings.ToLower(strings.TrimSpace(seen))
		if len(s) < 12 || !strings.HasPrefix(sum, s) {
			return nil, refuse("the preview of %s is sha256 %s, not the %s you read: read %s again", name, sum, seen, inbox.PreviewFile(name))
		}
	}
	return rec, nil
}

func quoteSummary(s string) string {
	if s == "" {
		return "(no summary)"
	}
	return strconv.Quote(s)
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
			e, err := box.Find(args[0])
			if err != nil {
				return usageError{err}
			}
			if reason == "" {
				reason = "rejected by " + ws.Identity().Name
			}
			if _, err := cfg.ledger(ws).Reject(e, reason); err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rejected %s: %s\n", e.Name, inbox.RejectedFile(e.Name))
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why, shown on top of its preview")
	return c
}
