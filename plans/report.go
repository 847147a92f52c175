package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/internal/hidden"
)

// ReportFormat is the report's format_version. Consumers ignore fields they do not know.
const ReportFormat = "1"

// ModelInfo says which model a plan was checked against.
type ModelInfo struct {
	Path   string `json:"path,omitempty"`
	Commit string `json:"commit,omitempty"`
	Blob   string `json:"blob,omitempty"`
}

// Report is NAME.report.json and `validate --json`: what programs and planners read.
type Report struct {
	FormatVersion string         `json:"format_version"`
	Plan          ReportPlan     `json:"plan"`
	Model         ModelInfo      `json:"model"`
	Verdict       string         `json:"verdict"`
	Reason        string         `json:"reason,omitempty"`
	Errors        []Finding      `json:"errors"`
	Warnings      []Finding      `json:"warnings"`
	Actions       []ReportAction `json:"actions"`
	// Refs maps each ref_id the plan declares to the id it names: what `convert` resolves the
	// peer's idFiles against, read from the archive of plans applied earlier.
	Refs map[string]string `json:"refs,omitempty"`
	// Approvals are who must approve the plan, by the workspace's owners and rules
	Approvals []Approval `json:"approvals,omitempty"`
}

// ReportPlan identifies the plan file a report speaks of.
type ReportPlan struct {
	File          string `json:"file"`
	SHA256        string `json:"sha256"`
	SchemaVersion string `json:"schema_version,omitempty"`
	Status        string `json:"status,omitempty"`
	Summary       string `json:"summary,omitempty"`
	NullsDropped  int    `json:"nulls_dropped,omitempty"` // nulls of the flat form dropped losslessly
}

// ReportAction is one action in a report.
type ReportAction struct {
	Index       int      `json:"index"`
	Op          string   `json:"op"`
	Description string   `json:"description"`
	Created     []string `json:"created,omitempty"`
	// Before is absent when the action has no before side, "" when the value was empty
	Before *string `json:"before,omitempty"`
	After  string  `json:"after,omitempty"`
	// Given are the values the action gives that reach the model beyond what Description says
	// (documentation, properties, names, text...): every one, whole.
	Given []Given `json:"given,omitempty"`
	// Takes names what a delete or a removal from a view takes along.
	Takes []string `json:"takes,omitempty"`
}

// Report builds the report of an outcome.
func (o *Outcome) Report(file string, model ModelInfo) *Report {
	r := &Report{FormatVersion: ReportFormat, Plan: ReportPlan{File: file, SHA256: o.SHA256, NullsDropped: o.NullsDropped}, Model: model,
		Verdict: o.Verdict, Errors: o.Errors(), Warnings: o.Warnings(), Actions: []ReportAction{}}
	if r.Errors == nil {
		r.Errors = []Finding{}
	}
	if r.Warnings == nil {
		r.Warnings = []Finding{}
	}
	if o.Plan != nil {
		r.Plan.SchemaVersion, r.Plan.Status, r.Plan.Summary = o.Plan.SchemaVersion, o.Plan.Status, o.Plan.Summary
	}
	r.Refs = o.Refs
	r.Approvals = o.Approvals
	for _, a := range o.Results {
		ra := ReportAction{Index: a.Index, Op: string(a.Op), Description: a.Description, Created: a.Created,
			After: a.After, Given: a.Given, Takes: a.Takes}
		if a.hasBefore {
			ra.Before = &a.Before
		}
		r.Actions = append(r.Actions, ra)
	}
	return r
}

// JSON is the report as written to NAME.report.json: indented, with a final newline. A character
// a person cannot see is written as JSON's escape (hidden.JSON): the values a program reads are
// exact, and the text a person or a planner reads shows the code.
func (r *Report) JSON() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // a report holds only strings, numbers and lists
	}
	return append(hidden.JSON(b), '\n')
}

// Preview is NAME.preview.md: what a person reads before approving.
func (o *Outcome) Preview(file string, model ModelInfo) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	title := file
	if o.Plan != nil && o.Plan.Summary != "" {
		title = o.Plan.Summary
	}
	w("# Plan: %s\n\n", MDEscape(title))
	w("Actions are numbered from 0, as in the report's `action` and the pointers.\n\n")
	w("| | |\n|---|---|\n")
	w("| Verdict | **%s** — %s |\n", o.Verdict, verdictWords(o))
	if o.Plan != nil {
		w("| Status | %s |\n", o.Plan.Status)
		w("| Schema | %s |\n", o.Plan.SchemaVersion)
	}
	w("| Plan file | %s (sha256 %s) |\n", MDCode(file), short(o.SHA256))
	if model.Path != "" {
		w("| Model | %s at commit %s, blob %s |\n", MDCode(model.Path), MDCode(short(model.Commit)), MDCode(short(model.Blob)))
	}
	w("\n")
	if o.Plan != nil && len(o.Plan.Questions) > 0 {
		w("## Questions\n\n")
		for _, q := range o.Plan.Questions {
			w("- %s\n", MDEscape(q))
		}
		w("\n")
	}
	if errs := o.Errors(); len(errs) > 0 {
		w("## Errors (%d)\n\n", len(errs))
		writeFindings(&b, errs)
	}
	if warns := o.Warnings(); len(warns) > 0 {
		w("## Warnings (%d)\n\n", len(warns))
		writeFindings(&b, warns)
	}
	if len(o.Approvals) > 0 {
		w("## Approvals\n\n")
		w("The workspace's owners and rules ask for these approvals, each by a different person (`archiplan approve NAME`); it applies only once all are given:\n\n")
		for _, a := range o.Approvals {
			who := "anyone"
			if len(a.From) > 0 {
				who = strings.Join(a.From, " or ")
			}
			w("- %s: %d approval(s) by %s", MDEscape(a.Rule), a.Count, MDEscape(who))
			if a.Message != "" {
				w(" — %s", MDEscape(a.Message))
			}
			w("\n")
		}
		w("\n")
	}
	if len(o.Results) > 0 {
		w("## Actions (%d)\n\n", len(o.Results))
		for _, r := range o.Results {
			mark := ""
			if r.Failed {
				mark = " ❌"
			}
			w("- **\\[%d\\]** %s%s\n", r.Index, MDProse(r.Description), mark)
			switch {
			case r.hasBefore:
				before, after := r.sides()
				w("  - before: %s\n  - after: %s\n", before, after)
			case r.After != "":
				w("  - %s\n", MDEscape(r.After))
			}
			for _, g := range r.Given {
				w("  - %s\n", g.line())
			}
			for _, t := range r.Takes {
				w("  - %s\n", MDProse(t))
			}
		}
		w("\n")
		if d := o.mermaid(); d != "" {
			w("## Diagram\n\nWhat the plan touches: new in green, deleted in red.\n\n```mermaid\n%s```\n", d)
		}
	}
	return []byte(b.String())
}

func verdictWords(o *Outcome) string {
	switch o.Verdict {
	case VerdictValid:
		return "ready to apply"
	case VerdictNotReady:
		if o.Plan != nil && o.Plan.Status == StatusRefusal {
			return "the planner refused; nothing to apply"
		}
		return "the planner needs answers; nothing to apply"
	case VerdictInvalid:
		return fmt.Sprintf("%d error(s) to fix before it can be applied", len(o.Errors()))
	}
	return "not applied (the reason is above)"
}

func writeFindings(b *strings.Builder, fs []Finding) {
	for _, f := range fs {
		where := ""
		if f.Action != nil {
			where = fmt.Sprintf(" (action %d)", *f.Action)
		}
		fmt.Fprintf(b, "- %s%s: %s", f.Code, where, MDEscape(f.Message))
		if f.Pointer != "" {
			fmt.Fprintf(b, " — at %s", MDEscape(f.Pointer))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func quoteOrNone(s string) string {
	if s == "(none)" {
		return "(none)"
	}
	return shown(s)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "-"
	}
	return s
}

// MDCode shows an id or a file name as a code span, readable in a terminal, when it is made of
// letters, digits, '.', '_', '-' and '/' only (nothing a code span could end or Markdown could
// read); anything else is escaped as MDEscape does.
func MDCode(s string) string {
	if !codeSafe(s) {
		return MDEscape(s)
	}
	return "`" + s + "`"
}

func codeSafe(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/') {
			return false
		}
	}
	return true
}

// MDProse escapes a sentence archiplan wrote (an action's description) as MDEscape does, but
// shows the ids in it, written "(id)" after a space, as code spans: "(`id-3f2a…`)" reads better
// in a terminal than "\(id\-3f2a…\)". Only a '(' at the start or after a space is left bare, so
// no "](" can form; what is not an id is escaped.
func MDProse(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "(")
		for i > 0 && s[i-1] != ' ' {
			j := strings.Index(s[i+1:], "(")
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			b.WriteString(MDEscape(s))
			return b.String()
		}
		k := strings.IndexByte(s[i:], ')')
		tok := ""
		if k > 0 {
			tok = s[i+1 : i+k]
		}
		if !idLike(tok) {
			b.WriteString(MDEscape(s[:i+1]))
			s = s[i+1:]
			continue
		}
		b.WriteString(MDEscape(s[:i]))
		b.WriteString("(`" + tok + "`)")
		s = s[i+k+1:]
	}
}

// idLike: a token made for code (Archi's "id-…" and UUIDs, archiplan's ref ids): code-safe,
// at least 6 long, with a digit or a '-' or '_' in it.
func idLike(s string) bool {
	return len(s) >= 6 && codeSafe(s) && strings.ContainsAny(s, "0123456789-_") && !strings.Contains(s, "/")
}

// MDEscape keeps text from a plan (or a model, a hook, a file name) from becoming markup in a
// preview: every character Markdown or HTML could read as syntax is escaped (a backslash before
// ASCII punctuation, entities for <, > and &), line breaks are shown as ↵ so that no text can
// start a heading, a list or a table row of its own, and nothing is cut: a person approves the
// whole text, however long.
func MDEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '\n':
			b.WriteString(" ↵ ")
		case r == '\t':
			b.WriteByte(' ')
		case hidden.Is(r):
			// control and bidirectional characters could hide or reorder text: shown, not obeyed
			b.WriteString(hidden.Code(r))
		case r < 0x80 && strings.ContainsRune(mdPunct, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdPunct is the ASCII punctuation MDEscape puts a backslash before.
const mdPunct = "\\`*_{}[]()#!|~.:"

// PlainText is a preview for a terminal: MDEscape's backslashes and entities undone and the bold
// markers dropped, outside code blocks. Characters a person cannot see stay shown as their codes
// (\u{...}), and line breaks in a text as ↵: the words are the preview's, only the markup goes.
func PlainText(md []byte) []byte {
	var b bytes.Buffer
	fenced := false
	for _, line := range strings.SplitAfter(string(md), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			b.WriteString(line)
			continue
		}
		if fenced {
			b.WriteString(line)
			continue
		}
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case c == '\\' && i+1 < len(line) && strings.IndexByte(mdPunct, line[i+1]) >= 0:
				i++
				b.WriteByte(line[i])
			case c == '*' && i+1 < len(line) && line[i+1] == '*':
				i++ // bold markers (an asterisk of the text is escaped)
			case c == '&':
				rest := line[i:]
				switch {
				case strings.HasPrefix(rest, "&lt;"):
					b.WriteByte('<')
					i += 3
				case strings.HasPrefix(rest, "&gt;"):
					b.WriteByte('>')
					i += 3
				case strings.HasPrefix(rest, "&amp;"):
					b.WriteByte('&')
					i += 4
				default:
					b.WriteByte(c)
				}
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.Bytes()
}

// mermaid draws the touched elements and the relationships created or deleted.
func (o *Outcome) mermaid() string {
	nodes := map[string]string{} // id -> class
	var order []string
	node := func(id, class string) {
		if id == "" {
			return
		}
		if _, ok := nodes[id]; !ok {
			order = append(order, id)
			nodes[id] = class
		} else if class != "" {
			nodes[id] = class
		}
	}
	var edges []edge
	for _, r := range o.Results {
		class := ""
		switch r.Op {
		case "create_element":
			if len(r.Created) > 0 { // not when on_duplicate reuse found it
				class = "new"
			}
		case "delete_element":
			class = "deleted"
		}
		for _, id := range r.touched {
			node(id, class)
		}
		for _, e := range r.edges {
			node(e.src, "")
			node(e.tgt, "")
			edges = append(edges, e)
		}
	}
	if len(order) == 0 {
		return ""
	}
	name := map[string]string{}
	for i, id := range order {
		name[id] = fmt.Sprintf("n%d", i+1)
	}
	var b strings.Builder
	b.WriteString("graph LR\n")
	for _, id := range order {
		text := mermaidText(id)
		if n, ok := o.names[id]; ok {
			nm, typ, _ := strings.Cut(n, "\x00")
			text = mermaidText(nm) + " · " + mermaidText(typ)
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", name[id], text)
	}
	for _, e := range edges {
		if name[e.src] == "" || name[e.tgt] == "" {
			continue
		}
		if e.deleted {
			fmt.Fprintf(&b, "  %s -.->|\"%s (deleted)\"| %s\n", name[e.src], mermaidText(e.typ), name[e.tgt])
		} else {
			fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", name[e.src], mermaidText(e.typ), name[e.tgt])
		}
	}
	var classes []string
	for _, id := range order {
		if c := nodes[id]; c != "" {
			classes = append(classes, fmt.Sprintf("  class %s %s\n", name[id], c))
		}
	}
	sort.Strings(classes)
	for _, c := range classes {
		b.WriteString(c)
	}
	b.WriteString("  classDef new fill:#d4f7d4,stroke:#2a7a2a\n  classDef deleted fill:#f7d4d4,stroke:#a02a2a\n")
	return b.String()
}

// mermaidEscapes is built once: building a replacer costs more than the 200 labels of a preview
// it replaces in (a cold apply of a small model spent 5% of its CPU building it per label).
var mermaidEscapes = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "&", "#amp;", "\n", " ", "\r", " ", "[", "(", "]", ")",
	"|", "/", "`", "'", "\\", "/")

func mermaidText(s string) string {
	return ShowHidden(mermaidEscapes.Replace(clip(s, 60)))
}

// ShowHidden writes every character a person cannot see (hidden.Is: controls, format
// characters, separators, the tag block, variation selectors) as its code, \u{202e}, the way a
// preview shows it: for plain text a person reads outside the preview (a commit message, the
// log), where the character would otherwise be obeyed. It is hidden.Show, the one way.
func ShowHidden(s string) string { return hidden.Show(s) }
