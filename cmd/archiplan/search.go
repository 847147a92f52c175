package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func searchCmd() *cobra.Command {
	var o query.SearchOptions
	c := &cobra.Command{
		Use:   "search [TEXT] [--type T] [--folder PATH] [--property KEY[=VALUE]] [--limit N]",
		Short: "Find elements, relationships and views by words in their names, documentation and properties",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Text = strings.Join(args, " ")
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			res, err := query.Search(m, o)
			if err != nil {
				return queryError(err)
			}
			return printResult(cmd, res, func(w io.Writer) {
				for _, f := range res.Results {
					fmt.Fprintf(w, "%s  %s %s  %s", f.ID, f.Type, termQuote(f.Name), termLine(f.Folder))
					if len(f.Matched) > 0 {
						fmt.Fprintf(w, "  (%s)", termLine(strings.Join(f.Matched, ", ")))
					}
					fmt.Fprintln(w)
				}
				if res.Total > len(res.Results) {
					fmt.Fprintf(w, "%d of %d shown (--limit)\n", len(res.Results), res.Total)
				} else {
					fmt.Fprintf(w, "%d found\n", res.Total)
				}
			})
		},
	}
	c.Flags().StringVar(&o.Type, "type", "", "only this element or relationship type (\"Business Actor\", BusinessActor), or view")
	c.Flags().StringVar(&o.Folder, "folder", "", "only in this folder and below (Business/Actors)")
	c.Flags().StringVar(&o.Property, "property", "", "only objects with this property (KEY or KEY=VALUE)")
	c.Flags().IntVar(&o.Limit, "limit", 100, "the most results")
	readFlags(c)
	return c
}
