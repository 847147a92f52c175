package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
)

func approveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "approve NAME",
		Short: "Approve a previewed plan: rename plans/NAME.json to plans/NAME.approved",
		Args:  exactArgs(1),
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
			if _, err := box.Record(name); err != nil {
				return codedError{exitRefused, fmt.Errorf("%s has no preview yet: read its preview before approving (archiplan validate %s previews it)",
					name, box.Path(inbox.PlanFile(name)))}
			}
			if err := box.Approve(name); err != nil {
				if errors.Is(err, inbox.ErrNoPlan) {
					return usageError{err}
				}
				return codedError{exitRefused, err}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "approved %s: renamed to %s\n", name, inbox.ApprovedFile(name))
			if !daemonServes(ws) {
				fmt.Fprintf(out, "no daemon serves this workspace: it applies when one starts, or now with: archiplan apply %s\n",
					box.Path(inbox.ApprovedFile(name)))
			}
			return nil
		},
	}
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
			_, err = cfg.ledger(ws).Reject(e, reason)
			if err != nil && !errors.Is(err, ledger.ErrRefused) {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rejected %s: %s\n", e.Name, inbox.RejectedFile(e.Name))
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why, shown on top of its preview")
	return c
}
