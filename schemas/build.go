package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// obj is a JSON object that keeps its keys in the order written, so generated schemas read in a
// sensible order and are the same bytes every time.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func str(max int) obj { return obj{{"type", "string"}, {"maxLength", max}} }

func strList(max, items int) obj {
	return obj{{"type", []string{"array", "null"}}, {"maxItems", items}, {"items", str(max)}}
}

// Canonical-form JSON with two-space indentation and a final newline.
func marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// BuildPlan returns the JSON Schema (draft 2020-12) of a plan version: every object closed with
// additionalProperties false, actions a oneOf discriminated by their op const.
func BuildPlan(version string) []byte {
	var branches []any
	defs := obj{}
	for _, op := range OpsOf(version) {
		props := obj{{"op", obj{{"const", op.Name}}}}
		required := []string{"op"}
		for _, f := range op.FieldsOf(version) {
			props = append(props, kv{f.Name, fieldSchema(f)})
			if f.Required {
				required = append(required, f.Name)
			}
		}
		defs = append(defs, kv{string(op.Name), obj{
			{"description", op.Doc},
			{"type", "object"},
			{"properties", props},
			{"required", required},
			{"additionalProperties", false},
		}})
		branches = append(branches, obj{{"$ref", "#/$defs/" + string(op.Name)}})
	}
	s := obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", fmt.Sprintf("https://archiplan.dev/schemas/plan-%s.json", version)},
		{"title", "ArchiChangePlan " + version},
		{"description", "A change plan for an ArchiMate model, checked by archiplan before a person approves it."},
		{"type", "object"},
		{"properties", obj{
			{"schema_version", obj{{"const", version}}},
			{"status", obj{{"enum", []string{"ready", "needs_clarification", "refusal"}}}},
			{"summary", obj{{"type", "string"}, {"minLength", 1}, {"maxLength", MaxSummary}}},
			{"questions", strList(MaxQuestionLen, MaxQuestions)},
			{"warnings", strList(MaxQuestionLen, MaxQuestions)},
			{"actions", obj{{"type", "array"}, {"maxItems", MaxActions}, {"items", obj{{"oneOf", branches}}}}},
		}},
		{"required", []string{"schema_version", "status", "summary", "actions"}},
		{"additionalProperties", false},
		{"$defs", defs},
	}
	return marshal(s)
}

// fieldSchema is a field's schema; an optional field may also be null, as jArchi writes fields an
// action does not use.
func fieldSchema(f Field) obj {
	d := obj{{"description", f.Doc}}
	typ := func(t string) any {
		if f.Required {
			return t
		}
		return []string{t, "null"}
	}
	switch f.Kind {
	case Integer:
		return append(d, kv{"type", typ("integer")}, kv{"minimum", f.Min}, kv{"maximum", f.Max})
	case Coordinate:
		return append(d, kv{"type", typ("integer")}, kv{"minimum", f.Min}, kv{"maximum", f.Max})
	case Name:
		return append(d, kv{"type", typ("string")}, kv{"minLength", 1}, kv{"maxLength", f.Max})
	case Enum:
		return append(d, kv{"enum", f.Values})
	case Boolean:
		return append(d, kv{"type", typ("boolean")})
	case Properties:
		return append(d, kv{"type", typ("array")}, kv{"maxItems", f.Max}, kv{"items", obj{
			{"type", "object"},
			{"properties", obj{{"key", obj{{"type", "string"}, {"minLength", 1}, {"maxLength", MaxKey}}}, {"value", str(MaxValue)}}},
			{"required", []string{"key", "value"}},
			{"additionalProperties", false},
		}})
	case IDList:
		return append(d, kv{"type", typ("array")}, kv{"maxItems", f.Max}, kv{"items", obj{{"type", "string"}, {"minLength", 1}, {"maxLength", MaxID}}})
	case TypeList:
		return append(d, kv{"type", typ("array")}, kv{"maxItems", f.Max}, kv{"items", obj{{"enum", elementTypeNames()}}})
	case ElementType:
		return append(d, kv{"enum", elementTypeNames()})
	case RelationshipType:
		return append(d, kv{"enum", relationshipTypeNames()})
	case ID, RefID:
		return append(d, kv{"type", typ("string")}, kv{"minLength", 1}, kv{"maxLength", f.Max})
	}
	return append(d, kv{"type", typ("string")}, kv{"maxLength", f.Max})
}

// BuildReport returns the JSON Schema of the report archiplan writes beside a plan.
func BuildReport() []byte {
	finding := obj{
		{"type", "object"},
		{"properties", obj{
			{"code", obj{{"type", "string"}}},
			{"message", obj{{"type", "string"}}},
			{"action", obj{{"type", "integer"}, {"minimum", 0}}},
			{"pointer", obj{{"type", "string"}}},
			{"snippet", obj{{"type", "string"}}},
		}},
		{"required", []string{"code", "message"}},
	}
	s := obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", "https://archiplan.dev/schemas/report-1.json"},
		{"title", "archiplan report"},
		{"description", "What archiplan found of a plan. Consumers ignore fields they do not know."},
		{"type", "object"},
		{"properties", obj{
			{"format_version", obj{{"const", "1"}}},
			{"plan", obj{{"type", "object"}, {"properties", obj{
				{"file", obj{{"type", "string"}}},
				{"sha256", obj{{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
				{"schema_version", obj{{"type", "string"}}},
				{"status", obj{{"type", "string"}}},
				{"summary", obj{{"type", "string"}}},
				{"nulls_dropped", obj{{"type", "integer"}, {"minimum", 0}}},
			}}, {"required", []string{"file", "sha256"}}}},
			{"model", obj{{"type", "object"}, {"properties", obj{
				{"path", obj{{"type", "string"}}},
				{"commit", obj{{"type", "string"}}},
				{"blob", obj{{"type", "string"}}},
			}}}},
			{"verdict", obj{{"enum", []string{"valid", "invalid", "not_ready", "stale", "rejected", "applied"}}}},
			{"errors", obj{{"type", "array"}, {"items", finding}}},
			{"warnings", obj{{"type", "array"}, {"items", finding}}},
			{"actions", obj{{"type", "array"}, {"items", obj{
				{"type", "object"},
				{"properties", obj{
					{"index", obj{{"type", "integer"}}},
					{"op", obj{{"type", "string"}}},
					{"description", obj{{"type", "string"}}},
					{"created", obj{{"type", "array"}, {"items", obj{{"type", "string"}}}}},
					{"before", obj{{"type", "string"}}},
					{"after", obj{{"type", "string"}}},
					{"given", obj{{"type", "array"}, {"items", obj{
						{"type", "object"},
						{"properties", obj{
							{"field", obj{{"type", "string"}}},
							{"key", obj{{"type", "string"}}},
							{"value", obj{{"type", "string"}}},
						}},
						{"required", []string{"field", "value"}},
					}}}},
					{"takes", obj{{"type", "array"}, {"description", "what a delete or a removal from a view takes along, each named: relationships by type and ends, diagram objects and connections by what they show and where"},
						{"items", obj{{"type", "string"}}}}},
				}},
				{"required", []string{"index", "op", "description"}},
			}}}},
			{"refs", obj{{"type", "object"}, {"description", "each ref_id the plan declares, with the id it names (created, or reused)"},
				{"additionalProperties", obj{{"type", "string"}}}}},
		}},
		{"required", []string{"format_version", "plan", "verdict", "errors", "warnings", "actions"}},
	}
	return marshal(s)
}
