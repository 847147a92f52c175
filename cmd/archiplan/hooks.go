package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/hooks"
)

// hooksCmd is `hooks`: the hooks a pull added or changed wait for the person's trust on this
// machine (as direnv's allow), kept under .git/ by their content's hash.
func hooksCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "hooks",
		Short: "List the hooks a pull added or changed, which wait for your trust",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			waiting, err := hooks.Waiting(cfg.hooks(ws).Dir, ws.GitPath(hooks.TrustFile))
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			for _, h := range waiting {
				fmt.Fprintf(cmd.OutOrStdout(), "hooks/%s waits for trust (archiplan hooks trust %s)\n", h, h)
			}
			if len(waiting) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no hook waits for trust")
			}
			return nil
		},
	}
	c.AddCommand(&cobra.Command{
		Use:   "trust [HOOK...]",
		Short: "Let the hooks a pull added or changed run, as they are now (all, or those named)",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			done, err := hooks.TrustHeld(ws.GitPath(hooks.TrustFile), args...)
			if err != nil {
				return usageError{err}
			}
			for _, h := range done {
				fmt.Fprintf(cmd.OutOrStdout(), "trusted hooks/%s\n", h)
			}
			if len(done) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no hook waits for trust")
			}
			return nil
		},
	})
	return c
}
