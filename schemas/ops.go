package schemas

import (
	"sort"

	"github.com/archiplan/archiplan/archixml"
)

// Plan versions archiplan reads, oldest first.
var Versions = []string{"1.0", "2.0"}

// Latest is the plan version archiplan writes and asks planners for.
const Latest = "2.0"

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
	ID                                // an object id from the model, or a ref_id declared earlier
	RefID                             // a ref_id this action declares
	ElementType                       // an element type: jArchi label or Archi class name
	RelationshipType                  // a relationship type: jArchi label or Archi class name
	Integer                           // a coordinate or size
)

// Field is one field of an action.
type Field struct {
	Name     string
	Kind     FieldKind
	Required bool
	Max      int    // maximum length of text, or value of an integer
	Doc      string // what it holds, for the schema's description and the prompt
}

// Op is one operation of the plan vocabulary.
type Op struct {
	Name   string
	Since  string // the first plan version that has it
	Doc    string
	Fields []Field
}

// Ops is the plan vocabulary: field names and types as jArchi's ArchiChangePlan v2 has them.
var Ops = []Op{
	{"rename_element", "1.0", "Rename an element, relationship or view.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id"},
		{"new_name", Text, true, MaxName, "the new name"},
	}},
	{"set_property", "1.0", "Set a property (key and value) on an element, relationship or view.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id"},
		{"key", Text, true, MaxKey, "property key"},
		{"value", Text, true, MaxValue, "property value"},
	}},
	{"create_relationship", "1.0", "Create a relationship the ArchiMate 3.2 table allows between source and target.", []Field{
		{"source_id", ID, true, MaxID, "id of the source element or relationship, or a ref_id"},
		{"target_id", ID, true, MaxID, "id of the target element or relationship, or a ref_id"},
		{"relationship_type", RelationshipType, true, 0, "relationship type"},
		{"name", Text, false, MaxName, "optional name"},
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the new relationship"},
	}},
	{"create_element", "1.0", "Create an element in its layer's folder.", []Field{
		{"type", ElementType, true, 0, "element type"},
		{"name", Text, true, MaxName, "element name"},
		{"ref_id", RefID, false, MaxID, "a name later actions may use for the new element"},
	}},
	{"set_documentation", "1.0", "Set the documentation of an element, relationship or view (empty removes it).", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id"},
		{"documentation", Text, true, MaxDoc, "documentation text"},
	}},
	{"add_to_view", "1.0", "Show an element on a view; connections are drawn for its relationships to what the view shows.", []Field{
		{"view_id", ID, true, MaxID, "id of the view, or a ref_id from create_view"},
		{"element_id", ID, true, MaxID, "id of the element, or a ref_id"},
		{"x", Integer, false, MaxCoordinate, "x position (a free grid cell when omitted)"},
		{"y", Integer, false, MaxCoordinate, "y position (a free grid cell when omitted)"},
		{"width", Integer, false, MaxCoordinate, "width (default 120)"},
		{"height", Integer, false, MaxCoordinate, "height (default 55)"},
	}},
	{"delete_element", "2.0", "Delete an element with its relationships and its appearances on views.", []Field{
		{"element_id", ID, true, MaxID, "id of the element"},
	}},
	{"delete_relationship", "2.0", "Delete a relationship and its connections on views.", []Field{
		{"relationship_id", ID, true, MaxID, "id of the relationship"},
	}},
	{"remove_property", "2.0", "Remove a property by key.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id"},
		{"key", Text, true, MaxKey, "property key"},
	}},
	{"create_view", "2.0", "Create an ArchiMate view.", []Field{
		{"name", Text, true, MaxName, "view name"},
		{"ref_id", RefID, false, MaxID, "a name later add_to_view actions may use for the view"},
	}},
	{"move_to_folder", "2.0", "Move an element, relationship or view to a folder under its layer's folder, creating the folders missing.", []Field{
		{"element_id", ID, true, MaxID, "id of the element, relationship or view, or a ref_id"},
		{"folder_path", Text, true, MaxFolderPath, "folder path from the layer folder, separated by / (e.g. 'Business/Actors')"},
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
