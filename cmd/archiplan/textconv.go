package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
)

// textconvCmd prints a model in words, one line per object, in the order of the file: what git
// shows for .archimate files once init registered it as their diff text conversion, so that
// `git log -p` says what changed instead of showing XML.
func textconvCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "textconv FILE",
		Short: "A model in words, one line per object (git's diff text conversion for .archimate files)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := inbox.ReadFile(args[0], int64(archixml.MaxModelBytes))
			if err != nil {
				return usageError{err}
			}
			m, err := archixml.Load(data)
			if err != nil {
				return codedError{exitNoUsable, fmt.Errorf("%s: %w", args[0], err)}
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			fmt.Fprintf(w, "model %s\n", strconv.Quote(m.Name()))
			for _, o := range m.Root().Children() {
				words(w, m, o, "")
			}
			return nil
		},
	}
}

// words writes an object and what it holds, one line each.
func words(w io.Writer, m *archixml.Model, o archixml.Object, view string) {
	label := o.Class()
	if t := o.Type(); t != nil && t.Label != "" {
		label = t.Label
	}
	line := ""
	switch o.Kind() {
	case archixml.KindFolder:
		line = fmt.Sprintf("folder %s", o.FolderPath())
	case archixml.KindElement:
		line = fmt.Sprintf("%s %s in %s", label, strconv.Quote(o.Name()), o.FolderPath())
	case archixml.KindRelationship:
		line = fmt.Sprintf("%s %s from %s to %s", label, strconv.Quote(o.Name()), nameOf(m, o.SourceID()), nameOf(m, o.TargetID()))
	case archixml.KindView:
		line = fmt.Sprintf("view %s in %s", strconv.Quote(o.Name()), o.FolderPath())
		view = o.Name()
	case archixml.KindDiagramObject:
		what := label + " " + strconv.Quote(o.Name())
		if c, ok := o.Concept(); ok {
			what = nameOf(m, c.ID())
		}
		b, _ := o.Bounds()
		line = fmt.Sprintf("  on view %s: %s at %d,%d size %dx%d", strconv.Quote(view), what, b.X, b.Y, b.Width, b.Height)
	case archixml.KindConnection:
		what := "connection"
		if c, ok := o.Concept(); ok {
			what = nameOf(m, c.ID())
		}
		line = fmt.Sprintf("  on view %s: %s", strconv.Quote(view), what)
	default:
		line = o.Class()
	}
	if doc := o.Documentation(); doc != "" && o.Kind() != archixml.KindDiagramObject {
		line += "; documentation " + strconv.Quote(doc)
	}
	var props []string
	for _, p := range o.Properties() {
		props = append(props, strconv.Quote(p.Key)+"="+strconv.Quote(p.Value))
	}
	sort.Strings(props)
	if len(props) > 0 {
		line += "; properties " + strings.Join(props, ", ")
	}
	fmt.Fprintf(w, "%s (%s)\n", line, o.ID())
	for _, c := range o.Children() {
		words(w, m, c, view)
	}
}

func nameOf(m *archixml.Model, id string) string {
	o, ok := m.Object(id)
	if !ok {
		return id
	}
	label := o.Class()
	if t := o.Type(); t != nil && t.Label != "" {
		label = t.Label
	}
	return label + " " + strconv.Quote(o.Name())
}
