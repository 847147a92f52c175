package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func checkCmd() *cobra.Command {
	var strict bool
	c := &cobra.Command{
		Use:   "check [--strict]",
		Short: "What Archi's validator reports about the model: errors, warnings and advice, with codes",
		Long: `archiplan check runs the checks of Archi's validator on the model (invalid relationships,
elements and relationships on no view, empty views, elements a view's viewpoint does not allow,
nesting without a relationship, possible duplicates, junctions of mixed types). It exits 1 when
there are errors (with --strict: any finding).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			res := query.Check(m)
			if err := printResult(cmd, res, func(w io.Writer) {
				for _, f := range res.Findings {
					fmt.Fprintf(w, "%s %s %s: %s", f.Severity, f.Code, f.Object, termLine(f.Message))
					if f.View != "" && f.View != f.Object {
						fmt.Fprintf(w, " [view %s]", f.View)
					}
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%d error(s), %d warning(s), %d advice\n", res.Errors, res.Warnings, res.Advice)
			}); err != nil {
				return err
			}
			if res.Errors > 0 || strict && len(res.Findings) > 0 {
				return codedError{exitRefused, silent{fmt.Errorf("check: %d error(s)", res.Errors)}}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings and advice too")
	readFlags(c)
	return c
}
