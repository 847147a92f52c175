package main

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
)

// textconvCmd prints a model in words, one line per object, in the order of the file: what git
// shows for .archimate files once init registered it as their diff text conversion, so that
// `git log -p` says what changed instead of showing XML. It streams (archixml.Scan): no tree of
// the model is built, and each line is written as soon as its object is known. A file that turns
// out malformed part way through leaves the lines before the fault written and exits with
// exitNoUsable.
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
			w := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
			var line []byte
			err = archixml.Scan(data, func(o *archixml.Scanned) error {
				line = shown(words(line[:0], o))
				_, err := w.Write(line)
				return err
			})
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
			if err != nil {
				return codedError{exitNoUsable, fmt.Errorf("%s: %w", args[0], err)}
			}
			return nil
		},
	}
}

// shown is a line of words with every character a person cannot see written as its code
// (plans.ShowHidden): a planner's name, folder or property in git log -p is shown, never obeyed.
// Only a line with a byte outside printable ASCII is looked at again.
func shown(line []byte) []byte {
	body := line[:len(line)-1] // the newline words ends each line with
	if !bytes.ContainsFunc(body, func(r rune) bool { return r < 0x20 || r >= 0x7f }) {
		return line
	}
	return append(append(line[:0:0], plans.ShowHidden(string(body))...), '\n')
}

// words appends an object's line to b.
func words(b []byte, o *archixml.Scanned) []byte {
	label := o.Class()
	if t := o.Type(); t != nil && t.Label != "" {
		label = t.Label
	}
	switch o.Kind() {
	case archixml.KindModel:
		if _, nested := o.Parent(); !nested {
			b = append(b, "model "...)
			b = appendQuote(b, o.Name())
			return append(b, '\n')
		}
		b = append(b, o.Class()...)
	case archixml.KindFolder:
		b = append(b, "folder "...)
		b = append(b, o.FolderPath()...)
	case archixml.KindElement:
		b = append(append(b, label...), ' ')
		b = appendQuote(b, o.Name())
		b = append(append(b, " in "...), o.FolderPath()...)
	case archixml.KindRelationship:
		b = append(append(b, label...), ' ')
		b = appendQuote(b, o.Name())
		b = nameOf(append(b, " from "...), o, o.SourceID())
		b = nameOf(append(b, " to "...), o, o.TargetID())
	case archixml.KindView:
		b = append(b, "view "...)
		b = appendQuote(b, o.Name())
		b = append(append(b, " in "...), o.FolderPath()...)
	case archixml.KindDiagramObject:
		b = onView(b, o)
		if _, ok := o.Find(o.ConceptID()); ok {
			b = nameOf(b, o, o.ConceptID())
		} else {
			b = append(append(b, label...), ' ')
			b = appendQuote(b, o.Name())
		}
		bd, _ := o.Bounds()
		b = append(b, " at "...)
		b = append(strconv.AppendInt(b, int64(bd.X), 10), ',')
		b = strconv.AppendInt(b, int64(bd.Y), 10)
		b = append(b, " size "...)
		b = append(strconv.AppendInt(b, int64(bd.Width), 10), 'x')
		b = strconv.AppendInt(b, int64(bd.Height), 10)
	case archixml.KindConnection:
		b = onView(b, o)
		if _, ok := o.Find(o.ConceptID()); ok {
			b = nameOf(b, o, o.ConceptID())
		} else {
			b = append(b, "connection"...)
		}
	default:
		b = append(b, o.Class()...)
	}
	if doc := o.Documentation(); doc != "" && o.Kind() != archixml.KindDiagramObject {
		b = appendQuote(append(b, "; documentation "...), doc)
	}
	if ps := o.Properties(); len(ps) > 0 {
		props := make([]string, len(ps))
		for i, p := range ps {
			props[i] = hidden.Quote(p.Key) + "=" + hidden.Quote(p.Value)
		}
		sort.Strings(props)
		b = append(b, "; properties "...)
		for i, p := range props {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, p...)
		}
	}
	b = appendSettings(b, o.Settings())
	b = append(append(append(b, " ("...), o.ID()...), ")\n"...)
	return b
}

// appendSettings appends an object's settings (archixml.Object.Settings), so that a restyle, a
// reroute or a viewpoint shows in `git log -p` too.
func appendSettings(b []byte, settings []archixml.Property) []byte {
	for i, p := range settings {
		if i == 0 {
			b = append(b, "; "...)
		} else {
			b = append(b, ", "...)
		}
		b = appendQuote(append(append(b, p.Key...), '='), p.Value)
	}
	return b
}

// onView appends what starts the line of a diagram object or connection: the view it is on.
func onView(b []byte, o *archixml.Scanned) []byte {
	view := ""
	for p, ok := o.Parent(); ok; p, ok = p.Parent() {
		if p.Kind() == archixml.KindView {
			view = p.Name()
			break
		}
	}
	b = append(b, "  on view "...)
	b = appendQuote(b, view)
	return append(b, ": "...)
}

// nameOf appends the type and name of the object with the id, or the id when there is none.
func nameOf(b []byte, o *archixml.Scanned, id string) []byte {
	n, ok := o.Find(id)
	if !ok {
		return append(b, id...)
	}
	label := n.Class
	if t := n.Type(); t != nil && t.Label != "" {
		label = t.Label
	}
	b = append(append(b, label...), ' ')
	return appendQuote(b, n.Name)
}

// appendQuote appends s as hidden.Quote writes it (as the preview quotes a name), without its work
// for the names most models hold: printable ASCII with no quote or backslash is written as it is.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return append(b, hidden.Quote(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
