// Package refdocs writes the reference pages under docs/reference from the code: the commands
// from cobra, the codes from their tables, the plan vocabulary from schemas.Ops, the
// configuration from settings.Keys. A test (cmd/archiplan's TestReference_Current) fails when a
// page on disk is not what this writes; `go test ./cmd/archiplan -run TestReference -update`
// writes them again.
package refdocs

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/archiplan/archiplan/archixml/exchange"
	"github.com/archiplan/archiplan/internal/settings"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/archicli"
	"github.com/archiplan/archiplan/schemas"
	"github.com/archiplan/archiplan/store"
)

// Dir is where the pages go, from the repository's root.
const Dir = "docs/reference"

// Input is what the pages are made of that this package cannot reach itself: the command tree
// and the codes of the command line's own answers (MCP's, answer's).
type Input struct {
	Root         *cobra.Command
	CommandCodes []struct{ Code, Meaning string }
}

// Pages are the reference pages, by path from the repository's root.
func Pages(in Input) (map[string][]byte, error) {
	cmds, err := Commands(in.Root)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		path.Join(Dir, "commands.md"): cmds,
		path.Join(Dir, "codes.md"):    Codes(in.CommandCodes),
		path.Join(Dir, "ops.md"):      Ops(),
		path.Join(Dir, "config.md"):   Config(),
	}, nil
}

const generated = "<!-- Generated from the code by `go test ./cmd/archiplan -run TestReference -update`; do not edit. -->\n\n"

// cell is text in a table's cell: a pipe would end it, a line break the row.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Commands is every command's usage, flags and examples, as cobra documents them.
func Commands(root *cobra.Command) ([]byte, error) {
	root.DisableAutoGenTag = true
	var b bytes.Buffer
	b.WriteString("# Commands\n\n" + generated)
	b.WriteString("Every command of `archiplan`, with its flags. Exit status: 0 done; 1 a plan refused " +
		"(invalid, not ready); 2 wrong usage; 3 no usable workspace or model.\n\n")
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		all = append(all, c)
		subs := c.Commands()
		sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
		for _, s := range subs {
			walk(s)
		}
	}
	walk(root)
	link := func(name string) string { // archiplan_show.md -> #archiplan-show
		return "#" + anchor(strings.ReplaceAll(strings.TrimSuffix(name, ".md"), "_", " "))
	}
	for _, c := range all {
		var one bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &one, link); err != nil {
			return nil, err
		}
		b.Write(one.Bytes())
		b.WriteString("\n")
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// anchor is the fragment a Markdown renderer (GitHub's) gives a heading.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}

// Codes is the table of every code: a plan's findings, Archi's validator's, the conversion's,
// the import's, the team remote's and the command line's own.
func Codes(commandCodes []struct{ Code, Meaning string }) []byte {
	var b bytes.Buffer
	b.WriteString("# Codes\n\n" + generated)
	b.WriteString("Codes are stable and never reused for another meaning.\n\n")
	b.WriteString("## A plan's findings (reports, previews, `validate`)\n\n")
	b.WriteString("| code | severity | meaning, and how a planner fixes it |\n|---|---|---|\n")
	for _, d := range plans.Codes {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.Code, d.Severity, cell(d.Meaning))
	}
	b.WriteString("\n## Archi's validator (`archiplan check`)\n\n")
	b.WriteString("The severity Archi gives each (in a plan's preview they are warnings about what the plan adds).\n\n")
	b.WriteString("| code | severity | Archi's checker | what it finds |\n|---|---|---|---|\n")
	for _, c := range plans.ArchiChecks {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Code, c.Severity, c.Archi, cell(c.Meaning))
	}
	b.WriteString("\n## Converting the peer's BOM files (`archiplan convert --from archicli`)\n\n")
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, c := range archicli.Codes {
		fmt.Fprintf(&b, "| `%s` | %s |\n", c.Code, cell(c.Meaning))
	}
	b.WriteString("\n## Importing an Exchange Format file (`archiplan import`, `init --model FILE.xml`)\n\n")
	b.WriteString("Every one is an error: nothing is made of the file.\n\n")
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, c := range exchange.Codes {
		fmt.Fprintf(&b, "| `%s` | %s |\n", c.Code, cell(c.Meaning))
	}
	b.WriteString("\n## A team's remote (`archiplan status`, `sync`)\n\n")
	b.WriteString("| code | meaning | fix shown |\n|---|---|---|\n")
	for _, c := range store.Codes {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Code, cell(c.Meaning), cell(c.Fix))
	}
	b.WriteString("\n## Refusals of a plan (`approve`, `reject`, `resubmit`, `revert`, the review page)\n\n")
	b.WriteString("Each message starts with its code; nothing is changed.\n\n")
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, c := range plans.Refusals {
		fmt.Fprintf(&b, "| `%s` | %s |\n", c.Code, cell(c.Meaning))
	}
	if len(commandCodes) > 0 {
		b.WriteString("\n## The command line's own (MCP tools, `answer`)\n\n")
		b.WriteString("| code | meaning |\n|---|---|\n")
		for _, c := range commandCodes {
			fmt.Fprintf(&b, "| `%s` | %s |\n", c.Code, cell(c.Meaning))
		}
	}
	return b.Bytes()
}

var kinds = map[schemas.FieldKind]string{
	schemas.Text: "text", schemas.Name: "text, not blank", schemas.ID: "id or ref_id",
	schemas.RefID: "ref_id it declares", schemas.ElementType: "element type", schemas.RelationshipType: "relationship type",
	schemas.Integer: "integer", schemas.Coordinate: "coordinate", schemas.Enum: "one of", schemas.Boolean: "boolean",
	schemas.Properties: "list of {key, value}", schemas.IDList: "list of ids or ref_ids", schemas.TypeList: "list of element types",
}

// Ops is the plan vocabulary: every op with the version that added it, what it does, and each of
// its fields.
func Ops() []byte {
	var b bytes.Buffer
	b.WriteString("# The plan vocabulary\n\n" + generated)
	fmt.Fprintf(&b, "Plan versions read: %s; planners are asked for %s. Types are jArchi's labels "+
		"(`\"Business Actor\"`, `\"Serving\"`) or Archi's class names (`BusinessActor`).\n\n",
		strings.Join(schemas.Versions, ", "), schemas.Latest)
	b.WriteString("| op | since | fields (optional in brackets) |\n|---|---|---|\n")
	for _, op := range schemas.Ops {
		var fs []string
		for _, f := range op.Fields {
			s := "`" + f.Name + "`"
			if !f.Required {
				s = "[" + s + "]"
			}
			if f.Since != op.Since {
				s += " (" + f.Since + ")"
			}
			fs = append(fs, s)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", op.Name, op.Since, strings.Join(fs, ", "))
	}
	for _, op := range schemas.Ops {
		fmt.Fprintf(&b, "\n## %s\n\n%s (since %s)\n\n", op.Name, op.Doc, op.Since)
		b.WriteString("| field | kind | required | since | what it holds |\n|---|---|---|---|---|\n")
		for _, f := range op.Fields {
			kind := kinds[f.Kind]
			if len(f.Values) > 0 {
				vs := make([]string, len(f.Values))
				for i, v := range f.Values {
					vs[i] = "`" + v + "`"
					if since, ok := f.ValueSince[v]; ok {
						vs[i] += " (" + since + ")"
					}
				}
				kind += " " + strings.Join(vs, ", ")
			}
			switch {
			case f.Kind == schemas.Integer || f.Kind == schemas.Coordinate:
				if f.Max > 0 {
					kind += fmt.Sprintf(", %d to %d", f.Min, f.Max)
				}
			case f.Max > 0:
				kind += ", at most " + strconv.Itoa(f.Max)
			}
			req := "no"
			if f.Required {
				req = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Name, cell(kind), req, f.Since, cell(f.Doc))
		}
	}
	return b.Bytes()
}

// Config is every key of .archiplan.yaml.
func Config() []byte {
	var b bytes.Buffer
	b.WriteString("# Configuration: `.archiplan.yaml`\n\n" + generated)
	b.WriteString("Every key is optional. The file is read from the workspace's root (or `--config FILE`); " +
		"keys are read in any case. An `ARCHIPLAN_*` variable (the key in capitals, `.` as `_`) overrides " +
		"only the keys marked so: how long and how much, never where, who or what is allowed. " +
		"`planner.*` keys hold for `planners.NAME.*` too.\n\n")
	b.WriteString("| key | default | environment | meaning |\n|---|---|---|---|\n")
	for _, k := range settings.Keys {
		def, env := "", ""
		if k.Default != "" {
			def = "`" + k.Default + "`"
		}
		if k.Env {
			env = "`ARCHIPLAN_" + strings.ToUpper(strings.ReplaceAll(k.Name, ".", "_")) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, def, env, cell(k.Meaning))
	}
	return b.Bytes()
}
