package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func allowedCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "allowed SOURCE TARGET",
		Short: "Which relationships the ArchiMate 3.2 table allows from SOURCE to TARGET (element types or ids; junction rules included)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			res, err := query.Allowed(m, args[0], args[1])
			if err != nil {
				return queryError(err)
			}
			return printResult(cmd, res, func(w io.Writer) {
				end := func(e query.End) string {
					if e.Element != nil {
						return fmt.Sprintf("%s %s (%s)", e.Type, termQuote(e.Element.Name), e.Element.ID)
					}
					return e.Type
				}
				fmt.Fprintf(w, "from %s to %s:\n", end(res.Source), end(res.Target))
				if len(res.Relationships) == 0 {
					fmt.Fprintln(w, "  no relationship is allowed")
				}
				for _, r := range res.Relationships {
					fmt.Fprintf(w, "  %s\n", r)
				}
				var refused []string
				for r := range res.Refused {
					refused = append(refused, r)
				}
				sort.Strings(refused)
				for _, r := range refused {
					fmt.Fprintf(w, "  not %s: %s\n", r, termLine(res.Refused[r]))
				}
			})
		},
	}
	readFlags(c)
	return c
}
