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
)

func reviewCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "review REV | BASE..HEAD [-o FILE]",
		Short: "A commit or a range of commits previewed as a plan: the changes in words, pictures, Archi's findings it adds",
		Long: `Review a commit (against its first parent) or a range BASE..HEAD (HEAD against the newest
commit it shares with BASE, as a pull request shows a branch: main..alice is what alice adds) as a
plan's preview shows a plan: every change to the model in words, pictures of the changed views
(the same frame before and after, changed objects outlined, a legend line for each), and the
findings of Archi's validator at HEAD that were not at BASE. It is read from the two models, so
commits made in Archi read like archiplan's own.

Prints Markdown; with -o FILE it writes FILE and the pictures beside it (FILE's name without
.md, then .view-N.before.svg, .after.svg and .whole.svg).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("review takes one commit or one range BASE..HEAD")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			name := "review"
			if out != "" {
				if n := strings.TrimSuffix(filepath.Base(out), ".md"); inbox.CheckName(n) == nil {
					name = n
				}
			}
			r, err := ledger.ReviewRange(ws, args[0], name)
			if errors.Is(err, ledger.ErrBadRange) {
				return usageError{err}
			}
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(r.Words)
				return err
			}
			dir := filepath.Dir(out)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return codedError{exitNoUsable, err}
			}
			for f, data := range r.Pictures {
				if err := writeAtomic(filepath.Join(dir, f), data); err != nil {
					return codedError{exitNoUsable, err}
				}
			}
			if err := writeAtomic(out, r.Markdown); err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d change(s), %d picture(s))\n", out, changes(r), len(r.Pictures))
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "write the review to FILE, and its pictures beside it")
	return c
}

func changes(r *ledger.Review) int {
	if r.Diff == nil {
		return 0
	}
	return len(r.Diff.Changes)
}
