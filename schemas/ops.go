package schemas

import (
	"sort"

	"github.com/archiplan/archiplan/archixml"
)

// Plan versions archiplan reads, oldest first.
var Versions = []string{"1.0", "2.0", "3.0"}

// Latest is the plan version archiplan writes and asks planners for.
const Latest = "2.0"

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

// Field is one field of an action.
type Field struct {
	Name     string
	Kind     FieldKind
	Required bool
	Max      int    // maximum length of text, or value of an integer
	Doc      string // what it holds, for the schema's description and the prompt
	Since    string // the first plan version whose op has the field ("" : the op's own)
	Values   []string
}

// since3 marks fields that 3.0 adds to an older op.
func since3(fs ...Field) []Field {
	for i := range fs {
		fs[i].Since = "3.0"
	}
	return fs
}

func enum(name, doc string, values ...string) Field {
	return Field{Name: name, Kind: Enum, Doc: doc, Values: values}
}

// FieldsOf returns the fields an op has in a plan version.
func (op Op) FieldsOf(version string) []Field {
	out := append([]Field(nil), op.Fields...)
	for _, f := range added[op.Name] {
		if f.Since <= version {
			out = append(out, f)
		}
	}
	return out
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
)

const (
	MaxColor     = 7 // #rrggbb
	MaxFont      = 200
	MaxSelection = 300 // elements a view made from a selection may show
	MaxDepth     = 3
)

// Op is one operation of the plan vocabulary.
type Op struct {
	Name   string
	Since  string // the first plan version that has it
	Doc    string
	Fields []Field // the fields it has had since that version (AddedFields: those added later)
}

// added holds, by op, the fields later versions add to it (Field.Since says which).
var added = map[string][]Field{}

// AddedFields returns the fields later versions add to an op.
func (op Op) AddedFields() []Field { return added[op.Name] }

// Ops is the plan vocabulary: field names and types as jArchi's ArchiChangePlan v2 has them.
var Ops = []Op{
	{"rename_element", "1.0", "Rename an element, relationship or view.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id", "", nil},
		{"new_name", Name, true, MaxName, "the new name", "", nil},
	}},
	{"set_property", "1.0", "Set a property (key and value) on an element, relationship or view.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship, view or folder, or a ref_id", "", nil},
		{"key", Name, true, MaxKey, "property key", "", nil},
		{"value", Text, true, MaxValue, "property value", "", nil},
	}},
	{"create_relationship", "1.0", "Create a relationship the ArchiMate 3.2 table allows between source and target.", fields([]Field{
		{"source_id", ID, true, MaxID, "id of the source element or relationship, or a ref_id", "", nil},
		{"target_id", ID, true, MaxID, "id of the target element or relationship, or a ref_id", "", nil},
		{"relationship_type", RelationshipType, true, 0, "relationship type", "", nil},
		{"name", Text, false, MaxName, "optional name", "", nil},
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the new relationship", "", nil},
	}, since3(
		Field{Name: "documentation", Kind: Text, Max: MaxDoc, Doc: "documentation of the new relationship"},
		Field{Name: "properties", Kind: Properties, Max: MaxQuestions, Doc: "properties of the new relationship"},
		enum("on_duplicate", "when the same relationship exists: create another (default, with a warning), error, or reuse it", OnDuplicate...),
		enum("access_type", "Access only: write (Archi's default), read, access or readwrite", AccessTypes...),
		Field{Name: "influence_strength", Kind: Text, Max: MaxKey, Doc: "Influence only: the strength ('+', '++', '-', '5', ...)"},
		Field{Name: "directed", Kind: Boolean, Doc: "Association only: true for a directed association"},
	))},
	{"create_element", "1.0", "Create an element in its layer's folder.", fields([]Field{
		{"type", ElementType, true, 0, "element type", "", nil},
		{"name", Name, true, MaxName, "element name", "", nil},
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the new element", "", nil},
	}, since3(
		Field{Name: "documentation", Kind: Text, Max: MaxDoc, Doc: "documentation of the new element"},
		Field{Name: "properties", Kind: Properties, Max: MaxQuestions, Doc: "properties of the new element"},
		Field{Name: "folder_path", Kind: Text, Max: MaxFolderPath, Doc: "folder under the layer folder, created when missing (e.g. 'Business/Actors')"},
		enum("on_duplicate", "when an element of this type and name exists: create another (default, with a warning), error, or reuse it (its id answers the ref_id)", OnDuplicate...),
		Field{Name: "specialization", Kind: Text, Max: MaxName, Doc: "a specialization (Archi profile) for the new element, created when missing"},
	))},
	{"set_documentation", "1.0", "Set the documentation of an element, relationship or view (empty removes it).", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id", "", nil},
		{"documentation", Text, true, MaxDoc, "documentation text", "", nil},
	}},
	{"add_to_view", "1.0", "Show an element on a view; connections are drawn for its relationships to what the view shows.", fields([]Field{
		{"view_id", ID, true, MaxID, "id of the view, or a ref_id from create_view", "", nil},
		{"element_id", ID, true, MaxID, "id of the element, or a ref_id", "", nil},
		{"x", Coordinate, false, MaxCoordinate, "x position (a free grid cell when omitted)", "", nil},
		{"y", Coordinate, false, MaxCoordinate, "y position (a free grid cell when omitted)", "", nil},
		{"width", Integer, false, MaxCoordinate, "width (default 120)", "", nil},
		{"height", Integer, false, MaxCoordinate, "height (default 55)", "", nil},
	}, since3(
		Field{Name: "parent_id", Kind: ID, Max: MaxID, Doc: "a diagram object or group on the view to nest the element in (its ref_id or id); x and y are then relative to it"},
		Field{Name: "ref_id", Kind: RefID, Max: MaxID, Doc: "a name later actions may use for the new diagram object"},
	))},
	{"delete_element", "2.0", "Delete an element with its relationships and its appearances on views.", []Field{
		{"element_id", ID, true, MaxID, "id of the element (or of a view, which is deleted)", "", nil},
	}},
	{"delete_relationship", "2.0", "Delete a relationship and its connections on views.", []Field{
		{"relationship_id", ID, true, MaxID, "id of the relationship", "", nil},
	}},
	{"remove_property", "2.0", "Remove a property by key.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship, view or folder, or a ref_id", "", nil},
		{"key", Name, true, MaxKey, "property key", "", nil},
	}},
	{"create_view", "2.0", "Create an ArchiMate view.", fields([]Field{
		{"name", Name, true, MaxName, "view name", "", nil},
		{"ref_id", RefID, false, MaxID, "a name later add_to_view actions may use for the view", "", nil},
	}, since3(
		Field{Name: "documentation", Kind: Text, Max: MaxDoc, Doc: "documentation of the view"},
		Field{Name: "properties", Kind: Properties, Max: MaxQuestions, Doc: "properties of the view"},
		Field{Name: "folder_path", Kind: Text, Max: MaxFolderPath, Doc: "folder under the Views folder, created when missing"},
		enum("viewpoint", "the view's viewpoint (Archi's id)", Viewpoints...),
		enum("on_duplicate", "when a view of this name exists: create another (default, with a warning), error, or reuse it", OnDuplicate...),
		Field{Name: "select_ids", Kind: IDList, Max: MaxSelection, Doc: "fill the view: these elements (ids or ref_ids)"},
		Field{Name: "select_types", Kind: TypeList, Max: 61, Doc: "fill the view: every element of these types"},
		Field{Name: "select_folder", Kind: Text, Max: MaxFolderPath, Doc: "fill the view: every element in this folder and below (e.g. 'Business/Customers')"},
		Field{Name: "depth", Kind: Integer, Max: MaxDepth, Doc: "with a selection: also their neighbours, this many relationships away (0 to 3; default 0)"},
	))},
	{"move_to_folder", "2.0", "Move an element, relationship or view to a folder under its layer's folder, creating the folders missing.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id", "", nil},
		{"folder_path", Text, true, MaxFolderPath, "folder path from the layer folder, separated by / (e.g. 'Business/Actors')", "", nil},
	}},
}

func init() {
	// the table lists an op's added fields with its own; they are kept apart so that what reads
	// Fields sees the op as its first version has it
	for i := range Ops {
		var own []Field
		for _, f := range Ops[i].Fields {
			if f.Since != "" {
				added[Ops[i].Name] = append(added[Ops[i].Name], f)
			} else {
				own = append(own, f)
			}
		}
		Ops[i].Fields = own
	}
	Ops = append(Ops, opsV3...)
}

var box = []Field{
	{"x", Coordinate, false, MaxCoordinate, "x position (relative to the parent when nested)", "", nil},
	{"y", Coordinate, false, MaxCoordinate, "y position (relative to the parent when nested)", "", nil},
	{"width", Integer, false, MaxCoordinate, "width", "", nil},
	{"height", Integer, false, MaxCoordinate, "height", "", nil},
}

func fields(fs ...[]Field) []Field {
	var out []Field
	for _, f := range fs {
		out = append(out, f...)
	}
	return out
}

// opsV3 are the ops 3.0 adds.
var opsV3 = []Op{
	{"create_folder", "3.0", "Create a folder (and the folders above it that are missing) under a top-level folder.", []Field{
		{"folder_path", Text, true, MaxFolderPath, "the folder's path from the top-level folder, separated by / (e.g. 'Business/Customers')", "", nil},
		{"documentation", Text, false, MaxDoc, "documentation of the folder", "", nil},
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the folder", "", nil},
	}},
	{"update_relationship", "3.0", "Change a relationship's access type, influence strength or direction (association).", []Field{
		{"relationship_id", ID, true, MaxID, "id of the relationship, or a ref_id", "", nil},
		enum("access_type", "Access only: write, read, access or readwrite", AccessTypes...),
		{"influence_strength", Text, false, MaxKey, "Influence only: the strength ('+', '++', '-', '5', ...); empty removes it", "", nil},
		{"directed", Boolean, false, 0, "Association only: true for a directed association", "", nil},
	}},
	{"delete_view", "3.0", "Delete a view with everything drawn on it, and the references to it on other views.", []Field{
		{"view_id", ID, true, MaxID, "id of the view", "", nil},
	}},
	{"add_connection_to_view", "3.0", "Draw a relationship on a view between diagram objects that show its ends, or join a note or group to another object with a plain connection.", []Field{
		{"view_id", ID, true, MaxID, "id of the view, or a ref_id", "", nil},
		{"relationship_id", ID, false, MaxID, "the relationship to draw (absent: a plain connection, which must touch a note or group)", "", nil},
		{"source_object_id", ID, false, MaxID, "diagram object the connection starts at (id or ref_id); absent with a relationship: every object showing its source", "", nil},
		{"target_object_id", ID, false, MaxID, "diagram object the connection ends at (id or ref_id); absent with a relationship: every object showing its target", "", nil},
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the connection", "", nil},
	}},
	{"remove_from_view", "3.0", "Remove a diagram object (with what it holds and its connections) or a connection from its view; the concepts stay in the model.", []Field{
		{"object_id", ID, true, MaxID, "id of the diagram object, note, group or connection, or a ref_id", "", nil},
	}},
	{"move_view_object", "3.0", "Move or resize a diagram object, note or group.", fields([]Field{
		{"object_id", ID, true, MaxID, "id of the diagram object, note or group, or a ref_id", "", nil},
	}, box)},
	{"style_view_object", "3.0", "Style a diagram object, note, group or connection.", []Field{
		{"object_id", ID, true, MaxID, "id of the diagram object, note, group or connection, or a ref_id", "", nil},
		{"fill_color", Text, false, MaxColor, "fill colour, #rrggbb; empty: Archi's default", "", nil},
		{"line_color", Text, false, MaxColor, "line colour, #rrggbb; empty: Archi's default", "", nil},
		{"font_color", Text, false, MaxColor, "font colour, #rrggbb; empty: Archi's default", "", nil},
		{"font", Text, false, MaxFont, "font as Archi writes it (e.g. '1|Arial|10.0|1|GTK|1|'); empty: Archi's default", "", nil},
		enum("text_alignment", "horizontal text alignment", TextAlignments...),
		enum("text_position", "vertical text position", TextPositions...),
	}},
	{"create_note", "3.0", "Put a note on a view.", fields([]Field{
		{"view_id", ID, true, MaxID, "id of the view, or a ref_id", "", nil},
		{"text", Text, true, MaxDoc, "the note's text", "", nil},
		{"parent_id", ID, false, MaxID, "a group or diagram object to put the note in", "", nil},
	}, box, []Field{
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the note", "", nil},
	})},
	{"create_group", "3.0", "Put a group (a visual box, not an ArchiMate Grouping) on a view.", fields([]Field{
		{"view_id", ID, true, MaxID, "id of the view, or a ref_id", "", nil},
		{"name", Name, true, MaxName, "the group's name", "", nil},
		{"parent_id", ID, false, MaxID, "a group or diagram object to put the group in", "", nil},
	}, box, []Field{
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the group", "", nil},
	})},
	{"set_specialization", "3.0", "Give an element or relationship a specialization (an Archi profile of its type, created when missing), or take it away.", []Field{
		{"element_id", ID, true, MaxID, "id of the element or relationship, or a ref_id", "", nil},
		{"specialization", Text, true, MaxName, "the specialization's name; empty removes the one it has", "", nil},
	}},
	{"change_type", "3.0", "Change an element's type, keeping its id, relationships, views and properties (the relationships must stay allowed).", []Field{
		{"element_id", ID, true, MaxID, "id of the element, or a ref_id", "", nil},
		{"type", ElementType, true, 0, "the new element type", "", nil},
	}},
	{"layout_view", "3.0", "Lay a view out: layers from top to bottom in ArchiMate's order, related objects near each other, nesting kept, nothing overlapping.", []Field{
		{"view_id", ID, true, MaxID, "id of the view, or a ref_id", "", nil},
	}},
	{"merge_elements", "3.0", "Merge an element into another of the same type: its relationships, appearances on views and properties move to the survivor, then it is deleted.", []Field{
		{"element_id", ID, true, MaxID, "the element that stays (id or ref_id)", "", nil},
		{"merged_id", ID, true, MaxID, "the element merged into it and deleted", "", nil},
	}},
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
func OpByName(version, name string) (Op, bool) {
	for _, op := range OpsOf(version) {
		if op.Name == name {
			return op, true
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
