package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/query"
)

func showCmd() *cobra.Command {
	var impact bool
	c := &cobra.Command{
		Use:   "show ID [--impact]",
		Short: "Show an element, relationship or view: properties, relationships, views; --impact: what deleting or changing it touches",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			s, err := query.Show(m, args[0], impact)
			if err != nil {
				return queryError(err)
			}
			return printResult(cmd, s, func(w io.Writer) { printShown(w, s) })
		},
	}
	c.Flags().BoolVar(&impact, "impact", false, "also what deleting it would take with it (the delete cascade) and where a change shows")
	readFlags(c)
	return c
}

func printShown(w io.Writer, s *query.Shown) {
	fmt.Fprintf(w, "%s %q (%s)\n", s.Type, termLine(s.Name), s.ID)
	if s.Folder != "" {
		fmt.Fprintf(w, "  folder: %s\n", termLine(s.Folder))
	}
	if s.Specialization != "" {
		fmt.Fprintf(w, "  specialization: %s\n", termLine(s.Specialization))
	}
	if s.SourceRef != nil && s.TargetRef != nil {
		fmt.Fprintf(w, "  from %s %q (%s) to %s %q (%s)\n", s.SourceRef.Type, termLine(s.SourceRef.Name), s.SourceRef.ID,
			s.TargetRef.Type, termLine(s.TargetRef.Name), s.TargetRef.ID)
	}
	if s.Viewpoint != nil {
		fmt.Fprintf(w, "  viewpoint: %s\n", s.Viewpoint.Name)
	}
	if s.Documentation != "" {
		fmt.Fprintf(w, "  documentation: %s\n", termLine(s.Documentation))
	}
	for _, p := range s.Properties {
		fmt.Fprintf(w, "  property %s = %s\n", termLine(p.Key), termLine(p.Value))
	}
	if len(s.Relationships) > 0 {
		fmt.Fprintf(w, "relationships (%d):\n", len(s.Relationships))
		for _, r := range s.Relationships {
			arrow := "->"
			if r.Direction == "in" {
				arrow = "<-"
			}
			fmt.Fprintf(w, "  %s %s %s %q (%s)  [%s]\n", arrow, r.Type, r.Other.Type, termLine(r.Other.Name), r.Other.ID, r.ID)
		}
	}
	if s.Contents != nil {
		fmt.Fprintf(w, "contents: %d objects, %d connections\n", len(s.Contents.Objects), len(s.Contents.Connections))
		for _, o := range s.Contents.Objects {
			fmt.Fprintf(w, "  %s %s %q", o.Kind, o.Type, termLine(o.Name))
			if o.Element != "" {
				fmt.Fprintf(w, " (%s)", o.Element)
			}
			fmt.Fprintln(w)
		}
	}
	if len(s.Views) > 0 {
		label := "on views"
		if s.Contents != nil {
			label = "referred to by views"
		}
		fmt.Fprintf(w, "%s (%d):\n", label, len(s.Views))
		for _, v := range s.Views {
			fmt.Fprintf(w, "  %q (%s)\n", termLine(v.Name), v.ID)
		}
	}
	if imp := s.Impact; imp != nil {
		d := imp.Delete
		fmt.Fprintf(w, "deleting it also deletes %d relationship(s), %d diagram object(s) and %d connection(s)\n",
			len(d.Relationships), d.DiagramObjects, d.Connections)
		for _, t := range d.Takes {
			fmt.Fprintf(w, "  %s\n", termLine(t))
		}
		for _, v := range d.Views {
			fmt.Fprintf(w, "  view %q (%s): %d object(s), %d connection(s)\n", termLine(v.Name), v.ID, v.DiagramObjects, v.Connections)
		}
		fmt.Fprintf(w, "changing it shows on %d view(s) and %d relationship(s)\n", imp.Change.Views, imp.Change.Relationships)
	}
}
