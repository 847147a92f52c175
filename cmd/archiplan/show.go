package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans/planctx"
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
	fmt.Fprintf(w, "%s %s (%s)\n", s.Type, termQuote(s.Name), s.ID)
	if s.Folder != "" {
		fmt.Fprintf(w, "  folder: %s\n", termLine(s.Folder))
	}
	if s.Specialization != "" {
		fmt.Fprintf(w, "  specialization: %s\n", termLine(s.Specialization))
	}
	if s.SourceRef != nil && s.TargetRef != nil {
		fmt.Fprintf(w, "  from %s %s (%s) to %s %s (%s)\n", s.SourceRef.Type, termQuote(s.SourceRef.Name), s.SourceRef.ID,
			s.TargetRef.Type, termQuote(s.TargetRef.Name), s.TargetRef.ID)
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
			fmt.Fprintf(w, "  %s %s %s %s (%s)  [%s]\n", arrow, r.Type, r.Other.Type, termQuote(r.Other.Name), r.Other.ID, r.ID)
		}
	}
	if s.Contents != nil {
		printContents(w, s.Contents)
	}
	if len(s.Views) > 0 {
		label := "on views"
		if s.Contents != nil {
			label = "referred to by views"
		}
		fmt.Fprintf(w, "%s (%d):\n", label, len(s.Views))
		for _, v := range s.Views {
			fmt.Fprintf(w, "  %s (%s)\n", termQuote(v.Name), v.ID)
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
			fmt.Fprintf(w, "  view %s (%s): %d object(s), %d connection(s)\n", termQuote(v.Name), v.ID, v.DiagramObjects, v.Connections)
		}
		fmt.Fprintf(w, "changing it shows on %d view(s) and %d relationship(s)\n", imp.Change.Views, imp.Change.Relationships)
	}
}

// printContents lists a view's diagram objects, nested under what holds them, with the ids that
// move_view_object, style_view_object and the other view ops name, and their bounds; then its
// connections between them.
func printContents(w io.Writer, c *planctx.ViewContents) {
	fmt.Fprintf(w, "contents: %d objects, %d connections\n", len(c.Objects), len(c.Connections))
	depth := map[string]int{}
	names := map[string]string{}
	for _, o := range c.Objects { // parents come before what they hold
		if o.Parent != "" {
			depth[o.ID] = depth[o.Parent] + 1
		}
		names[o.ID] = o.Name
		indent := strings.Repeat("  ", depth[o.ID]+1)
		fmt.Fprintf(w, "%s%s %s", indent, o.ID, o.Kind)
		if o.Type != "" && o.Type != o.Kind {
			fmt.Fprintf(w, " %s", o.Type)
		}
		fmt.Fprintf(w, " %s", termQuote(o.Name))
		switch {
		case o.Element != "":
			fmt.Fprintf(w, " (element %s)", o.Element)
		case o.View != "":
			fmt.Fprintf(w, " (view %s)", o.View)
		}
		fmt.Fprintf(w, " at %s\n", boundsText(o.Bounds))
	}
	if len(c.Connections) > 0 {
		fmt.Fprintln(w, "connections:")
	}
	for _, k := range c.Connections {
		fmt.Fprintf(w, "  %s %s -> %s", k.ID, termQuote(names[k.Source]), termQuote(names[k.Target]))
		if k.Relationship != "" {
			fmt.Fprintf(w, " relationship %s", k.Relationship)
		}
		fmt.Fprintln(w)
	}
}

// boundsText is a diagram object's bounds as a person reads them: x,y and the size (Archi's
// default size where it has none of its own).
func boundsText(b [4]int) string {
	size := fmt.Sprintf("%dx%d", b[2], b[3])
	if b[2] < 0 || b[3] < 0 {
		size = "default size"
	}
	return fmt.Sprintf("x=%d y=%d, %s", b[0], b[1], size)
}
