package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func viewsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "views",
		Short: "Every view, with its viewpoint as Archi names it and what it holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			res := query.Views(m)
			return printResult(cmd, res, func(w io.Writer) {
				for _, v := range res.Views {
					fmt.Fprintf(w, "%s  %s  %s  %s viewpoint: %d elements, %d relationships", v.ID, termQuote(v.Name), termLine(v.Folder),
						v.Viewpoint.Name, v.Elements, v.Relationships)
					for _, x := range []struct {
						n    int
						what string
					}{{v.Groups, "groups"}, {v.Notes, "notes"}, {v.References, "view references"}} {
						if x.n > 0 {
							fmt.Fprintf(w, ", %d %s", x.n, x.what)
						}
					}
					if v.Type != "ArchiMate View" {
						fmt.Fprintf(w, " (%s)", v.Type)
					}
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%d views\n", len(res.Views))
			})
		},
	}
	readFlags(c)
	return c
}
