package schemas

import "strings"

// BuildStrict returns the plan schema rewritten into the form OpenAI structured outputs and the
// Codex app-server outputSchema accept: no oneOf and no const; every object closed and every
// property required; an action is one flat object with the fields of every op, those its op does
// not use (and its optional ones) null; nullable enums list null; no length, range or format
// keywords. plans.NormalizeStrict maps an answer back to a canonical plan.
func BuildStrict(version string) []byte {
	fields := obj{{"op", obj{{"type", "string"}, {"enum", opNamesOf(version)}, {"description", "the operation"}}}}
	for _, f := range flatFields(version) {
		fields = append(fields, kv{f.Name, strictField(f)})
	}
	required := make([]string, 0, len(fields))
	for _, f := range fields {
		required = append(required, f.k)
	}
	nullableStrings := func(desc string) obj {
		return obj{{"type", []string{"array", "null"}}, {"items", obj{{"type", "string"}}}, {"description", desc}}
	}
	s := obj{
		{"title", "ArchiChangePlan " + version + " (strict form)"},
		{"type", "object"},
		{"properties", obj{
			{"schema_version", obj{{"type", "string"}, {"enum", []string{version}}}},
			{"status", obj{{"type", "string"}, {"enum", []string{"ready", "needs_clarification", "refusal"}}}},
			{"summary", obj{{"type", "string"}, {"description", "one sentence: what the plan does, or why it cannot"}}},
			{"questions", nullableStrings("questions for the person, with status needs_clarification")},
			{"warnings", nullableStrings("risks the reviewer should know of")},
			{"actions", obj{{"type", "array"}, {"items", obj{
				{"type", "object"},
				{"description", "one action: op, the fields of that op, every other field null"},
				{"properties", fields},
				{"required", required},
				{"additionalProperties", false},
			}}}},
		}},
		{"required", []string{"schema_version", "status", "summary", "questions", "warnings", "actions"}},
		{"additionalProperties", false},
	}
	return marshal(s)
}

// flatFields are the fields of every op of a version by name, in the order they first appear: a
// name several ops share is described for each op where their docs differ ("name: for
// create_element, element name; for create_relationship, optional name; ..."), never by the first
// op alone, and an enum lists the values of every op.
func flatFields(version string) []Field {
	var order []string
	byName := map[string][]Field{}
	ops := map[string][]OpName{}
	for _, op := range OpsOf(version) {
		for _, f := range op.FieldsOf(version) {
			if _, seen := byName[f.Name]; !seen {
				order = append(order, f.Name)
			}
			byName[f.Name] = append(byName[f.Name], f)
			ops[f.Name] = append(ops[f.Name], op.Name)
		}
	}
	out := make([]Field, 0, len(order))
	for _, name := range order {
		fs := byName[name]
		f := fs[0]
		same := true
		for _, g := range fs[1:] {
			same = same && g.Doc == f.Doc
		}
		if !same {
			var parts []string
			for i, g := range fs {
				parts = append(parts, "for "+string(ops[name][i])+", "+g.Doc)
			}
			f.Doc = strings.Join(parts, "; ")
		}
		if f.Kind == Enum {
			seen := map[string]bool{}
			f.Values = nil
			for _, g := range fs {
				for _, v := range g.Values {
					if !seen[v] {
						seen[v] = true
						f.Values = append(f.Values, v)
					}
				}
			}
		}
		out = append(out, f)
	}
	return out
}

func opNamesOf(version string) []string {
	var n []string
	for _, op := range OpsOf(version) {
		n = append(n, string(op.Name))
	}
	return n
}

func strictField(f Field) obj {
	d := obj{{"description", f.Doc + " (null when the op has no such field)"}}
	switch f.Kind {
	case Integer, Coordinate:
		return append(d, kv{"type", []string{"integer", "null"}})
	case Enum:
		return append(d, kv{"type", []string{"string", "null"}}, kv{"enum", append(anyList(f.Values), nil)})
	case Boolean:
		return append(d, kv{"type", []string{"boolean", "null"}})
	case Properties:
		return append(d, kv{"type", []string{"array", "null"}}, kv{"items", obj{
			{"type", "object"},
			{"properties", obj{{"key", obj{{"type", "string"}}}, {"value", obj{{"type", "string"}}}}},
			{"required", []string{"key", "value"}},
			{"additionalProperties", false},
		}})
	case IDList:
		return append(d, kv{"type", []string{"array", "null"}}, kv{"items", obj{{"type", "string"}}})
	case TypeList:
		return append(d, kv{"type", []string{"array", "null"}}, kv{"items", obj{{"type", "string"}, {"enum", elementTypeNames()}}})
	case ElementType:
		return append(d, kv{"type", []string{"string", "null"}}, kv{"enum", append(anyList(elementTypeNames()), nil)})
	case RelationshipType:
		return append(d, kv{"type", []string{"string", "null"}}, kv{"enum", append(anyList(relationshipTypeNames()), nil)})
	}
	return append(d, kv{"type", []string{"string", "null"}})
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
