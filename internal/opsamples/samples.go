// Package opsamples holds, for tests only, one or more valid sample actions for every op of
// schemas.Ops on any model: the table the per-op tests loop over (plans' field walk and effect
// test, the ledger's apply -> archive -> revert on every corpus model, the command line's
// reverts). A sample gives every field its op has in the newest plan version where the op allows
// them together, each text a value unique to the op and field (Text), so a test can find it.
package opsamples

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// Sample is one plan that exercises an op: setup actions (other ops, making what the op needs),
// then the op's action, last.
type Sample struct {
	Op      schemas.OpName
	Variant string           // "" for the main sample; else what it adds (a field the main one cannot hold)
	Actions []map[string]any // the op's action is the last
}

// Action is the sample's action of its op.
func (s Sample) Action() map[string]any { return s.Actions[len(s.Actions)-1] }

// Index is the index of the op's action in the plan.
func (s Sample) Index() int { return len(s.Actions) - 1 }

// Name names the sample in test output.
func (s Sample) Name() string {
	if s.Variant == "" {
		return string(s.Op)
	}
	return string(s.Op) + "/" + s.Variant
}

// Plan is the sample as a ready plan of the newest version.
func (s Sample) Plan() []byte {
	b, err := json.Marshal(map[string]any{"schema_version": schemas.Newest, "status": "ready",
		"summary": "sample of " + s.Name(), "actions": s.Actions})
	if err != nil {
		panic(err)
	}
	return b
}

// Text is the value a sample gives a text field of an op: unique to the op and the field, and
// plain letters, digits and spaces (what a preview escapes stays itself). Tests search for it.
func Text(op schemas.OpName, field string) string {
	return "W" + strings.ReplaceAll(string(op)+" "+field, "_", " ") + " Z"
}

// For returns the samples of every op on model m (which it does not change), in the order of
// schemas.Ops; an op with no sample has no entry (the tests fail on that).
func For(m *archixml.Model) []Sample {
	b := &builder{m: m}
	var out []Sample
	for _, op := range schemas.Ops {
		for _, s := range b.samples(op.Name) {
			s.Op = op.Name
			out = append(out, s)
		}
	}
	return out
}

type builder struct{ m *archixml.Model }

type acts = []map[string]any

func act(op schemas.OpName, kv ...any) map[string]any {
	a := map[string]any{"op": string(op)}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i].(string)] = kv[i+1]
	}
	return a
}

// element is an element of the model (not a junction), or one the setup creates.
func (b *builder) element(ref string) (string, acts) {
	for _, e := range b.m.Elements() {
		if e.Class() != "Junction" {
			return e.ID(), nil
		}
	}
	return ref, acts{act(schemas.CreateElement, "type", "Business Actor", "name", "Setup "+ref, "ref_id", ref)}
}

// lone is an element with no relationship (its type may change freely), or one the setup creates.
func (b *builder) lone(ref string) (string, string, acts) {
	for _, e := range b.m.Elements() {
		if e.Class() != "Junction" && len(b.m.RelationshipsOf(e.ID())) == 0 && len(b.m.ReferencesTo(e.ID())) > 0 {
			return e.ID(), e.Class(), nil
		}
	}
	return ref, "BusinessActor", acts{act(schemas.CreateElement, "type", "Business Actor", "name", "Setup "+ref, "ref_id", ref)}
}

// pair is two elements of one type, the one merged away related to others and shown on a view
// where the model has such, or two the setup creates.
func (b *builder) pair() (string, string, acts) {
	byClass := map[string][]archixml.Object{}
	for _, e := range b.m.Elements() {
		if e.Class() != "Junction" {
			byClass[e.Class()] = append(byClass[e.Class()], e)
		}
	}
	for _, e := range b.m.Elements() {
		if len(b.m.RelationshipsOf(e.ID())) == 0 || len(b.m.ReferencesTo(e.ID())) == 0 {
			continue
		}
		for _, s := range byClass[e.Class()] {
			if s.ID() != e.ID() && !related(b.m, s.ID(), e.ID()) {
				return s.ID(), e.ID(), nil
			}
		}
	}
	return "keep", "gone", acts{
		act(schemas.CreateElement, "type", "Business Actor", "name", "Setup keep", "ref_id", "keep"),
		act(schemas.CreateElement, "type", "Business Actor", "name", "Setup gone", "ref_id", "gone"),
	}
}

func related(m *archixml.Model, a, b string) bool {
	for _, r := range m.RelationshipsOf(a) {
		if r.SourceID() == b || r.TargetID() == b {
			return true
		}
	}
	return false
}

func (b *builder) relationship() (string, acts) {
	if rs := b.m.Relationships(); len(rs) > 0 {
		return rs[0].ID(), nil
	}
	x, setup := b.element("e0")
	return "r0", append(setup,
		act(schemas.CreateElement, "type", "Business Actor", "name", "Setup other", "ref_id", "other"),
		act(schemas.CreateRelationship, "source_id", "other", "target_id", x, "relationship_type", "Association", "ref_id", "r0"))
}

// view is an ArchiMate view of the model, or one the setup creates.
func (b *builder) view(ref string) (string, acts) {
	for _, v := range b.m.Views() {
		if v.Class() == "ArchimateDiagramModel" {
			return v.ID(), nil
		}
	}
	return ref, acts{act(schemas.CreateView, "name", "Setup view", "ref_id", ref)}
}

// shown is a diagram object showing an element, with connections where the model has one, or one
// the setup puts on a view.
func (b *builder) shown() (string, acts) {
	var first string
	for _, v := range b.m.Views() {
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); !ok || c.Kind() != archixml.KindElement {
				continue
			}
			if first == "" {
				first = d.ID()
			}
			if len(d.Connections()) > 0 {
				return d.ID(), nil
			}
		}
	}
	if first != "" {
		return first, nil
	}
	v, setup := b.view("sv")
	x, more := b.element("se")
	return "so", append(append(setup, more...), act(schemas.AddToView, "view_id", v, "element_id", x, "ref_id", "so"))
}

func (b *builder) has(folder string) bool {
	_, ok := b.m.TopFolder(folder)
	return ok
}

func (b *builder) top(folder string) string {
	f, _ := b.m.TopFolder(folder)
	return f.Name()
}

// sampleMakers makes, for each op, its samples on the builder's model; an op not listed has none.
var sampleMakers = map[schemas.OpName]func(b *builder, op schemas.OpName) []Sample{
	schemas.RenameElement:       (*builder).renameElement,
	schemas.SetProperty:         (*builder).setProperty,
	schemas.RemoveProperty:      (*builder).removeProperty,
	schemas.SetDocumentation:    (*builder).setDocumentation,
	schemas.CreateElement:       (*builder).createElement,
	schemas.CreateRelationship:  (*builder).createRelationship,
	schemas.AddToView:           (*builder).addToView,
	schemas.DeleteElement:       (*builder).deleteElement,
	schemas.DeleteRelationship:  (*builder).deleteRelationship,
	schemas.CreateView:          (*builder).createView,
	schemas.MoveToFolder:        (*builder).moveToFolder,
	schemas.CreateFolder:        (*builder).createFolder,
	schemas.UpdateRelationship:  (*builder).updateRelationship,
	schemas.DeleteView:          (*builder).deleteView,
	schemas.AddConnectionToView: (*builder).addConnectionToView,
	schemas.RemoveFromView:      (*builder).removeFromView,
	schemas.MoveViewObject:      (*builder).moveViewObject,
	schemas.StyleViewObject:     (*builder).styleViewObject,
	schemas.CreateNote:          (*builder).createNoteOrGroup,
	schemas.CreateGroup:         (*builder).createNoteOrGroup,
	schemas.SetSpecialization:   (*builder).setSpecialization,
	schemas.ChangeType:          (*builder).changeType,
	schemas.LayoutView:          (*builder).layoutView,
	schemas.MergeElements:       (*builder).mergeElements,
	schemas.DuplicateView:       (*builder).duplicateView,
	schemas.SetConnectionRouter: (*builder).setConnectionRouter,
	schemas.AddPropertyValue:    (*builder).addPropertyValue,
	schemas.RemovePropertyValue: (*builder).removePropertyValue,
}

func (b *builder) samples(op schemas.OpName) []Sample {
	if f, ok := sampleMakers[op]; ok {
		return f(b, op)
	}
	return nil
}

// one is a single sample of actions a.
func one(a acts) []Sample { return []Sample{{Actions: a}} }

// props is the properties a sample of op gives: a key with a value and a key with an empty one.
func props(op schemas.OpName) []map[string]any {
	return []map[string]any{{"key": Text(op, "properties key"), "value": Text(op, "properties value")}, {"key": Text(op, "properties key2"), "value": ""}}
}

func (b *builder) renameElement(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup, act(op, "element_id", x, "new_name", Text(op, "new_name"))))
}

func (b *builder) setProperty(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup, act(op, "element_id", x, "key", Text(op, "key"), "value", Text(op, "value"))))
}

func (b *builder) removeProperty(op schemas.OpName) []Sample {
	for _, e := range b.m.Elements() {
		if ps := e.Properties(); len(ps) > 0 && ps[0].Key != "" {
			return one(acts{act(op, "element_id", e.ID(), "key", ps[0].Key)})
		}
	}
	return one(acts{act(schemas.CreateElement, "type", "Business Actor", "name", "Setup props", "ref_id", "p",
		"properties", []map[string]any{{"key": Text(op, "key"), "value": "v"}}),
		act(op, "element_id", "p", "key", Text(op, "key"))})
}

func (b *builder) setDocumentation(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	v, more := b.view("v")
	return []Sample{{Actions: append(setup, act(op, "element_id", x, "documentation", Text(op, "documentation")))},
		{Variant: "group", Actions: append(more,
			act(schemas.CreateGroup, "view_id", v, "name", "Setup group", "x", 5000, "y", 5000, "ref_id", "g"),
			act(op, "element_id", "g", "documentation", Text(op, "documentation")))}}
}

func (b *builder) createElement(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	o, _ := b.m.Object(x)
	rename := acts{act(op, "type", "Business Actor", "name", "Setup twice", "ref_id", "first"),
		act(op, "type", "Business Actor", "name", "Setup twice", "on_duplicate", "rename", "ref_id", "new")}
	if o.Valid() {
		rename = append(setup, act(op, "type", o.Type().Label, "name", o.Name(), "on_duplicate", "rename", "ref_id", "new"))
	}
	return []Sample{{Actions: acts{act(op, "type", "Business Actor", "name", Text(op, "name"), "ref_id", "new",
		"documentation", Text(op, "documentation"), "properties", props(op),
		"folder_path", b.top("business")+"/"+Text(op, "folder_path"), "on_duplicate", "create",
		"specialization", Text(op, "specialization"))}},
		{Variant: "rename", Actions: rename}}
}

func (b *builder) createRelationship(op schemas.OpName) []Sample {
	setup := acts{
		act(schemas.CreateElement, "type", "Business Process", "name", "Setup process", "ref_id", "proc"),
		act(schemas.CreateElement, "type", "Business Object", "name", "Setup object", "ref_id", "obj"),
	}
	motivation := acts{
		act(schemas.CreateElement, "type", "Driver", "name", "Setup driver", "ref_id", "drv"),
		act(schemas.CreateElement, "type", "Goal", "name", "Setup goal", "ref_id", "goal"),
	}
	common := func(a map[string]any) map[string]any {
		a["name"], a["ref_id"], a["documentation"], a["properties"], a["on_duplicate"] = Text(op, "name"), "rel", Text(op, "documentation"), props(op), "create"
		return a
	}
	out := []Sample{
		{Actions: append(setup, common(act(op, "source_id", "proc", "target_id", "obj", "relationship_type", "Association", "directed", true)))},
		{Variant: "access_type", Actions: append(setup, act(op, "source_id", "proc", "target_id", "obj", "relationship_type", "Access", "access_type", "readwrite"))},
		// between two elements a view of the plan shows: drawn there after the last action
		{Variant: "on_view", Actions: append(append(acts{act(schemas.CreateView, "name", "Setup view", "ref_id", "v")}, setup...),
			act(schemas.AddToView, "view_id", "v", "element_id", "proc", "x", 10, "y", 10),
			act(schemas.AddToView, "view_id", "v", "element_id", "obj", "x", 300, "y", 10),
			act(op, "source_id", "proc", "target_id", "obj", "relationship_type", "Access"))},
	}
	if b.has("motivation") { // Archi 2.6 models may have no motivation folder
		out = append(out, Sample{Variant: "influence_strength", Actions: append(motivation,
			act(op, "source_id", "drv", "target_id", "goal", "relationship_type", "Influence", "influence_strength", Text(op, "influence_strength")))})
	}
	return out
}

func (b *builder) addToView(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup,
		act(schemas.CreateView, "name", "Setup view", "ref_id", "v"),
		act(schemas.CreateGroup, "view_id", "v", "name", "Setup group", "x", 10, "y", 10, "width", 400, "height", 300, "ref_id", "g"),
		act(op, "view_id", "v", "element_id", x, "parent_id", "g", "x", 12, "y", 34, "width", 156, "height", 78, "ref_id", "o", "connect", false)))
}

func (b *builder) deleteElement(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup, act(op, "element_id", x)))
}

func (b *builder) deleteRelationship(op schemas.OpName) []Sample {
	r, setup := b.relationship()
	return one(append(setup, act(op, "relationship_id", r)))
}

func (b *builder) createView(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup,
		act(schemas.CreateElement, "type", "Business Actor", "name", "Setup in folder", "folder_path", b.top("business")+"/Setup folder"),
		act(op, "name", Text(op, "name"), "ref_id", "v0"),
		act(op, "name", Text(op, "name"), "ref_id", "v", "documentation", Text(op, "documentation"), "properties", props(op),
			"folder_path", b.top("diagrams")+"/"+Text(op, "folder_path"), "viewpoint", "layered", "on_duplicate", "rename",
			"select_ids", []string{x}, "select_types", []string{"Gap"}, "select_folder", b.top("business")+"/Setup folder", "depth", 1)))
}

func (b *builder) moveToFolder(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	o, _ := b.m.Object(x)
	top := b.top("business")
	if o.Valid() {
		top = strings.SplitN(o.FolderPath(), "/", 2)[0]
	}
	return one(append(setup, act(op, "element_id", x, "folder_path", top+"/"+Text(op, "folder_path"))))
}

func (b *builder) createFolder(op schemas.OpName) []Sample {
	return one(acts{act(op, "folder_path", b.top("business")+"/"+Text(op, "folder_path"), "documentation", Text(op, "documentation"), "ref_id", "f")})
}

func (b *builder) updateRelationship(op schemas.OpName) []Sample {
	var out []Sample
	for _, r := range b.m.Relationships() {
		if r.Class() == "AccessRelationship" {
			at := "read"
			if r.Attr("accessType") == "1" {
				at = "readwrite"
			}
			out = append(out, Sample{Variant: "access_type", Actions: acts{act(op, "relationship_id", r.ID(), "access_type", at)}})
			break
		}
	}
	if len(out) == 0 {
		out = append(out, Sample{Variant: "access_type", Actions: acts{
			act(schemas.CreateElement, "type", "Business Process", "name", "Setup process", "ref_id", "proc"),
			act(schemas.CreateElement, "type", "Business Object", "name", "Setup object", "ref_id", "obj"),
			act(schemas.CreateRelationship, "source_id", "proc", "target_id", "obj", "relationship_type", "Access", "ref_id", "acc"),
			act(op, "relationship_id", "acc", "access_type", "readwrite")}})
	}
	out = append(out,
		Sample{Actions: acts{
			act(schemas.CreateElement, "type", "Business Actor", "name", "Setup a", "ref_id", "a"),
			act(schemas.CreateElement, "type", "Business Role", "name", "Setup b", "ref_id", "b"),
			act(schemas.CreateRelationship, "source_id", "a", "target_id", "b", "relationship_type", "Association", "ref_id", "as"),
			act(op, "relationship_id", "as", "directed", true)}})
	if !b.has("motivation") {
		return out
	}
	out = append(out,
		Sample{Variant: "influence_strength", Actions: acts{
			act(schemas.CreateElement, "type", "Driver", "name", "Setup driver", "ref_id", "drv"),
			act(schemas.CreateElement, "type", "Goal", "name", "Setup goal", "ref_id", "goal"),
			act(schemas.CreateRelationship, "source_id", "drv", "target_id", "goal", "relationship_type", "Influence", "ref_id", "inf"),
			act(op, "relationship_id", "inf", "influence_strength", Text(op, "influence_strength"))}})
	return out
}

func (b *builder) deleteView(op schemas.OpName) []Sample {
	v, setup := b.view("v0")
	return one(append(setup, act(op, "view_id", v)))
}

func (b *builder) addConnectionToView(op schemas.OpName) []Sample {
	setup := acts{
		act(schemas.CreateView, "name", "Setup view", "ref_id", "v"),
		act(schemas.CreateElement, "type", "Business Actor", "name", "Setup a", "ref_id", "a"),
		act(schemas.CreateElement, "type", "Business Role", "name", "Setup b", "ref_id", "b"),
		act(schemas.AddToView, "view_id", "v", "element_id", "a", "x", 10, "y", 10, "ref_id", "oa"),
		act(schemas.AddToView, "view_id", "v", "element_id", "b", "x", 300, "y", 10, "ref_id", "ob"),
		act(schemas.AddToView, "view_id", "v", "element_id", "b", "x", 300, "y", 200, "ref_id", "ob2"),
	}
	return []Sample{
		{Actions: append(append(acts{}, setup...),
			act(schemas.CreateRelationship, "source_id", "a", "target_id", "b", "relationship_type", "Assignment", "ref_id", "r"),
			act(op, "view_id", "v", "relationship_id", "r", "source_object_id", "oa", "target_object_id", "ob2", "ref_id", "c"))},
		{Variant: "allow_reversed", Actions: append(append(acts{}, setup...),
			act(schemas.CreateRelationship, "source_id", "a", "target_id", "b", "relationship_type", "Assignment", "ref_id", "r"),
			act(op, "view_id", "v", "relationship_id", "r", "source_object_id", "ob2", "target_object_id", "oa", "ref_id", "c", "allow_reversed", true))},
		{Variant: "plain", Actions: append(append(acts{}, setup...),
			act(schemas.CreateNote, "view_id", "v", "text", "Setup note", "x", 10, "y", 300, "ref_id", "n"),
			act(op, "view_id", "v", "source_object_id", "n", "target_object_id", "oa", "ref_id", "c"))},
	}
}

func (b *builder) removeFromView(op schemas.OpName) []Sample {
	d, setup := b.shown()
	return one(append(setup, act(op, "object_id", d)))
}

func (b *builder) moveViewObject(op schemas.OpName) []Sample {
	d, setup := b.shown()
	// into a group: an object the model has where it has one (with its connections)
	view, _ := b.view("sv") // the view shown's setup put it on
	if o, ok := b.m.Object(d); ok {
		v, _ := o.View()
		view = v.ID()
	}
	into := append(append(acts{}, setup...),
		act(schemas.CreateGroup, "view_id", view, "name", "Setup group", "x", 5000, "y", 5000, "width", 600, "height", 500, "ref_id", "g"),
		act(op, "object_id", d, "parent_id", "g", "x", 12, "y", 24, "width", 150, "height", 60))
	return []Sample{{Actions: append(setup, act(op, "object_id", d, "x", 1234, "y", 2345, "width", 345, "height", 456))},
		{Variant: "parent_id", Actions: into}}
}

func (b *builder) styleViewObject(op schemas.OpName) []Sample {
	d, setup := b.shown()
	return one(append(setup, act(op, "object_id", d, "fill_color", "#a1b2c3", "line_color", "#b2c3d4", "font_color", "#c3d4e5",
		"font", Text(op, "font"), "text_alignment", "right", "text_position", "bottom", "opacity", 100, "line_width", 2)))
}

func (b *builder) createNoteOrGroup(op schemas.OpName) []Sample {
	v, setup := b.view("v")
	a := act(op, "view_id", v, "parent_id", "g", "x", 21, "y", 43, "width", 265, "height", 187, "ref_id", "n")
	if op == schemas.CreateNote {
		a["text"] = Text(op, "text")
	} else {
		a["name"], a["documentation"] = Text(op, "name"), Text(op, "documentation")
	}
	return one(append(setup,
		act(schemas.CreateGroup, "view_id", v, "name", "Setup group", "x", 5000, "y", 5000, "width", 600, "height", 500, "ref_id", "g"), a))
}

func (b *builder) setSpecialization(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup, act(op, "element_id", x, "specialization", Text(op, "specialization"))))
}

func (b *builder) changeType(op schemas.OpName) []Sample {
	x, class, setup := b.lone("e0")
	to := "Business Role"
	if class == "BusinessRole" {
		to = "Business Actor"
	}
	if o, ok := b.m.Object(x); ok && o.TopFolderType() != "business" {
		to = "Business Actor" // a move to another layer's folder
	}
	return one(append(setup, act(op, "element_id", x, "type", to)))
}

func (b *builder) layoutView(op schemas.OpName) []Sample {
	return one(acts{
		act(schemas.CreateView, "name", "Setup view", "ref_id", "v"),
		act(schemas.CreateElement, "type", "Business Actor", "name", "Setup a", "ref_id", "a"),
		act(schemas.CreateElement, "type", "Application Component", "name", "Setup b", "ref_id", "b"),
		act(schemas.AddToView, "view_id", "v", "element_id", "a", "x", 0, "y", 0),
		act(schemas.AddToView, "view_id", "v", "element_id", "b", "x", 0, "y", 0),
		act(op, "view_id", "v", "algorithm", "layers", "direction", "LR", "node_spacing", 30, "rank_spacing", 90)})
}

func (b *builder) mergeElements(op schemas.OpName) []Sample {
	keep, gone, setup := b.pair()
	out := []Sample{{Actions: append(setup, act(op, "element_id", keep, "merged_id", gone))}}
	// an element a view of the model shows, merged into a new one: the view shows the survivor
	d, _ := b.shown()
	if o, ok := b.m.Object(d); ok {
		if c, ok := o.Concept(); ok && c.Type() != nil {
			out = append(out, Sample{Variant: "on_view", Actions: acts{
				act(schemas.CreateElement, "type", c.Type().Label, "name", "Setup keep", "ref_id", "keep"),
				act(op, "element_id", "keep", "merged_id", c.ID())}})
		}
	}
	return out
}

func (b *builder) duplicateView(op schemas.OpName) []Sample {
	for _, v := range b.m.Views() {
		if len(v.DiagramObjects()) > 0 {
			return one(acts{act(op, "view_id", v.ID(), "name", Text(op, "name"), "ref_id", "copy")})
		}
	}
	_, setup := b.shown()
	v, _ := b.view("sv") // the view shown's setup put it on
	return one(append(setup, act(op, "view_id", v, "name", Text(op, "name"), "ref_id", "copy")))
}

func (b *builder) setConnectionRouter(op schemas.OpName) []Sample {
	v, setup := b.view("v")
	return one(append(setup, act(op, "view_id", v, "router", "manhattan")))
}

func (b *builder) addPropertyValue(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup,
		act(schemas.SetProperty, "element_id", x, "key", Text(op, "key"), "value", "Setup first"),
		act(op, "element_id", x, "key", Text(op, "key"), "value", Text(op, "value"))))
}

func (b *builder) removePropertyValue(op schemas.OpName) []Sample {
	x, setup := b.element("e0")
	return one(append(setup,
		act(schemas.SetProperty, "element_id", x, "key", Text(op, "key"), "value", Text(op, "value")),
		act(schemas.AddPropertyValue, "element_id", x, "key", Text(op, "key"), "value", "Setup second"),
		act(op, "element_id", x, "key", Text(op, "key"), "value", Text(op, "value"))))
}

// String is the sample's plan, for test output.
func (s Sample) String() string { return fmt.Sprintf("%s: %s", s.Name(), s.Plan()) }
