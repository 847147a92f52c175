package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/plans/archicli"
)

func convertCmd() *cobra.Command {
	var from, out string
	var anywhere bool
	c := &cobra.Command{
		Use:   "convert --from archicli FILE...",
		Short: "Turn the peer's BOM files into plans for review (written to the inbox; never applied)",
		Long: `convert turns each archicli BOM file into an archiplan plan named after the file
(bulk-01-elements.json becomes plans/bulk-01-elements.json), which the daemon previews like any
other plan. A BOM's idFiles are read beside it, or else are the ref_id -> id maps of the plans of
that name applied earlier (the archive keeps them): convert and apply the BOMs in their order.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from != "archicli" {
				return usageError{fmt.Errorf("--from %q: archiplan converts from archicli", from)}
			}
			var applied archicli.IDs
			var box *inbox.Inbox
			cfg, ws, err := openWorkspace(cmd)
			switch {
			case err == nil:
				applied = func(name string) (map[string]string, bool, error) { return ledger.AppliedRefs(ws, name) }
				box = cfg.inbox(ws)
			case out == "":
				return err
			}
			for _, f := range args {
				name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
				if err := inbox.CheckName(name); err != nil {
					return usageError{fmt.Errorf("%s: %w", f, err)}
				}
				plan, err := archicli.Convert(f, archicli.Options{Applied: applied, IncludesAnywhere: anywhere})
				if err != nil {
					if errors.Is(err, archicli.ErrConvert) {
						return codedError{exitRefused, err}
					}
					return err
				}
				dest := ""
				if out == "-" {
					if _, err := cmd.OutOrStdout().Write(plan); err != nil {
						return err
					}
					continue
				} else if out != "" {
					dest = filepath.Join(out, inbox.PlanFile(name))
					if err := writeNewFile(dest, plan); err != nil {
						return codedError{exitRefused, err}
					}
				} else {
					if err := box.Submit(name, plan); err != nil {
						return codedError{exitRefused, err}
					}
					dest = box.Path(inbox.PlanFile(name))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "converted %s: %s\n", f, dest)
			}
			return nil
		},
	}
	c.Flags().StringVar(&from, "from", "", "the format of the files: archicli")
	c.Flags().BoolVar(&anywhere, "includes-anywhere", false, "let a BOM include files outside its own folder")
	c.Flags().StringVar(&out, "out", "", "write the plans into this folder instead of the inbox (- for standard output)")
	return c
}

// writeNewFile writes a file that must not exist yet.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// minArgs is cobra.MinimumNArgs as a usage error.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
