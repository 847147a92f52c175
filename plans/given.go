package plans

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/archiplan/archiplan/schemas"
)

// Given is one value an action gives that reaches the model and that the action's own words do not
// say (schemas.ShowValue): shown under the action in the preview, listed in the report and bound
// by an approval. Derived from the op's definition, so a field added to the vocabulary is shown
// unless the table says why not.
type Given struct {
	Field string `json:"field"`
	Key   string `json:"key,omitempty"` // properties: the property's key (Value is its value)
	Value string `json:"value"`
	text  bool   // free text: shown quoted, its blank lines and outer spaces marked
}

// given lists the ShowValue fields an action sets, in the op's field order; act is the action
// as the plan wrote it, nulls dropped.
func given(name schemas.OpName, act map[string]any) []Given {
	op, ok := schemas.OpByName(schemas.Newest, name)
	if !ok || act == nil {
		return nil
	}
	var out []Given
	for _, f := range op.Fields {
		v, set := act[f.Name]
		if !set || v == nil || f.Show != schemas.ShowValue {
			continue
		}
		switch f.Kind {
		case schemas.Properties:
			list, _ := v.([]any)
			for _, p := range list {
				kv, _ := p.(map[string]any)
				k, _ := kv["key"].(string)
				val, _ := kv["value"].(string)
				out = append(out, Given{Field: f.Name, Key: k, Value: val})
			}
		case schemas.IDList, schemas.TypeList:
			list, _ := v.([]any)
			var items []string
			for _, x := range list {
				items = append(items, givenText(x))
			}
			out = append(out, Given{Field: f.Name, Value: strings.Join(items, ", ")})
		default:
			out = append(out, Given{Field: f.Name, Value: givenText(v), text: f.Kind == schemas.Text || f.Kind == schemas.Name})
		}
	}
	return out
}

func givenText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool, float64, int:
		return fmt.Sprint(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// shown is a value as a preview line shows it: escaped (MDEscape: line breaks as ↵, nothing
// cut), in quotes, its leading and trailing spaces made visible (␠), an empty or blank value said
// in words, and a long or multi-line value with its size, so a person sees that all of it is there.
func shown(s string) string {
	if s == "" {
		return "“” (empty)"
	}
	inner := strings.Trim(s, " \t")
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	trail := len(s) - len(strings.TrimRight(s, " \t"))
	if inner == "" {
		lead, trail = len(s), 0
	}
	out := "“" + strings.Repeat("␠", lead) + MDEscape(inner) + strings.Repeat("␠", trail) + "”"
	lines := strings.Count(s, "\n") + 1
	n := utf8.RuneCountInString(s)
	switch {
	case strings.TrimSpace(s) == "":
		out += fmt.Sprintf(" (only white space: %d character(s), %d line(s))", n, lines)
	case lines > 1 || n > 200:
		out += fmt.Sprintf(" (%d line(s), %d character(s), shown whole)", lines, n)
		if t := strings.TrimRight(s, " \t\r\n"); t != s && strings.Contains(s[len(t):], "\n") {
			out += fmt.Sprintf(", ending in %d blank line(s)", strings.Count(s[len(t):], "\n"))
		}
		if t := strings.TrimLeft(s, " \t\r\n"); t != s && strings.Contains(s[:len(s)-len(t)], "\n") {
			out += fmt.Sprintf(", starting with %d blank line(s)", strings.Count(s[:len(s)-len(t)], "\n"))
		}
	}
	return out
}

// change records an action's before and after values; an empty before is a before all the same.
func (r *ActionResult) change(before, after string) {
	r.Before, r.After, r.hasBefore = before, after, true
}

// sides are the before and after values of an action as its preview shows them.
func (r ActionResult) sides() (before, after string) {
	if r.lists != nil {
		return shownList(r.lists[0]), shownList(r.lists[1])
	}
	return quoteOrNone(r.Before), quoteOrNone(r.After)
}

// shownList is the values of a multi-valued property, each shown as one value is.
func shownList(vs []string) string {
	if len(vs) == 0 {
		return "(none)"
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = shown(v)
	}
	return strings.Join(q, ", ")
}

// line is a Given as one preview line.
func (g Given) line() string {
	if g.Field == "properties" {
		return fmt.Sprintf("property %s = %s", shown(g.Key), shown(g.Value))
	}
	if !g.text {
		return fmt.Sprintf("%s: %s", MDEscape(g.Field), MDEscape(g.Value))
	}
	return fmt.Sprintf("%s: %s", MDEscape(g.Field), shown(g.Value))
}

// Words is an action as its preview shows it, in one string: what an approval binds (a
// re-check after HEAD moved must find the same words for every action).
func (r ActionResult) Words() string {
	var b strings.Builder
	b.WriteString(r.Description)
	if r.Before != "" || r.After != "" {
		fmt.Fprintf(&b, "\nbefore: %s\nafter: %s", r.Before, r.After)
	}
	for _, g := range r.Given {
		b.WriteString("\n" + g.line())
	}
	return b.String()
}
