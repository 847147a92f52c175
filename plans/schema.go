package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/archiplan/archiplan/internal/lazyre"
	"github.com/archiplan/archiplan/schemas"
)

// Warm compiles the schema of raw's schema_version, as checking raw will: a command that checks
// one plan compiles it once (3 ms, most of it validating the schema against its draft's), which
// it can spend reading the model meanwhile. Anything raw holds is fine: it only reads the version.
func Warm(raw []byte) {
	var v struct {
		SchemaVersion string `json:"schema_version"`
	}
	if json.Unmarshal(raw, &v) == nil && v.SchemaVersion != "" {
		schemas.Plan(v.SchemaVersion)
	}
}

// Plan is a change plan (ArchiChangePlan) decoded after its schema passed.
type Plan struct {
	SchemaVersion string   `json:"schema_version"`
	Status        string   `json:"status"`
	Summary       string   `json:"summary"`
	Questions     []string `json:"questions,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	Actions       []Action `json:"actions"`
	// acts are the actions as the plan wrote them (nulls dropped): what the preview's given
	// fields are read from
	acts []map[string]any
}

// Plan statuses.
const (
	StatusReady              = "ready"
	StatusNeedsClarification = "needs_clarification"
	StatusRefusal            = "refusal"
)

// Action is one action of a plan; which fields are set depends on Op (schemas.Ops).
type Action struct {
	Op               schemas.OpName `json:"op"`
	ElementID        *string        `json:"element_id,omitempty"`
	NewName          *string        `json:"new_name,omitempty"`
	Key              *string        `json:"key,omitempty"`
	Value            *string        `json:"value,omitempty"`
	SourceID         *string        `json:"source_id,omitempty"`
	TargetID         *string        `json:"target_id,omitempty"`
	RelationshipType *string        `json:"relationship_type,omitempty"`
	RelationshipID   *string        `json:"relationship_id,omitempty"`
	Name             *string        `json:"name,omitempty"`
	RefID            *string        `json:"ref_id,omitempty"`
	Type             *string        `json:"type,omitempty"`
	Documentation    *string        `json:"documentation,omitempty"`
	ViewID           *string        `json:"view_id,omitempty"`
	FolderPath       *string        `json:"folder_path,omitempty"`
	X                *int           `json:"x,omitempty"`
	Y                *int           `json:"y,omitempty"`
	Width            *int           `json:"width,omitempty"`
	Height           *int           `json:"height,omitempty"`
	// 3.0
	Properties        *[]KeyValue `json:"properties,omitempty"`
	OnDuplicate       *string     `json:"on_duplicate,omitempty"`
	Specialization    *string     `json:"specialization,omitempty"`
	AccessType        *string     `json:"access_type,omitempty"`
	InfluenceStrength *string     `json:"influence_strength,omitempty"`
	Directed          *bool       `json:"directed,omitempty"`
	Viewpoint         *string     `json:"viewpoint,omitempty"`
	ParentID          *string     `json:"parent_id,omitempty"`
	SourceObjectID    *string     `json:"source_object_id,omitempty"`
	TargetObjectID    *string     `json:"target_object_id,omitempty"`
	ObjectID          *string     `json:"object_id,omitempty"`
	FillColor         *string     `json:"fill_color,omitempty"`
	LineColor         *string     `json:"line_color,omitempty"`
	FontColor         *string     `json:"font_color,omitempty"`
	Font              *string     `json:"font,omitempty"`
	TextAlignment     *string     `json:"text_alignment,omitempty"`
	TextPosition      *string     `json:"text_position,omitempty"`
	Text              *string     `json:"text,omitempty"`
	MergedID          *string     `json:"merged_id,omitempty"`
	SelectIDs         *[]string   `json:"select_ids,omitempty"`
	SelectTypes       *[]string   `json:"select_types,omitempty"`
	SelectFolder      *string     `json:"select_folder,omitempty"`
	Depth             *int        `json:"depth,omitempty"`
	// 3.1
	Connect       *bool   `json:"connect,omitempty"`
	AllowReversed *bool   `json:"allow_reversed,omitempty"`
	Opacity       *int    `json:"opacity,omitempty"`
	LineWidth     *int    `json:"line_width,omitempty"`
	Router        *string `json:"router,omitempty"`
	Algorithm     *string `json:"algorithm,omitempty"`
	Direction     *string `json:"direction,omitempty"`
	NodeSpacing   *int    `json:"node_spacing,omitempty"`
	RankSpacing   *int    `json:"rank_spacing,omitempty"`
}

// KeyValue is one property of a create action.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
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

// topFields are the plan's own fields; with the action fields of schemas.FieldNames they are what
// a null may stand for in the flat form.
var topFields = map[string]bool{"schema_version": true, "status": true, "summary": true,
	"questions": true, "warnings": true, "actions": true}

// actionFields is made at the first plan read, not at every process's start.
var actionFields = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, f := range schemas.FieldNames() {
		m[f] = true
	}
	return m
})

// dropNulls removes every null the vocabulary has a field for, from the plan and its actions,
// and returns how many it removed. The flat form strict structured outputs write (every field
// present, the unused ones null) then reads as the canonical plan: a null says no more than an
// absent field. Nulls under names the vocabulary does not know stay, for the schema to refuse.
func dropNulls(top map[string]any) int {
	n := 0
	for k, v := range top {
		if v == nil && topFields[k] {
			delete(top, k)
			n++
		}
	}
	acts, _ := top["actions"].([]any)
	for _, a := range acts {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		for k, v := range m {
			if v == nil && actionFields()[k] {
				delete(m, k)
				n++
			}
		}
	}
	return n
}

// checkSchema validates the extracted object against the schema of its version, reporting every
// problem with a code, a pointer naming the offending key, and a snippet. It decodes the plan only
// when the schema passed.
func checkSchema(obj []byte) (*Plan, []Finding) {
	p, _, fs := decodePlan(obj)
	return p, fs
}

// decodePlan is checkSchema that also says how many nulls of the flat form it dropped.
func decodePlan(obj []byte) (*Plan, int, []Finding) {
	p, dropped, fs := decodePlan0(obj)
	sortFindings(fs)
	return p, dropped, fs
}

func decodePlan0(obj []byte) (*Plan, int, []Finding) {
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber() // as the schema library wants: integers stay exact
	var inst any
	if err := d.Decode(&inst); err != nil {
		return nil, 0, []Finding{newFinding(ExtractInvalidJSON, -1, "", "", "invalid JSON: %v", err)}
	}
	top, _ := inst.(map[string]any)
	dropped := dropNulls(top)
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
		return nil, dropped, append(fs, newFinding(SchemaVersionMissing, -1, "/schema_version", "",
			"schema_version is missing: write %q", schemas.Latest))
	}
	version, isString := v.(string)
	if !isString {
		return nil, dropped, append(fs, newFinding(SchemaVersionUnknown, -1, "/schema_version", snippetOf(v),
			"schema_version must be a string such as %q, not %s", schemas.Latest, snippetOf(v)))
	}
	if schemas.Plan(version) == nil {
		return nil, dropped, append(fs, newFinding(SchemaVersionUnknown, -1, "/schema_version", snippetOf(v),
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
	if errs, _ := split(fs); len(errs) > 0 {
		return nil, dropped, fs
	}
	var p Plan
	if err := json.Unmarshal(obj, &p); err != nil {
		return nil, dropped, []Finding{newFinding(SchemaInvalid, -1, "", "", "the plan does not decode: %v", err)}
	}
	if actions, ok := top["actions"].([]any); ok {
		for _, a := range actions {
			m, _ := a.(map[string]any)
			p.acts = append(p.acts, m)
		}
	}
	return &p, dropped, fs
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
	schemaVersion := version
	if _, ok := schemas.OpByName(version, schemas.OpName(op)); !ok {
		def, known := schemas.OpByName(schemas.Newest, schemas.OpName(op))
		switch {
		case known && version == "1.0" && def.Since == "2.0":
			// jArchi's runtime does not tie ops to the version: a 1.0 plan may use the 2.0 ops,
			// with their 2.0 meaning
			schemaVersion = def.Since
			fs = append(fs, newFinding(SchemaOpLaterVersion, i, p+"/op", op,
				"%s is a schema_version %s op in a plan of version %s; accepted, with its %s meaning", op, def.Since, version, def.Since))
		case known:
			return append(fs, newFinding(SchemaOpNotInVersion, i, p+"/op", op,
				"%s is a schema_version %s op; this plan is %s: write %q", op, def.Since, version, def.Since))
		default:
			return append(fs, newFinding(SchemaUnknownOp, i, p+"/op", op, "unknown op %q (known: %s)", op, opNames(version)))
		}
	}
	if err := schemas.Action(schemaVersion, schemas.OpName(op)).Validate(a); err != nil {
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
		n = append(n, string(op.Name))
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
	quoted   = lazyre.New(`'([^']*)'`)
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
		for _, name := range quotedNames(e.Message) {
			p := e.InstanceLocation + "/" + escapePointer(name)
			if legacy[p] {
				continue
			}
			fs = append(fs, newFinding(code, action, p, snippetOf(at(inst, p)), "unknown field %q", name))
		}
		return fs
	case SchemaMissingField:
		var fs []Finding
		for _, name := range quotedNames(e.Message) {
			fs = append(fs, newFinding(code, action, e.InstanceLocation+"/"+escapePointer(name), "",
				"missing field %q", name))
		}
		return fs
	}
	field := e.InstanceLocation[strings.LastIndex(e.InstanceLocation, "/")+1:]
	return []Finding{newFinding(code, action, e.InstanceLocation, snippetOf(at(inst, e.InstanceLocation)),
		"%s: %s", field, e.Message)}
}

// quotedNames returns the names a schema message quotes, sorted: the library lists them in map
// order, and reports are byte-stable.
func quotedNames(msg string) []string {
	var names []string
	for _, m := range quoted.FindAllStringSubmatch(msg, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	return names
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
