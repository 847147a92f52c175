package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func foldersCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "folders",
		Short: "Every folder, with what it holds directly",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			res := query.Folders(m)
			return printResult(cmd, res, func(w io.Writer) {
				for _, f := range res.Folders {
					fmt.Fprintf(w, "%s  (%s): %d elements, %d relationships, %d views, %d folders\n", termLine(f.Path), f.Type,
						f.Elements, f.Relationships, f.Views, f.Folders)
				}
			})
		},
	}
	readFlags(c)
	return c
}
