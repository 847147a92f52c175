package archixml

import (
	"strings"
)

// Folder types of the top-level folders Archi creates in every model; an object lives under the one
// its class belongs to (IArchimateModel.getDefaultFolderForObject).
const (
	FolderStrategy       = "strategy"
	FolderBusiness       = "business"
	FolderApplication    = "application"
	FolderTechnology     = "technology"
	FolderMotivation     = "motivation"
	FolderImplementation = "implementation_migration"
	FolderOther          = "other"
	FolderRelations      = "relations"
	FolderDiagrams       = "diagrams"
)

// TopFolderTypes lists the nine top-level folder types in the order Archi writes them.
var TopFolderTypes = []string{FolderStrategy, FolderBusiness, FolderApplication, FolderTechnology,
	FolderMotivation, FolderImplementation, FolderOther, FolderRelations, FolderDiagrams}

// topFolderNames are the names Archi gives the top-level folders of a new model.
var topFolderNames = map[string]string{
	FolderStrategy: "Strategy", FolderBusiness: "Business", FolderApplication: "Application",
	FolderTechnology: "Technology & Physical", FolderMotivation: "Motivation",
	FolderImplementation: "Implementation & Migration", FolderOther: "Other",
	FolderRelations: "Relations", FolderDiagrams: "Views",
}

// ConceptType describes one ArchiMate element or relationship type.
type ConceptType struct {
	Class  string // Archi's class name, as in xsi:type="archimate:BusinessActor"
	Label  string // jArchi's label, as ArchiChangePlan v2 writes it: "Business Actor"
	Folder string // the top-level folder type objects of this type live in
	Layer  string // the ArchiMate layer or aspect, for people
}

// ElementTypes are the 61 ArchiMate 3.2 element types Archi knows, Junction included.
var ElementTypes = []ConceptType{
	{"Resource", "Resource", FolderStrategy, "Strategy"},
	{"Capability", "Capability", FolderStrategy, "Strategy"},
	{"ValueStream", "Value Stream", FolderStrategy, "Strategy"},
	{"CourseOfAction", "Course Of Action", FolderStrategy, "Strategy"},

	{"BusinessActor", "Business Actor", FolderBusiness, "Business"},
	{"BusinessRole", "Business Role", FolderBusiness, "Business"},
	{"BusinessCollaboration", "Business Collaboration", FolderBusiness, "Business"},
	{"BusinessInterface", "Business Interface", FolderBusiness, "Business"},
	{"BusinessProcess", "Business Process", FolderBusiness, "Business"},
	{"BusinessFunction", "Business Function", FolderBusiness, "Business"},
	{"BusinessInteraction", "Business Interaction", FolderBusiness, "Business"},
	{"BusinessEvent", "Business Event", FolderBusiness, "Business"},
	{"BusinessService", "Business Service", FolderBusiness, "Business"},
	{"BusinessObject", "Business Object", FolderBusiness, "Business"},
	{"Contract", "Contract", FolderBusiness, "Business"},
	{"Representation", "Representation", FolderBusiness, "Business"},
	{"Product", "Product", FolderBusiness, "Business"},

	{"ApplicationComponent", "Application Component", FolderApplication, "Application"},
	{"ApplicationCollaboration", "Application Collaboration", FolderApplication, "Application"},
	{"ApplicationInterface", "Application Interface", FolderApplication, "Application"},
	{"ApplicationFunction", "Application Function", FolderApplication, "Application"},
	{"ApplicationInteraction", "Application Interaction", FolderApplication, "Application"},
	{"ApplicationProcess", "Application Process", FolderApplication, "Application"},
	{"ApplicationEvent", "Application Event", FolderApplication, "Application"},
	{"ApplicationService", "Application Service", FolderApplication, "Application"},
	{"DataObject", "Data Object", FolderApplication, "Application"},

	{"Node", "Node", FolderTechnology, "Technology"},
	{"Device", "Device", FolderTechnology, "Technology"},
	{"SystemSoftware", "System Software", FolderTechnology, "Technology"},
	{"TechnologyCollaboration", "Technology Collaboration", FolderTechnology, "Technology"},
	{"TechnologyInterface", "Technology Interface", FolderTechnology, "Technology"},
	{"Path", "Path", FolderTechnology, "Technology"},
	{"CommunicationNetwork", "Communication Network", FolderTechnology, "Technology"},
	{"TechnologyFunction", "Technology Function", FolderTechnology, "Technology"},
	{"TechnologyProcess", "Technology Process", FolderTechnology, "Technology"},
	{"TechnologyInteraction", "Technology Interaction", FolderTechnology, "Technology"},
	{"TechnologyEvent", "Technology Event", FolderTechnology, "Technology"},
	{"TechnologyService", "Technology Service", FolderTechnology, "Technology"},
	{"Artifact", "Artifact", FolderTechnology, "Technology"},
	{"Equipment", "Equipment", FolderTechnology, "Physical"},
	{"Facility", "Facility", FolderTechnology, "Physical"},
	{"DistributionNetwork", "Distribution Network", FolderTechnology, "Physical"},
	{"Material", "Material", FolderTechnology, "Physical"},

	{"Stakeholder", "Stakeholder", FolderMotivation, "Motivation"},
	{"Driver", "Driver", FolderMotivation, "Motivation"},
	{"Assessment", "Assessment", FolderMotivation, "Motivation"},
	{"Goal", "Goal", FolderMotivation, "Motivation"},
	{"Outcome", "Outcome", FolderMotivation, "Motivation"},
	{"Principle", "Principle", FolderMotivation, "Motivation"},
	{"Requirement", "Requirement", FolderMotivation, "Motivation"},
	{"Constraint", "Constraint", FolderMotivation, "Motivation"},
	{"Meaning", "Meaning", FolderMotivation, "Motivation"},
	{"Value", "Value", FolderMotivation, "Motivation"},

	{"WorkPackage", "Work Package", FolderImplementation, "Implementation & Migration"},
	{"Deliverable", "Deliverable", FolderImplementation, "Implementation & Migration"},
	{"ImplementationEvent", "Implementation Event", FolderImplementation, "Implementation & Migration"},
	{"Plateau", "Plateau", FolderImplementation, "Implementation & Migration"},
	{"Gap", "Gap", FolderImplementation, "Implementation & Migration"},

	{"Grouping", "Grouping", FolderOther, "Other"},
	{"Location", "Location", FolderOther, "Other"},
	{"Junction", "Junction", FolderOther, "Other"},
}

// RelationshipTypes are the 11 ArchiMate 3.2 relationship types, with the letter Archi's
// relationships.xml uses for each.
var RelationshipTypes = []ConceptType{
	{"CompositionRelationship", "Composition", FolderRelations, "Structural"},
	{"AggregationRelationship", "Aggregation", FolderRelations, "Structural"},
	{"AssignmentRelationship", "Assignment", FolderRelations, "Structural"},
	{"RealizationRelationship", "Realization", FolderRelations, "Structural"},
	{"ServingRelationship", "Serving", FolderRelations, "Dependency"},
	{"AccessRelationship", "Access", FolderRelations, "Dependency"},
	{"InfluenceRelationship", "Influence", FolderRelations, "Dependency"},
	{"AssociationRelationship", "Association", FolderRelations, "Dependency"},
	{"TriggeringRelationship", "Triggering", FolderRelations, "Dynamic"},
	{"FlowRelationship", "Flow", FolderRelations, "Dynamic"},
	{"SpecializationRelationship", "Specialization", FolderRelations, "Other"},
}

// ViewTypes are the diagram model classes; ArchimateDiagramModel is the ArchiMate view.
var ViewTypes = []string{"ArchimateDiagramModel", "SketchModel", "CanvasModel"}

// the catalogue's indexes: class -> type, and lower-cased label or class -> type
var elementByClass, relationshipByClass, byLabel = indexCatalogue()

func indexCatalogue() (elements, relationships, labels map[string]*ConceptType) {
	elements, relationships, labels = map[string]*ConceptType{}, map[string]*ConceptType{}, map[string]*ConceptType{}
	for i := range ElementTypes {
		t := &ElementTypes[i]
		elements[t.Class] = t
		labels[strings.ToLower(t.Label)] = t
		labels[strings.ToLower(t.Class)] = t
	}
	for i := range RelationshipTypes {
		t := &RelationshipTypes[i]
		relationships[t.Class] = t
		labels[strings.ToLower(t.Label)] = t
		labels[strings.ToLower(t.Class)] = t
	}
	return elements, relationships, labels
}

// ElementType returns the element type of an Archi class name, or nil.
func ElementType(class string) *ConceptType { return elementByClass[class] }

// RelationshipType returns the relationship type of an Archi class name, or nil.
func RelationshipType(class string) *ConceptType { return relationshipByClass[class] }

// LookupType resolves a type written by a person or a planner: Archi's class name
// ("BusinessActor", "ServingRelationship") or jArchi's label ("Business Actor", "Serving").
// Matching ignores case but not spelling: "Bussiness Actor" is no type.
func LookupType(name string) *ConceptType {
	return byLabel[strings.ToLower(strings.TrimSpace(name))]
}

// IsRelationship reports whether t is one of the relationship types.
func (t *ConceptType) IsRelationship() bool { return t != nil && t.Folder == FolderRelations }

// FolderFor returns the top-level folder type an object of the given class belongs in.
func FolderFor(class string) string {
	if t := elementByClass[class]; t != nil {
		return t.Folder
	}
	if relationshipByClass[class] != nil {
		return FolderRelations
	}
	for _, v := range ViewTypes {
		if v == class {
			return FolderDiagrams
		}
	}
	return ""
}

// diagramWords name the classes of views and of what is drawn on them, for people.
var diagramWords = map[string]string{"ArchimateDiagramModel": "ArchiMate view", "SketchModel": "sketch view",
	"CanvasModel": "canvas view", "DiagramObject": "diagram object", "DiagramModelReference": "view reference",
	"Group": "group", "Note": "note", "Connection": "connection", "SketchModelSticky": "sticky",
	"SketchModelActor": "sketch actor", "CanvasModelBlock": "canvas block", "CanvasModelImage": "canvas image",
	"CanvasModelSticky": "canvas sticky", "DiagramModelImage": "image"}

// TypeWords names an Archi class as people read it: an element type by its label ("Business
// Actor"), a relationship type as "Access relationship", a view or a diagram class in words
// ("sketch view", "note"); a class it does not know as it is.
func TypeWords(class string) string {
	if t := elementByClass[class]; t != nil {
		return t.Label
	}
	if t := relationshipByClass[class]; t != nil {
		return t.Label + " relationship"
	}
	if w, ok := diagramWords[class]; ok {
		return w
	}
	return class
}

// Article puts "a" or "an" before words, as they are spoken ("an Access relationship", "a
// Business Actor", "an ArchiMate view").
func Article(words string) string {
	if words != "" && strings.ContainsRune("aeiouAEIOU", rune(words[0])) {
		return "an " + words
	}
	return "a " + words
}
