package diff

import (
	"fmt"
	"io"
	"strings"
)

// words says a change in one line.
func words(ch *Change) string {
	switch ch.Op {
	case Added:
		s := "added " + ch.Label
		for _, f := range ch.Fields {
			switch f.Name {
			case "folder", "parent folder":
				if f.After != "" {
					s += " in " + quote(f.After)
				}
			case "source":
				s += " from " + f.After
			case "target":
				s += " to " + f.After
			case "bounds":
				s += " at " + f.After
			}
		}
		return s
	case Removed:
		s := "removed " + ch.Label
		for _, f := range ch.Fields {
			switch f.Name {
			case "source":
				s += " from " + or(f.Before, f.After)
			case "target":
				s += " to " + or(f.Before, f.After)
			case "bounds":
				s += " at " + or(f.Before, f.After)
			}
		}
		return s
	}
	var parts []string
	for _, f := range ch.Fields {
		parts = append(parts, fieldWords(f))
	}
	if len(ch.Diagram) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s on the view", len(ch.Diagram), plural(len(ch.Diagram), "change", "changes")))
	}
	return ch.Label + ": " + strings.Join(parts, "; ")
}

func fieldWords(f Field) string {
	switch {
	case f.Name == "name":
		return "renamed " + quote(f.Before) + " to " + quote(f.After)
	case f.Name == "type":
		return "type " + f.Before + " -> " + f.After
	case f.Name == "folder":
		return "moved from folder " + quote(f.Before) + " to " + quote(f.After)
	case f.Name == "parent folder":
		return "moved from " + quote(f.Before) + " to " + quote(f.After)
	case f.Name == "position":
		return "moved from " + f.Before + " to " + f.After
	case f.Name == "size":
		return "resized from " + f.Before + " to " + f.After
	case f.Name == "parent":
		return "moved into another container"
	case f.Name == "documentation", f.Name == "content", f.Name == "purpose":
		what := map[string]string{"documentation": "documentation", "content": "text", "purpose": "purpose"}[f.Name]
		switch {
		case f.Before == "":
			return what + " added"
		case f.After == "":
			return what + " removed"
		}
		return what + " changed"
	case strings.HasPrefix(f.Name, "property:"):
		k := strings.TrimPrefix(f.Name, "property:")
		switch {
		case f.Before == "" && f.After != "":
			return "property " + quote(k) + " set to " + quote(f.After)
		case f.After == "" && f.Before != "":
			return "property " + quote(k) + " removed (was " + quote(f.Before) + ")"
		}
		return "property " + quote(k) + " " + quote(f.Before) + " -> " + quote(f.After)
	case f.Name == "bendpoints":
		return "bendpoints changed"
	case f.Name == "other":
		return "changed"
	case f.Name == "source", f.Name == "target", f.Name == "shows":
		return f.Name + " " + f.Before + " -> " + f.After
	}
	return f.Name + " " + quote(f.Before) + " -> " + quote(f.After)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteText writes the result in words, one change a line, a view's drawing indented below it.
func (r *Result) WriteText(w io.Writer) error {
	if r.Empty() {
		_, err := fmt.Fprintln(w, "no changes")
		return err
	}
	for _, ch := range r.Changes {
		if _, err := fmt.Fprintln(w, ch.Text); err != nil {
			return err
		}
		for _, d := range ch.Diagram {
			if _, err := fmt.Fprintln(w, "    "+d.Text); err != nil {
				return err
			}
		}
	}
	return nil
}

// String is the result in words.
func (r *Result) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}
