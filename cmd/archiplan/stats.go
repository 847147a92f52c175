package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func statsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "stats",
		Short: "Count the model: elements, relationships, views, by layer, type and viewpoint",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			s := query.StatsOf(m)
			return printResult(cmd, s, func(w io.Writer) {
				fmt.Fprintf(w, "%s: %d elements, %d relationships, %d views, %d folders, %d specializations\n", termQuote(s.Model),
					s.Elements, s.Relationships, s.Views, s.Folders, s.Specializations)
				for _, g := range []struct {
					title string
					list  []query.Count
				}{{"by layer", s.ByLayer}, {"by type", s.ByType}, {"views by viewpoint", s.ByViewpoint}} {
					fmt.Fprintf(w, "%s:\n", g.title)
					for _, c := range g.list {
						fmt.Fprintf(w, "  %6d  %s\n", c.Count, c.Name)
					}
				}
			})
		},
	}
	readFlags(c)
	return c
}
