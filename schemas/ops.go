package schemas

import (
	"sort"

	"github.com/archiplan/archiplan/archixml"
)

// Plan versions archiplan reads, oldest first.
var Versions = []string{"1.0", "2.0", "3.0", "3.1"}

// Latest is the plan version archiplan writes and asks planners for.
const Latest = "3.1"

// Newest is the newest plan version archiplan reads.
var Newest = Versions[len(Versions)-1]

// Limits of a plan: generous for real plans, small enough that a runaway planner cannot make
// validation or a preview expensive.
const (
	MaxActions     = 500
	MaxQuestions   = 50
	MaxSummary     = 2000
	MaxName        = 1000
	MaxKey         = 200
	MaxValue       = 5000
	MaxDoc         = 10000
	MaxID          = 100
	MaxFolderPath  = 500
	MaxCoordinate  = 100000
	MaxQuestionLen = 1000
)

// FieldKind says what a field of an action holds.
type FieldKind int

// The kinds of action fields.
const (
	Text             FieldKind = iota // free text
	Name                              // text that may not be empty (a name, a key)
	ID                                // an object id from the model, or a ref_id declared earlier
	RefID                             // a ref_id this action declares
	ElementType                       // an element type: jArchi label or Archi class name
	RelationshipType                  // a relationship type: jArchi label or Archi class name
	Integer                           // a size (-1: Archi's default)
	Coordinate                        // a position, negative too (Archi allows it)
	Enum                              // one of Field.Values
	Boolean                           // true or false
	Properties                        // a list of {key, value} objects
	IDList                            // a list of ids or ref_ids
	TypeList                          // a list of element types
)

// Show says how a preview shows the value an action gives for a field. Every field an action
// gives that reaches the model is shown: ShowValue, the zero value, lists it under the action's
// line, so a field added to the table without a thought is shown rather than hidden.
type Show int

const (
	// ShowValue lists "field: value" under the action's line (text with its blank lines and
	// outer spaces made visible, never clipped).
	ShowValue Show = iota
	// ShowHeadline: the action's own line (or its before and after) says the value, with ids
	// resolved to names; the table test checks that it does.
	ShowHeadline
	// ShowNone: the value never reaches the model (ref_id names an object inside the plan;
	// on_duplicate's outcome is the headline "Reuse ...").
	ShowNone
)

// Field is one field of an action.
type Field struct {
	Name     string
	Kind     FieldKind
	Required bool
	Min      int    // Integer and Coordinate: the smallest value
	Max      int    // maximum length of text, items of a list, or value of an integer
	Doc      string // what it holds, for the schema's description and the prompt
	Since    string // the first plan version whose op has the field (set from the op when empty)
	Values   []string
	// ValueSince names the plan version that added a value to Values (absent: the field's own).
	ValueSince map[string]string
	Show       Show
}

// Effect is what an op's edit may record in the journal (archixml.Step), declared beside the op so
// that the check of an archived inverse is derived from the ops, never kept apart from them. The
// table test applies each op and finds every step its edit records declared here.
type Effect struct {
	// Changes: the op changes objects that existed before the plan, not only what it creates
	// (the touched ids a revert checks later commits against, the pictures' marks).
	Changes bool
	// Attrs are the attributes its edit may set or remove (attr steps).
	Attrs []string
	// Nodes are the elements its edit may insert or remove (insert and remove steps, by tag).
	Nodes []string
	// Texts are the elements whose text its edit may set (text steps, by tag).
	Texts []string
}

// Pictured says how a change of each attribute, node and text an Effect may list shows on a
// view: the word a picture's legend gives it, or "" for what no view draws (a folder, the
// bookkeeping of connections). The previews' pictures are made from what each action's edits
// recorded, read through this table, never from the op's name: every entry of every op's Effect
// is here (the table test checks), so a field added to an op is pictured from the day it is added.
// PictureObject marks the nodes that are drawn objects themselves: their insert is an addition,
// their removal a removal, both at once a move into another parent.
var Pictured = map[string]string{
	// attributes
	"name": "renamed", "value": "properties", "accessType": "relationship changed", "strength": "relationship changed",
	"directed": "relationship changed", "targetConnections": "", "profiles": "specialization",
	"x": "moved", "y": "moved", "width": "resized", "height": "resized",
	"fillColor": "restyled", "lineColor": "restyled", "fontColor": "restyled", "font": "restyled",
	"textAlignment": "restyled", "textPosition": "restyled", "alpha": "restyled", "lineWidth": "restyled",
	"xsi:type": "type changed", "source": "reconnected", "target": "reconnected",
	"archimateElement": "shows another element", "connectionRouterType": "rerouted",
	// nodes (and texts)
	"child": PictureObject, "sourceConnection": PictureObject, "element": "", "folder": "", "profile": "",
	"property": "properties", "documentation": "documentation", "bendpoint": "bendpoints", "bounds": "moved",
	"content": "text", "feature": "label",
}

// PictureObject is Pictured's word for a node that is a drawn object.
const PictureObject = "(object)"

// OpName names an op of the vocabulary.
type OpName string

// The ops, in vocabulary order.
const (
	RenameElement       OpName = "rename_element"
	SetProperty         OpName = "set_property"
	CreateRelationship  OpName = "create_relationship"
	CreateElement       OpName = "create_element"
	SetDocumentation    OpName = "set_documentation"
	AddToView           OpName = "add_to_view"
	DeleteElement       OpName = "delete_element"
	DeleteRelationship  OpName = "delete_relationship"
	RemoveProperty      OpName = "remove_property"
	CreateView          OpName = "create_view"
	MoveToFolder        OpName = "move_to_folder"
	CreateFolder        OpName = "create_folder"
	UpdateRelationship  OpName = "update_relationship"
	DeleteView          OpName = "delete_view"
	AddConnectionToView OpName = "add_connection_to_view"
	RemoveFromView      OpName = "remove_from_view"
	MoveViewObject      OpName = "move_view_object"
	StyleViewObject     OpName = "style_view_object"
	CreateNote          OpName = "create_note"
	CreateGroup         OpName = "create_group"
	SetSpecialization   OpName = "set_specialization"
	ChangeType          OpName = "change_type"
	LayoutView          OpName = "layout_view"
	MergeElements       OpName = "merge_elements"
	DuplicateView       OpName = "duplicate_view"
	SetConnectionRouter OpName = "set_connection_router"
	AddPropertyValue    OpName = "add_property_value"
	RemovePropertyValue OpName = "remove_property_value"
)

// Op is one operation of the plan vocabulary: its one definition. The plan schemas, the strict
// planner schema, the prompt, the preview's fields and the check of an archived inverse are all
// derived from it; plans binds a handler to each Name.
type Op struct {
	Name   OpName
	Since  string // the first plan version that has it
	Doc    string
	Fields []Field // every field of every version (Field.Since: from which); FieldsOf filters
	// PartialXY: x may be given without y (a move changes one coordinate); elsewhere a position
	// is given whole or not at all.
	PartialXY bool
	Effect    Effect
}

// FieldsOf returns the fields an op has in a plan version, each with the values it has there.
func (op Op) FieldsOf(version string) []Field {
	var out []Field
	for _, f := range op.Fields {
		if f.Since > version {
			continue
		}
		if len(f.ValueSince) > 0 {
			var vs []string
			for _, v := range f.Values {
				if since, later := f.ValueSince[v]; !later || since <= version {
					vs = append(vs, v)
				}
			}
			f.Values = vs
		}
		out = append(out, f)
	}
	return out
}

// Field returns the op's field of that name, in any version.
func (op Op) Field(name string) (Field, bool) {
	for _, f := range op.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

func enum(name, doc string, values ...string) Field {
	return Field{Name: name, Kind: Enum, Doc: doc, Values: values}
}

// the fields' constructors: required id, optional id, required text, optional text
func id(name, doc string) Field {
	return Field{Name: name, Kind: ID, Required: true, Max: MaxID, Doc: doc, Show: ShowHeadline}
}
func optID(name, doc string) Field {
	return Field{Name: name, Kind: ID, Max: MaxID, Doc: doc, Show: ShowHeadline}
}
func refID(doc string) Field {
	return Field{Name: "ref_id", Kind: RefID, Max: MaxID, Doc: doc, Show: ShowNone}
}
func text(name string, required bool, max int, doc string) Field {
	return Field{Name: name, Kind: Text, Required: required, Max: max, Doc: doc}
}
func name(name string, max int, doc string) Field {
	return Field{Name: name, Kind: Name, Required: true, Max: max, Doc: doc, Show: ShowHeadline}
}
func props(doc string) Field {
	return Field{Name: "properties", Kind: Properties, Max: MaxQuestions, Doc: doc}
}
func onDuplicate(doc string) Field {
	f := enum("on_duplicate", doc, OnDuplicate...)
	f.Show = ShowNone
	return f
}

// onDuplicateRename is on_duplicate of the ops that may rename (elements and views): 3.1 adds
// rename, as the peer's server has it.
func onDuplicateRename(doc string) Field {
	f := onDuplicate(doc)
	f.Values = append(append([]string(nil), OnDuplicate...), "rename")
	f.ValueSince = map[string]string{"rename": "3.1"}
	return f
}
func headline(f Field) Field { f.Show = ShowHeadline; return f }

func coord(name, doc string) Field {
	return Field{Name: name, Kind: Coordinate, Min: -MaxCoordinate, Max: MaxCoordinate, Doc: doc, Show: ShowHeadline}
}
func size(name, doc string) Field {
	return Field{Name: name, Kind: Integer, Min: -1, Max: MaxCoordinate, Doc: doc, Show: ShowHeadline}
}

// since marks fields a later version adds to an op.
func since(v string, fs ...Field) []Field {
	for i := range fs {
		fs[i].Since = v
	}
	return fs
}

// Values of the enumerated fields.
var (
	OnDuplicate = []string{"create", "error", "reuse"}
	AccessTypes = []string{"write", "read", "access", "readwrite"}
	// Viewpoints are Archi's viewpoint ids (ArchiMate 3.2 chapter C).
	Viewpoints = []string{"application_cooperation", "application_usage", "business_process_cooperation",
		"capability", "goal_realization", "implementation_deployment", "implementation_migration",
		"information_structure", "layered", "migration", "motivation", "organization", "outcome_realization",
		"physical", "product", "requirements_realization", "resource", "service_realization", "stakeholder",
		"strategy", "technology", "technology_usage", "value_stream"}
	TextAlignments = []string{"left", "center", "right"}
	TextPositions  = []string{"top", "middle", "bottom"}
	Routers        = []string{"manual", "manhattan"}
	// LayoutAlgorithms: layers (ArchiMate's layers as ranks, related objects near each other) or
	// grid (document order, rows of equal cells).
	LayoutAlgorithms = []string{"layers", "grid"}
	LayoutDirections = []string{"TB", "LR"}
)

const (
	MaxColor     = 7 // #rrggbb
	MaxFont      = 200
	MaxSelection = 300 // elements a view made from a selection may show
	MaxDepth     = 3
)

// What edits record, by the XML Archi writes (archixml's edits). Lists shared by several ops.
var (
	// a concept, view or folder with its documentation and properties
	conceptNodes = []string{"element", "folder", "documentation", "property"}
	// a diagram object, note or group with its bounds, and the connections drawn to it
	diagramNodes = []string{"child", "bounds", "sourceConnection", "bendpoint"}
	relAttrs     = []string{"accessType", "strength", "directed"}
	styleAttrs   = []string{"fillColor", "lineColor", "fontColor", "font", "textAlignment", "textPosition", "alpha", "lineWidth"}
	boundsAttrs  = []string{"x", "y", "width", "height"}
	// what an object put inside another without a place may set: the holders grow to hold it
	growAttrs = []string{"width", "height"}
	docTexts  = []string{"documentation"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func fields(fs ...[]Field) []Field {
	var out []Field
	for _, f := range fs {
		out = append(out, f...)
	}
	return out
}

func box() []Field {
	return []Field{
		coord("x", "x position (relative to the parent when nested)"),
		coord("y", "y position (relative to the parent when nested)"),
		size("width", "width"),
		size("height", "height"),
	}
}

// Ops is the plan vocabulary: field names and types as jArchi's ArchiChangePlan v2 has them, then
// the ops 3.0 adds.
var Ops = []Op{
	{Name: RenameElement, Since: "1.0", Doc: "Rename an element, relationship or view.", Fields: []Field{
		id("element_id", "id of the element, relationship or view, or a ref_id"),
		name("new_name", MaxName, "the new name"),
	}, Effect: Effect{Changes: true, Attrs: []string{"name"}}},
	{Name: SetProperty, Since: "1.0", Doc: "Set a property (key and value) on an element, relationship or view.", Fields: []Field{
		id("element_id", "id of the element, relationship, view or folder, or a ref_id"),
		name("key", MaxKey, "property key"),
		headline(text("value", true, MaxValue, "property value")),
	}, Effect: Effect{Changes: true, Attrs: []string{"value"}, Nodes: []string{"property"}}},
	{Name: CreateRelationship, Since: "1.0", Doc: "Create a relationship the ArchiMate 3.2 table allows between source and target.", Fields: fields([]Field{
		id("source_id", "id of the source element or relationship, or a ref_id"),
		id("target_id", "id of the target element or relationship, or a ref_id"),
		{Name: "relationship_type", Kind: RelationshipType, Required: true, Doc: "relationship type", Show: ShowHeadline},
		text("name", false, MaxName, "optional name"),
		refID("a name later actions may use for the new relationship"),
	}, since("3.0",
		text("documentation", false, MaxDoc, "documentation of the new relationship"),
		props("properties of the new relationship"),
		onDuplicate("when the same relationship exists: create another (default, with a warning), error, or reuse it"),
		headline(enum("access_type", "Access only: write (Archi's default), read, access or readwrite", AccessTypes...)),
		headline(text("influence_strength", false, MaxKey, "Influence only: the strength ('+', '++', '-', '5', ...)")),
		Field{Name: "directed", Kind: Boolean, Doc: "Association only: true for a directed association", Show: ShowHeadline},
	)), Effect: Effect{Attrs: join(relAttrs, []string{"targetConnections"}), Nodes: join(conceptNodes, []string{"sourceConnection", "bendpoint"}), Texts: docTexts}},
	{Name: CreateElement, Since: "1.0", Doc: "Create an element in its layer's folder.", Fields: fields([]Field{
		{Name: "type", Kind: ElementType, Required: true, Doc: "element type", Show: ShowHeadline},
		name("name", MaxName, "element name"),
		refID("a name later actions may use for the new element"),
	}, since("3.0",
		text("documentation", false, MaxDoc, "documentation of the new element"),
		props("properties of the new element"),
		headline(text("folder_path", false, MaxFolderPath, "folder under the layer folder, created when missing (e.g. 'Business/Actors')")),
		onDuplicateRename("when an element of this type and name exists: create another (default, with a warning), error, reuse it (its id answers the ref_id), or (3.1) rename: create it as 'Name (2)', 'Name (3)', ..."),
		headline(text("specialization", false, MaxName, "a specialization (Archi profile) for the new element, created when missing")),
	)), Effect: Effect{Attrs: []string{"profiles"}, Nodes: join(conceptNodes, []string{"profile"}), Texts: docTexts}},
	{Name: SetDocumentation, Since: "1.0", Doc: "Set the documentation of an element, relationship, view or (3.1) group on a view (empty removes it).", Fields: []Field{
		id("element_id", "id of the element, relationship, view, folder or (3.1) group, or a ref_id"),
		headline(text("documentation", true, MaxDoc, "documentation text")),
	}, Effect: Effect{Changes: true, Nodes: []string{"documentation"}, Texts: docTexts}},
	{Name: AddToView, Since: "1.0", Doc: "Show an element on a view; connections are drawn for its relationships to what the view shows.", Fields: fields([]Field{
		id("view_id", "id of the view, or a ref_id from create_view"),
		id("element_id", "id of the element, or a ref_id"),
		coord("x", "x position (a free grid cell when omitted)"),
		coord("y", "y position (a free grid cell when omitted)"),
		size("width", "width (default 120)"),
		size("height", "height (default 55)"),
	}, since("3.0",
		optID("parent_id", "a diagram object or group on the view to nest the element in (its ref_id or id); x and y are then relative to it"),
		refID("a name later actions may use for the new diagram object"),
	), since("3.1",
		headline(Field{Name: "connect", Kind: Boolean, Doc: "false: draw no connection to it, now or after the last action (for plans that draw their own with add_connection_to_view); default true"}),
	)), Effect: Effect{Attrs: join([]string{"targetConnections"}, growAttrs), Nodes: diagramNodes}},
	{Name: DeleteElement, Since: "2.0", Doc: "Delete an element with its relationships and its appearances on views.", Fields: []Field{
		id("element_id", "id of the element (or of a view, which is deleted)"),
	}, Effect: Effect{Changes: true, Attrs: []string{"targetConnections"}, Nodes: join(conceptNodes, diagramNodes)}},
	{Name: DeleteRelationship, Since: "2.0", Doc: "Delete a relationship and its connections on views.", Fields: []Field{
		id("relationship_id", "id of the relationship"),
	}, Effect: Effect{Changes: true, Attrs: []string{"targetConnections"}, Nodes: join(conceptNodes, diagramNodes)}},
	{Name: RemoveProperty, Since: "2.0", Doc: "Remove a property by key.", Fields: []Field{
		id("element_id", "id of the element, relationship, view or folder, or a ref_id"),
		name("key", MaxKey, "property key"),
	}, Effect: Effect{Changes: true, Nodes: []string{"property"}}},
	{Name: CreateView, Since: "2.0", Doc: "Create an ArchiMate view.", Fields: fields([]Field{
		name("name", MaxName, "view name"),
		refID("a name later add_to_view actions may use for the view"),
	}, since("3.0",
		text("documentation", false, MaxDoc, "documentation of the view"),
		props("properties of the view"),
		text("folder_path", false, MaxFolderPath, "folder under the Views folder, created when missing"),
		headline(enum("viewpoint", "the view's viewpoint (Archi's id)", Viewpoints...)),
		onDuplicateRename("when a view of this name exists: create another (default, with a warning), error, reuse it, or (3.1) rename: create it as 'Name (2)', ..."),
		Field{Name: "select_ids", Kind: IDList, Max: MaxSelection, Doc: "fill the view: these elements (ids or ref_ids)"},
		Field{Name: "select_types", Kind: TypeList, Max: 61, Doc: "fill the view: every element of these types", Show: ShowHeadline},
		headline(text("select_folder", false, MaxFolderPath, "fill the view: every element in this folder and below (e.g. 'Business/Customers')")),
		Field{Name: "depth", Kind: Integer, Min: 0, Max: MaxDepth, Doc: "with a selection: also their neighbours, this many relationships away (0 to 3; default 0)"},
	)), Effect: Effect{Attrs: join([]string{"targetConnections"}, boundsAttrs), Nodes: join(conceptNodes, diagramNodes), Texts: docTexts}},
	{Name: MoveToFolder, Since: "2.0", Doc: "Move an element, relationship or view to a folder under its layer's folder, creating the folders missing.", Fields: []Field{
		id("element_id", "id of the element, relationship or view, or a ref_id"),
		headline(text("folder_path", true, MaxFolderPath, "folder path from the layer folder, separated by / (e.g. 'Business/Actors')")),
	}, Effect: Effect{Changes: true, Nodes: []string{"element", "folder"}}},

	// 3.0
	{Name: CreateFolder, Since: "3.0", Doc: "Create a folder (and the folders above it that are missing) under a top-level folder.", Fields: []Field{
		headline(text("folder_path", true, MaxFolderPath, "the folder's path from the top-level folder, separated by / (e.g. 'Business/Customers')")),
		text("documentation", false, MaxDoc, "documentation of the folder"),
		refID("a name later actions may use for the folder"),
	}, Effect: Effect{Nodes: []string{"folder", "documentation"}, Texts: docTexts}},
	{Name: UpdateRelationship, Since: "3.0", Doc: "Change a relationship's access type, influence strength or direction (association).", Fields: []Field{
		id("relationship_id", "id of the relationship, or a ref_id"),
		headline(enum("access_type", "Access only: write, read, access or readwrite", AccessTypes...)),
		headline(text("influence_strength", false, MaxKey, "Influence only: the strength ('+', '++', '-', '5', ...); empty removes it")),
		{Name: "directed", Kind: Boolean, Doc: "Association only: true for a directed association", Show: ShowHeadline},
	}, Effect: Effect{Changes: true, Attrs: relAttrs}},
	{Name: DeleteView, Since: "3.0", Doc: "Delete a view with everything drawn on it, and the references to it on other views.", Fields: []Field{
		id("view_id", "id of the view"),
	}, Effect: Effect{Changes: true, Attrs: []string{"targetConnections"}, Nodes: join(conceptNodes, diagramNodes)}},
	{Name: AddConnectionToView, Since: "3.0", Doc: "Draw a relationship on a view between diagram objects that show its ends, or join a note or group to another object with a plain connection.", Fields: []Field{
		id("view_id", "id of the view, or a ref_id"),
		optID("relationship_id", "the relationship to draw (absent: a plain connection, which must touch a note or group)"),
		optID("source_object_id", "diagram object the connection starts at (id or ref_id); absent with a relationship: every object showing its source"),
		optID("target_object_id", "diagram object the connection ends at (id or ref_id); absent with a relationship: every object showing its target"),
		refID("a name later actions may use for the connection"),
		headline(Field{Name: "allow_reversed", Kind: Boolean, Since: "3.1", Doc: "true: when the objects show the relationship's ends the other way round, draw it from the target object to the source object"}),
	}, Effect: Effect{Attrs: []string{"targetConnections"}, Nodes: []string{"sourceConnection"}}},
	{Name: RemoveFromView, Since: "3.0", Doc: "Remove a diagram object (with what it holds and its connections) or a connection from its view; the concepts stay in the model.", Fields: []Field{
		id("object_id", "id of the diagram object, note, group or connection, or a ref_id"),
	}, Effect: Effect{Changes: true, Attrs: []string{"targetConnections"}, Nodes: diagramNodes}},
	{Name: MoveViewObject, Since: "3.0", Doc: "Move or resize a diagram object, note or group.", Fields: fields([]Field{
		id("object_id", "id of the diagram object, note or group, or a ref_id"),
	}, box(), since("3.1",
		optID("parent_id", "move it into this group or diagram object (its id or ref_id), or onto the view itself (the view's id); x and y are then relative to it"),
	)), PartialXY: true, Effect: Effect{Changes: true, Attrs: join(boundsAttrs, []string{"targetConnections"}), Nodes: diagramNodes}},
	{Name: StyleViewObject, Since: "3.0", Doc: "Style a diagram object, note, group or connection.", Fields: []Field{
		id("object_id", "id of the diagram object, note, group or connection, or a ref_id"),
		headline(text("fill_color", false, MaxColor, "fill colour, #rrggbb; empty: Archi's default")),
		headline(text("line_color", false, MaxColor, "line colour, #rrggbb; empty: Archi's default")),
		headline(text("font_color", false, MaxColor, "font colour, #rrggbb; empty: Archi's default")),
		headline(text("font", false, MaxFont, "font as Archi writes it (e.g. '1|Arial|10.0|1|GTK|1|'); empty: Archi's default")),
		headline(enum("text_alignment", "horizontal text alignment", TextAlignments...)),
		headline(enum("text_position", "vertical text position", TextPositions...)),
		headline(Field{Name: "opacity", Kind: Integer, Since: "3.1", Min: 0, Max: 255, Doc: "fill opacity, 0 (transparent) to 255 (opaque, Archi's default); not on connections"}),
		headline(Field{Name: "line_width", Kind: Integer, Since: "3.1", Min: 1, Max: 3, Doc: "line width, 1 (Archi's default) to 3"}),
	}, Effect: Effect{Changes: true, Attrs: styleAttrs}},
	{Name: CreateNote, Since: "3.0", Doc: "Put a note on a view.", Fields: fields([]Field{
		id("view_id", "id of the view, or a ref_id"),
		text("text", true, MaxDoc, "the note's text"),
		optID("parent_id", "a group or diagram object to put the note in"),
	}, box(), []Field{
		refID("a name later actions may use for the note"),
	}), Effect: Effect{Attrs: growAttrs, Nodes: []string{"child", "bounds", "content"}}},
	{Name: CreateGroup, Since: "3.0", Doc: "Put a group (a visual box, not an ArchiMate Grouping) on a view.", Fields: fields([]Field{
		id("view_id", "id of the view, or a ref_id"),
		name("name", MaxName, "the group's name"),
		optID("parent_id", "a group or diagram object to put the group in"),
	}, box(), []Field{
		refID("a name later actions may use for the group"),
	}, since("3.1",
		text("documentation", false, MaxDoc, "documentation of the group"),
	)), Effect: Effect{Attrs: growAttrs, Nodes: []string{"child", "bounds", "documentation"}, Texts: docTexts}},
	{Name: SetSpecialization, Since: "3.0", Doc: "Give an element or relationship a specialization (an Archi profile of its type, created when missing), or take it away.", Fields: []Field{
		id("element_id", "id of the element or relationship, or a ref_id"),
		headline(text("specialization", true, MaxName, "the specialization's name; empty removes the one it has")),
	}, Effect: Effect{Changes: true, Attrs: []string{"profiles"}, Nodes: []string{"profile"}}},
	{Name: ChangeType, Since: "3.0", Doc: "Change an element's type, keeping its id, relationships, views and properties (the relationships must stay allowed).", Fields: []Field{
		id("element_id", "id of the element, or a ref_id"),
		{Name: "type", Kind: ElementType, Required: true, Doc: "the new element type", Show: ShowHeadline},
	}, Effect: Effect{Changes: true, Attrs: []string{"xsi:type", "profiles"}, Nodes: []string{"element", "folder"}}},
	{Name: LayoutView, Since: "3.0", Doc: "Lay a view out: layers from top to bottom in ArchiMate's order, related objects near each other, nesting kept, nothing overlapping.", Fields: fields([]Field{
		id("view_id", "id of the view, or a ref_id"),
	}, since("3.1",
		headline(enum("algorithm", "layers (ArchiMate's layers in ranks, related objects near each other; the default) or grid (document order in rows)", LayoutAlgorithms...)),
		headline(enum("direction", "TB: ranks from top to bottom (default); LR: from left to right", LayoutDirections...)),
		headline(Field{Name: "node_spacing", Kind: Integer, Min: 0, Max: 1000, Doc: "gap between objects of one rank (default 24)"}),
		headline(Field{Name: "rank_spacing", Kind: Integer, Min: 0, Max: 1000, Doc: "gap between ranks (default 48)"}),
	)), Effect: Effect{Changes: true, Attrs: boundsAttrs, Nodes: []string{"bounds", "bendpoint"}}},
	{Name: MergeElements, Since: "3.0", Doc: "Merge an element into another of the same type: its relationships, appearances on views and properties move to the survivor, then it is deleted.", Fields: []Field{
		id("element_id", "the element that stays (id or ref_id)"),
		id("merged_id", "the element merged into it and deleted"),
	}, Effect: Effect{Changes: true, Attrs: []string{"source", "target", "archimateElement"}, Nodes: []string{"element", "property", "documentation"}, Texts: docTexts}},

	// 3.1
	{Name: DuplicateView, Since: "3.1", Doc: "Copy a view with everything drawn on it (new ids; the concepts it shows are shared), into the same folder.", Fields: []Field{
		id("view_id", "id of the view to copy, or a ref_id"),
		headline(text("name", false, MaxName, "the copy's name (default: the view's name and ' (copy)', as Archi names it)")),
		refID("a name later actions may use for the copy"),
	}, Effect: Effect{Nodes: join(conceptNodes, diagramNodes, []string{"content", "feature"}), Texts: docTexts}},
	{Name: SetConnectionRouter, Since: "3.1", Doc: "Set how a view routes its connections: manual (straight, with the bendpoints drawn; Archi's default) or manhattan (right angles).", Fields: []Field{
		id("view_id", "id of the view, or a ref_id"),
		headline(Field{Name: "router", Kind: Enum, Required: true, Doc: "manual or manhattan", Values: Routers}),
	}, Effect: Effect{Changes: true, Attrs: []string{"connectionRouterType"}}},
	{Name: AddPropertyValue, Since: "3.1", Doc: "Add one value of a property that may hold several (another property of the same key), keeping the values it has.", Fields: []Field{
		id("element_id", "id of the element, relationship, view or folder, or a ref_id"),
		name("key", MaxKey, "property key"),
		headline(text("value", true, MaxValue, "the value to add")),
	}, Effect: Effect{Changes: true, Nodes: []string{"property"}}},
	{Name: RemovePropertyValue, Since: "3.1", Doc: "Remove one value of a property that holds several (the property of that key with that value), keeping the others.", Fields: []Field{
		id("element_id", "id of the element, relationship, view or folder, or a ref_id"),
		name("key", MaxKey, "property key"),
		headline(text("value", true, MaxValue, "the value to remove")),
	}, Effect: Effect{Changes: true, Nodes: []string{"property"}}},
}

func init() {
	for i := range Ops {
		for j := range Ops[i].Fields {
			if Ops[i].Fields[j].Since == "" {
				Ops[i].Fields[j].Since = Ops[i].Since
			}
		}
	}
}

// OpsOf returns the ops of a plan version, in vocabulary order.
func OpsOf(version string) []Op {
	var out []Op
	for _, op := range Ops {
		if op.Since <= version {
			out = append(out, op)
		}
	}
	return out
}

// OpByName returns the op with the name, if version has it.
func OpByName(version string, name OpName) (Op, bool) {
	for i := range Ops {
		if Ops[i].Name == name && Ops[i].Since <= version {
			return Ops[i], true
		}
	}
	return Op{}, false
}

// FieldNames returns the name of every action field of every version, op included, sorted: the
// fields a plan in the flat form may set to null.
func FieldNames() []string {
	seen := map[string]bool{"op": true}
	out := []string{"op"}
	for _, op := range Ops {
		for _, f := range op.FieldsOf(Newest) {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// elementTypeNames are the values a type field takes: jArchi's labels, then Archi's class names.
func elementTypeNames() []string { return typeNames(archixml.ElementTypes) }

func relationshipTypeNames() []string { return typeNames(archixml.RelationshipTypes) }

func typeNames(types []archixml.ConceptType) []string {
	var labels, classes []string
	for _, t := range types {
		labels = append(labels, t.Label)
		if t.Class != t.Label {
			classes = append(classes, t.Class)
		}
	}
	sort.Strings(labels)
	sort.Strings(classes)
	return append(labels, classes...)
}
