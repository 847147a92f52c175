package plans

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// promptContract is the stable head of every planner prompt: it comes first, and never varies
// with the model or the request, so providers' prompt caches hit. VERSION is schemas.Latest.
var promptContract = strings.ReplaceAll(`You are a planner for archiplan. archiplan changes an ArchiMate model only through change
plans that a person reviews and approves; you write such a plan. You never change the model
yourself, and you never write code.

Answer with exactly one JSON object, an ArchiChangePlan, and nothing else: no markdown fences,
no prose before or after it.

Rules:
1. Follow the plan format below exactly: only the fields it lists, schema_version "VERSION".
2. Use only ids that the planning context below lists. Never invent an id. To refer to an
   object your plan creates, give its create action a ref_id and use that ref_id in later actions.
3. If the request is ambiguous, or needs something the context does not show, answer with
   status "needs_clarification", your questions in "questions", and no actions.
4. If the request is not a model change you can plan safely, answer with status "refusal",
   the reason in "summary", and no actions.
5. Use the smallest set of actions that does what is asked. Do not restate values the model
   already has.
6. Relationships must be allowed by ArchiMate 3.2 between the types of their source and target.
7. "summary" says in one sentence what the plan does; "warnings" may note risks for the reviewer.
8. Before you create an element, look for one of that name and type in the context: reuse it
   rather than make a duplicate. Before you add an element to a view, look at the view's
   contents: do not add what the view already shows.
`, "VERSION", schemas.Latest)

// promptGuide explains the planning context; it is part of the stable head too.
var promptGuide = strings.ReplaceAll(`## How to read the planning context

- "focus" lists the elements the request names; "elements" holds them first, then their
  neighbours, then what the views showing them show, then the rest while the budget lasts.
- "relationships" are those between the elements listed. "views" are all the views, empty ones
  too, each with its viewpoint (the id for create_view, and "viewpoint_name" as Archi shows it:
  only the element types it allows belong on the view) and "counts" of what it holds;
  "contents" (diagram objects: kind element, group, note or reference, with name and type, the
  element each shows, nesting by "parent", "bounds" as x, y, width, height, and connections) is
  given for the views that matter most.
- "specializations" are the model's specializations of element types; "folders" are all folders
  with the number of elements directly in each (use their paths in folder_path).
- "omitted" counts what the budget left out: elements (summarised by type and by folder),
  relationships, views, and views listed without their contents. You cannot use an id that is
  not listed. If the request needs something omitted, answer "needs_clarification" and ask for
  it by name; the person can then ask again with a narrower scope (--scope view:ID,
  folder:PATH or ids:ID,...) or a larger budget (--max-elements, --max-chars).

## An example plan

In this example, EXISTING-ELEMENT-ID and EXISTING-VIEW-ID stand for ids from the context.

{"schema_version": "VERSION", "status": "ready",
 "summary": "Add a Payment Service that serves the existing booking process, and show it on its view",
 "questions": [], "warnings": [],
 "actions": [
  {"op": "create_element", "type": "Application Service", "name": "Payment Service", "ref_id": "payment"},
  {"op": "create_relationship", "source_id": "payment", "target_id": "EXISTING-ELEMENT-ID", "relationship_type": "Serving"},
  {"op": "add_to_view", "view_id": "EXISTING-VIEW-ID", "element_id": "payment"}
 ]}
`, "VERSION", schemas.Latest)

// SchemaSummary is the plan format in words: every op with its fields, and the type names.
func SchemaSummary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## The plan format (ArchiChangePlan %s)\n\n", schemas.Latest)
	fmt.Fprintf(&b, `{"schema_version": %q, "status": "ready" | "needs_clarification" | "refusal",`+"\n", schemas.Latest)
	b.WriteString(
		` "summary": string, "questions": [string], "warnings": [string], "actions": [action, ...]}` + "\n\n")
	b.WriteString("Each action is an object with \"op\" and the fields of its op (optional ones in brackets):\n\n")
	for _, op := range schemas.OpsOf(schemas.Latest) {
		var fields []string
		for _, f := range op.FieldsOf(schemas.Latest) {
			name := f.Name
			if f.Kind == schemas.Enum && len(f.Values) <= 6 {
				name += ": " + strings.Join(f.Values, " | ")
			}
			if !f.Required {
				name = "[" + name + "]"
			}
			fields = append(fields, name)
		}
		fmt.Fprintf(&b, "- %s: %s. %s\n", op.Name, strings.Join(fields, ", "), op.Doc)
	}
	b.WriteString("\nElement types: ")
	b.WriteString(joinLabels(archixml.ElementTypes))
	b.WriteString(".\nRelationship types: ")
	b.WriteString(joinLabels(archixml.RelationshipTypes))
	b.WriteString(".\n")
	return b.String()
}

func joinLabels(types []archixml.ConceptType) string {
	var l []string
	for _, t := range types {
		l = append(l, t.Label)
	}
	return strings.Join(l, ", ")
}

// StablePrompt is the head every prompt starts with, the same for every model and request: the
// contract, the plan format, how to read the context and an example plan. Planners that cache
// prompt prefixes hit on it.
func StablePrompt() string {
	return promptContract + "\n" + SchemaSummary() + "\n" + promptGuide
}

// BuildPrompt is the whole planner prompt: the stable head, the planning context, then the
// request. The same inputs give the same bytes.
func BuildPrompt(intent string, ctx interface{ JSON() []byte }) string {
	var b strings.Builder
	b.WriteString(StablePrompt())
	b.WriteString("\n## The model (planning context)\n\n```json\n")
	b.Write(ctx.JSON())
	b.WriteString("```\n\n## The request\n\n")
	b.WriteString(strings.TrimSpace(intent))
	b.WriteString("\n")
	return b.String()
}

// FollowUp is what a planner is told when its plan has errors: each error with its code, pointer
// and message, and the instruction to answer again with the whole corrected plan.
func FollowUp(o *Outcome) string {
	var b strings.Builder
	b.WriteString("archiplan checked your plan and found these errors:\n\n")
	for _, f := range o.Errors() {
		fmt.Fprintf(&b, "- %s", f.Code)
		if f.Pointer != "" {
			fmt.Fprintf(&b, " at %s", f.Pointer)
		}
		fmt.Fprintf(&b, ": %s\n", f.Message)
	}
	b.WriteString("\nAnswer again with the whole corrected plan, as one JSON object and nothing else. " +
		"Change only what the errors name; use only ids from the planning context.\n")
	return b.String()
}
