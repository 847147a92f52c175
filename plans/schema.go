package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/archiplan/archiplan/schemas"
)

// Plan is a change plan (ArchiChangePlan) decoded after its schema passed.
type Plan struct {
	SchemaVersion string   `json:"schema_version"`
	Status        string   `json:"status"`
	Summary       string   `json:"summary"`
	Questions     []string `json:"questions,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	Actions       []Action `json:"actions"`
}

// Plan statuses.
const (
	StatusReady              = "ready"
	StatusNeedsClarification = "needs_clarification"
	StatusRefusal            = "refusal"
)

// Action is one action of a plan; which fields are set depends on Op (schemas.Ops).
type Action struct {
	Op               string  `json:"op"`
	ElementID        *string `json:"element_id,omitempty"`
	NewName          *string `json:"new_name,omitempty"`
	Key              *string `json:"key,omitempty"`
	Value            *string `json:"value,omitempty"`
	SourceID         *string `json:"source_id,omitempty"`
	TargetID         *string `json:"target_id,omitempty"`
	RelationshipType *string `json:"relationship_type,omitempty"`
	RelationshipID   *string `json:"relationship_id,omitempty"`
	Name             *string `json:"name,omitempty"`
	RefID            *string `json:"ref_id,omitempty"`
	Type             *string `json:"type,omitempty"`
	Documentation    *string `json:"documentation,omitempty"`
	ViewID           *string `json:"view_id,omitempty"`
	FolderPath       *string `json:"folder_path,omitempty"`
	X                *int    `json:"x,omitempty"`
	Y                *int    `json:"y,omitempty"`
	Width            *int    `json:"width,omitempty"`
	Height           *int    `json:"height,omitempty"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// legacy fields: shapes of older or foreign plans that must not pass as unknown noise
var (
	legacyTop = map[string]string{
		"version": "schema_version", "schemaVersion": "schema_version", "changes": "actions",
		"operations": "actions", "steps": "actions", "plan": "actions", "edits": "actions",
	}
	legacyAction = map[string]string{
		"action": "op", "operation": "op", "kind": "op", "element": "element_id", "id": "element_id",
		"source": "source_id", "target": "target_id", "relationship": "relationship_type",
		"newName": "new_name", "elementId": "element_id", "params": "the action's own fields",
	}
)

// checkSchema validates the extracted object against the schema of its version, reporting every
// problem with a code, a pointer naming the offending key, and a snippet. It decodes the plan only
// when the schema passed.
func checkSchema(obj []byte) (*Plan, []Finding) {
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber() // as the schema library wants: integers stay exact
	var inst any
	if err := d.Decode(&inst); err != nil {
		return nil, []Finding{newFinding(ExtractInvalidJSON, -1, "", "", "invalid JSON: %v", err)}
	}
	top, _ := inst.(map[string]any)
	var fs []Finding
	legacy := map[string]bool{} // pointers already reported as legacy
	for _, k := range sortedKeys(top) {
		if want, ok := legacyTop[k]; ok {
			p := "/" + escapePointer(k)
			legacy[p] = true
			fs = append(fs, newFinding(SchemaLegacyField, -1, p, snippetOf(top[k]),
				"%q belongs to an older or foreign plan shape; this schema calls it %s", k, want))
		}
	}
	v, present := top["schema_version"]
	if !present {
		return nil, append(fs, newFinding(SchemaVersionMissing, -1, "/schema_version", "",
			"schema_version is missing: write %q", schemas.Latest))
	}
	version, _ := v.(string)
	if schemas.Plan(version) == nil {
		return nil, append(fs, newFinding(SchemaVersionUnknown, -1, "/schema_version", snippetOf(v),
			"schema_version %s is not one archiplan knows (%s)", snippetOf(v), strings.Join(schemas.Versions, ", ")))
	}
	// Each action is validated below against its own op's branch of the oneOf, which names the
	// offending key precisely; the plan's own fields are validated with the actions set aside, so
	// the oneOf is not tried branch by branch for every action (most of a check's cost otherwise).
	shallow := make(map[string]any, len(top))
	for k, v := range top {
		shallow[k] = v
	}
	if acts, ok := top["actions"].([]any); ok && len(acts) <= schemas.MaxActions {
		shallow["actions"] = []any{}
	}
	if err := schemas.Plan(version).Validate(shallow); err != nil {
		for _, leaf := range leaves(err) {
			if strings.HasPrefix(leaf.InstanceLocation, "/actions/") {
				continue // each action is checked against its own op's schema below
			}
			fs = append(fs, convert(leaf, inst, legacy)...)
		}
	}
	if actions, ok := top["actions"].([]any); ok {
		for i, a := range actions {
			fs = append(fs, checkAction(version, i, a, inst, legacy)...)
		}
	}
	if len(fs) > 0 {
		return nil, fs
	}
	var p Plan
	if err := json.Unmarshal(obj, &p); err != nil {
		return nil, []Finding{newFinding(SchemaInvalid, -1, "", "", "the plan does not decode: %v", err)}
	}
	return &p, nil
}

func checkAction(version string, i int, a any, inst any, legacy map[string]bool) []Finding {
	p := actionPointer(i, "")
	obj, ok := a.(map[string]any)
	if !ok {
		return []Finding{newFinding(SchemaWrongType, i, p, snippetOf(a), "action %d is not an object", i)}
	}
	var fs []Finding
	for _, k := range sortedKeys(obj) {
		if want, ok := legacyAction[k]; ok {
			lp := p + "/" + escapePointer(k)
			legacy[lp] = true
			fs = append(fs, newFinding(SchemaLegacyField, i, lp, snippetOf(obj[k]),
				"%q belongs to an older or foreign plan shape; this schema calls it %s", k, want))
		}
	}
	opv, present := obj["op"]
	op, isString := opv.(string)
	switch {
	case !present:
		return append(fs, newFinding(SchemaMissingField, i, p+"/op", snippetOf(a), "action %d has no op", i))
	case !isString:
		return append(fs, newFinding(SchemaWrongType, i, p+"/op", snippetOf(opv), "op must be a string"))
	}
	if _, ok := schemas.OpByName(version, op); !ok {
		if _, later := schemas.OpByName(schemas.Latest, op); later {
			return append(fs, newFinding(SchemaOpNotInVersion, i, p+"/op", op,
				"%s is a schema_version %s op; this plan is %s", op, schemas.Latest, version))
		}
		return append(fs, newFinding(SchemaUnknownOp, i, p+"/op", op, "unknown op %q (known: %s)", op, opNames(version)))
	}
	if err := schemas.Action(version, op).Validate(a); err != nil {
		for _, leaf := range leaves(err) {
			leaf.InstanceLocation = p + leaf.InstanceLocation
			for _, f := range convert(leaf, inst, legacy) {
				f.Action = &i
				fs = append(fs, f)
			}
		}
	}
	return fs
}

func opNames(version string) string {
	var n []string
	for _, op := range schemas.OpsOf(version) {
		n = append(n, op.Name)
	}
	return strings.Join(n, ", ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// leaves flattens a validation error to the errors that have no causes.
func leaves(err error) []*jsonschema.ValidationError {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil
	}
	var out []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			c := *e
			out = append(out, &c)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

var (
	quoted   = regexp.MustCompile(`'([^']*)'`)
	keywords = map[string]Code{
		"type": SchemaWrongType, "enum": SchemaBadValue, "const": SchemaBadValue,
		"maxLength": SchemaTooLong, "maxItems": SchemaTooLong, "minLength": SchemaTooShort,
		"minimum": SchemaBadValue, "maximum": SchemaBadValue, "required": SchemaMissingField,
		"additionalProperties": SchemaUnknownField,
	}
)

// convert turns one schema violation into findings, naming the offending key itself where the
// schema library names only its parent.
func convert(e *jsonschema.ValidationError, inst any, legacy map[string]bool) []Finding {
	kw := e.KeywordLocation[strings.LastIndex(e.KeywordLocation, "/")+1:]
	code, known := keywords[kw]
	if !known {
		code = SchemaInvalid
	}
	action := actionOf(e.InstanceLocation)
	switch code {
	case SchemaUnknownField:
		var fs []Finding
		for _, m := range quoted.FindAllStringSubmatch(e.Message, -1) {
			p := e.InstanceLocation + "/" + escapePointer(m[1])
			if legacy[p] {
				continue
			}
			fs = append(fs, newFinding(code, action, p, snippetOf(at(inst, p)), "unknown field %q", m[1]))
		}
		return fs
	case SchemaMissingField:
		var fs []Finding
		for _, m := range quoted.FindAllStringSubmatch(e.Message, -1) {
			fs = append(fs, newFinding(code, action, e.InstanceLocation+"/"+escapePointer(m[1]), "",
				"missing field %q", m[1]))
		}
		return fs
	}
	field := e.InstanceLocation[strings.LastIndex(e.InstanceLocation, "/")+1:]
	return []Finding{newFinding(code, action, e.InstanceLocation, snippetOf(at(inst, e.InstanceLocation)),
		"%s: %s", field, e.Message)}
}

// actionOf returns the action index of a pointer under /actions, or -1.
func actionOf(pointer string) int {
	rest, ok := strings.CutPrefix(pointer, "/actions/")
	if !ok {
		return -1
	}
	n, _, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(n)
	if err != nil {
		return -1
	}
	return i
}

// at returns the value at a JSON pointer.
func at(v any, pointer string) any {
	if pointer == "" {
		return v
	}
	for _, part := range strings.Split(pointer[1:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			v = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func snippetOf(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 120)
}
