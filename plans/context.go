package plans

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// ContextFormat is the planning context's schema_version.
const ContextFormat = "1.0"

// DefaultMaxElements is the context's element budget when none is given.
const DefaultMaxElements = 500

// ErrBadScope means a --scope is not view:ID, folder:PATH or ids:ID,ID....
var ErrBadScope = errors.New("bad scope")

// ContextOptions say what a planning context holds.
type ContextOptions struct {
	Scope       string   // "" (the whole model), "view:ID", "folder:PATH" or "ids:ID,ID,..."
	MaxElements int      // the element budget; DefaultMaxElements when 0
	Include     []string // "documentation", "properties"
}

// PlanningContext (ArchiPlanningContext) is what a planner is told of the model: the ids it may
// use, with names, types and folders, and what it may do. Written beside a plan as
// NAME.context.json, it is also the plan's scope.
type PlanningContext struct {
	SchemaVersion            string                `json:"schema_version"`
	PlanSchemaVersion        string                `json:"plan_schema_version"`
	Model                    ContextName           `json:"model"`
	Scope                    string                `json:"scope"`
	AllowedOps               []string              `json:"allowed_ops"`
	AllowedElementTypes      []string              `json:"allowed_element_types"`
	AllowedRelationshipTypes []string              `json:"allowed_relationship_types"`
	Elements                 []ContextElement      `json:"-"` // written by MarshalJSON, never null
	Relationships            []ContextRelationship `json:"-"`
	Views                    []ContextName         `json:"-"`
	Omitted                  ContextOmitted        `json:"omitted"`
}

// ContextName is an object named by id.
type ContextName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ContextElement is one element of a planning context.
type ContextElement struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Type          string            `json:"type"`
	Folder        string            `json:"folder"`
	Documentation string            `json:"documentation,omitempty"`
	Properties    map[string]string `json:"properties,omitempty"`
}

// ContextRelationship is one relationship of a planning context.
type ContextRelationship struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Source string `json:"source"`
	Target string `json:"target"`
	Name   string `json:"name,omitempty"`
}

// ContextOmitted counts what the budget left out.
type ContextOmitted struct {
	Elements      int `json:"elements"`
	Relationships int `json:"relationships"`
}

// MarshalJSON writes the lists under their lower-case names, in a fixed order.
func (c *PlanningContext) MarshalJSON() ([]byte, error) {
	type plain PlanningContext
	return json.Marshal(struct {
		*plain
		Elements      []ContextElement      `json:"elements"`
		Relationships []ContextRelationship `json:"relationships"`
		Views         []ContextName         `json:"views"`
	}{(*plain)(c), nonNil(c.Elements), nonNil(c.Relationships), nonNil(c.Views)})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// UnmarshalJSON reads a context written by JSON.
func (c *PlanningContext) UnmarshalJSON(data []byte) error {
	type plain PlanningContext
	aux := struct {
		*plain
		Elements      []ContextElement      `json:"elements"`
		Relationships []ContextRelationship `json:"relationships"`
		Views         []ContextName         `json:"views"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return fmt.Errorf("read planning context: %w", err)
	}
	c.Elements, c.Relationships, c.Views = aux.Elements, aux.Relationships, aux.Views
	return nil
}

// JSON is the context as written to NAME.context.json: the same model and options always give
// the same bytes.
func (c *PlanningContext) JSON() []byte {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// BuildContext makes the planning context of a model: the objects in scope, sorted, cut to the
// element budget (relationships are kept only between elements kept), with what was left out
// counted.
func BuildContext(m *archixml.Model, o ContextOptions, policy Policy) (*PlanningContext, error) {
	if o.MaxElements <= 0 {
		o.MaxElements = DefaultMaxElements
	}
	include := map[string]bool{}
	for _, i := range o.Include {
		i = strings.TrimSpace(i)
		if i != "documentation" && i != "properties" {
			return nil, fmt.Errorf("include %q: only documentation and properties: %w", i, ErrBadScope)
		}
		include[i] = true
	}
	c := &PlanningContext{SchemaVersion: ContextFormat, PlanSchemaVersion: schemas.Latest,
		Model: ContextName{ID: m.ID(), Name: m.Name()}, Scope: o.Scope}
	if c.Scope == "" {
		c.Scope = "model"
	}
	c.AllowedOps = policy.AllowedOps
	if len(c.AllowedOps) == 0 {
		for _, op := range schemas.OpsOf(schemas.Latest) {
			c.AllowedOps = append(c.AllowedOps, op.Name)
		}
	}
	c.AllowedElementTypes = labelsOf(archixml.ElementTypes, policy.AllowedElementTypes)
	c.AllowedRelationshipTypes = labelsOf(archixml.RelationshipTypes, policy.AllowedRelationshipTypes)

	elements, rels, views, err := inScope(m, o.Scope)
	if err != nil {
		return nil, err
	}
	sort.Slice(elements, func(i, j int) bool {
		a, b := elements[i], elements[j]
		if a.FolderPath() != b.FolderPath() {
			return a.FolderPath() < b.FolderPath()
		}
		if a.Name() != b.Name() {
			return a.Name() < b.Name()
		}
		return a.ID() < b.ID()
	})
	if len(elements) > o.MaxElements {
		c.Omitted.Elements = len(elements) - o.MaxElements
		elements = elements[:o.MaxElements]
	}
	kept := map[string]bool{}
	for _, e := range elements {
		kept[e.ID()] = true
		ce := ContextElement{ID: e.ID(), Name: e.Name(), Type: e.Type().Label, Folder: e.FolderPath()}
		if include["documentation"] {
			ce.Documentation = e.Documentation()
		}
		if include["properties"] {
			for _, p := range e.Properties() {
				if ce.Properties == nil {
					ce.Properties = map[string]string{}
				}
				if _, dup := ce.Properties[p.Key]; !dup {
					ce.Properties[p.Key] = p.Value
				}
			}
		}
		c.Elements = append(c.Elements, ce)
	}
	for _, r := range rels {
		if !kept[r.SourceID()] || !kept[r.TargetID()] {
			c.Omitted.Relationships++
			continue
		}
		c.Relationships = append(c.Relationships, ContextRelationship{ID: r.ID(), Type: r.Type().Label,
			Source: r.SourceID(), Target: r.TargetID(), Name: r.Name()})
	}
	sort.Slice(c.Relationships, func(i, j int) bool {
		a, b := c.Relationships[i], c.Relationships[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.ID < b.ID
	})
	for _, v := range views {
		c.Views = append(c.Views, ContextName{ID: v.ID(), Name: v.Name()})
	}
	sort.Slice(c.Views, func(i, j int) bool {
		if c.Views[i].Name != c.Views[j].Name {
			return c.Views[i].Name < c.Views[j].Name
		}
		return c.Views[i].ID < c.Views[j].ID
	})
	return c, nil
}

func labelsOf(types []archixml.ConceptType, allowed []string) []string {
	var out []string
	for i := range types {
		if allowedType(allowed, &types[i]) {
			out = append(out, types[i].Label)
		}
	}
	sort.Strings(out)
	return out
}

// inScope returns the elements, relationships and views a scope names. Relationships are those
// between elements in scope (and any named by ids:).
func inScope(m *archixml.Model, scope string) ([]archixml.Object, []archixml.Object, []archixml.Object, error) {
	kind, arg, _ := strings.Cut(scope, ":")
	var elements, views []archixml.Object
	named := map[string]bool{}
	switch kind {
	case "", "model":
		return m.Elements(), m.Relationships(), archiViews(m.Views()), nil
	case "view":
		v, ok := m.Object(arg)
		if !ok || v.Kind() != archixml.KindView {
			return nil, nil, nil, fmt.Errorf("view:%s is no view of the model: %w", arg, ErrBadScope)
		}
		seen := map[string]bool{}
		for _, d := range v.DiagramObjects() {
			if e, ok := d.Concept(); ok && e.Kind() == archixml.KindElement && !seen[e.ID()] {
				seen[e.ID()] = true
				elements = append(elements, e)
			}
		}
		views = []archixml.Object{v}
	case "folder":
		path := strings.Trim(arg, "/")
		for _, e := range m.Elements() {
			if p := e.FolderPath(); p == path || strings.HasPrefix(p, path+"/") {
				elements = append(elements, e)
			}
		}
		for _, v := range archiViews(m.Views()) {
			if p := v.FolderPath(); p == path || strings.HasPrefix(p, path+"/") {
				views = append(views, v)
			}
		}
		if len(elements) == 0 && len(views) == 0 {
			return nil, nil, nil, fmt.Errorf("folder:%s holds no element or view: %w", arg, ErrBadScope)
		}
	case "ids":
		for _, id := range strings.Split(arg, ",") {
			id = strings.TrimSpace(id)
			o, ok := m.Object(id)
			if !ok {
				return nil, nil, nil, fmt.Errorf("ids: %q is no id of the model: %w", id, ErrBadScope)
			}
			switch o.Kind() {
			case archixml.KindElement:
				elements = append(elements, o)
			case archixml.KindView:
				views = append(views, o)
			case archixml.KindRelationship:
				named[id] = true
				for _, end := range []string{o.SourceID(), o.TargetID()} {
					if e, ok := m.Object(end); ok && e.Kind() == archixml.KindElement {
						elements = append(elements, e)
					}
				}
			default:
				return nil, nil, nil, fmt.Errorf("ids: %q is a %s: %w", id, o.Kind(), ErrBadScope)
			}
		}
	default:
		return nil, nil, nil, fmt.Errorf("%q: use view:ID, folder:PATH or ids:ID,ID: %w", scope, ErrBadScope)
	}
	elements = unique(elements)
	in := map[string]bool{}
	for _, e := range elements {
		in[e.ID()] = true
	}
	var rels []archixml.Object
	seen := map[string]bool{}
	for _, e := range elements {
		for _, r := range m.RelationshipsOf(e.ID()) {
			if !seen[r.ID()] && (in[r.SourceID()] && in[r.TargetID()] || named[r.ID()]) {
				seen[r.ID()] = true
				rels = append(rels, r)
			}
		}
	}
	return elements, rels, views, nil
}

func archiViews(vs []archixml.Object) []archixml.Object {
	var out []archixml.Object
	for _, v := range vs {
		if v.Class() == "ArchimateDiagramModel" {
			out = append(out, v)
		}
	}
	return out
}

func unique(os []archixml.Object) []archixml.Object {
	seen := map[string]bool{}
	var out []archixml.Object
	for _, o := range os {
		if !seen[o.ID()] {
			seen[o.ID()] = true
			out = append(out, o)
		}
	}
	return out
}
