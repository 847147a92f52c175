package archixml

import (
	"strings"
	"sync"
)

// Viewpoint is one of Archi's viewpoints: the id a view's viewpoint attribute holds, the name Archi
// shows, and the element types it allows on a view (Archi's model/viewpoints.xml; "$Layer$" names a
// whole layer, as Archi's ViewpointManager expands it). Junction and Grouping are allowed on every
// view, and a viewpoint that lists no element (Layered, None) allows them all.
type Viewpoint struct {
	ID       string
	Name     string
	elements map[string]bool
}

// viewpointTable is Archi's viewpoints.xml (ArchiMate 3.2): id, name, concepts. A test compares it
// with the file where the corpus has it.
var viewpointTable = [][3]string{
	{"organization", "Organization", "BusinessActor BusinessCollaboration BusinessInterface BusinessRole Location"},
	{"business_process_cooperation", "Business Process Cooperation", "$ApplicationElements$ BusinessActor BusinessCollaboration BusinessEvent BusinessFunction BusinessInteraction BusinessInterface BusinessObject BusinessProcess BusinessRole BusinessService Location Representation"},
	{"product", "Product", "$ApplicationElements$ Artifact BusinessActor BusinessCollaboration BusinessEvent BusinessFunction BusinessInteraction BusinessInterface BusinessObject BusinessProcess BusinessRole BusinessService Contract Material Product TechnologyService Value"},
	{"application_cooperation", "Application Cooperation", "$ApplicationElements$ Location"},
	{"application_structure", "Application Structure", "ApplicationComponent ApplicationCollaboration ApplicationInterface DataObject"},
	{"application_usage", "Application Usage", "$ApplicationElements$ BusinessActor BusinessCollaboration BusinessEvent BusinessFunction BusinessInteraction BusinessObject BusinessProcess BusinessRole"},
	{"implementation_deployment", "Implementation and Deployment", "$ApplicationElements$ Artifact Path SystemSoftware TechnologyFunction TechnologyInteraction TechnologyInterface TechnologyProcess TechnologyService"},
	{"technology", "Technology", "$TechnologyElements$ Location"},
	{"technology_usage", "Technology Usage", "ApplicationComponent ApplicationCollaboration ApplicationEvent ApplicationFunction ApplicationInteraction ApplicationProcess $TechnologyElements$"},
	{"information_structure", "Information Structure", "Artifact BusinessObject DataObject Meaning Representation"},
	{"service_realization", "Service Realization", "$ApplicationElements$ BusinessActor BusinessCollaboration BusinessEvent BusinessFunction BusinessInteraction BusinessInterface BusinessObject BusinessProcess BusinessRole BusinessService Representation"},
	{"physical", "Physical", "$PhysicalElements$ CommunicationNetwork Device Location Node Path"},
	{"stakeholder", "Stakeholder", "Assessment Driver Goal Outcome Stakeholder"},
	{"goal_realization", "Goal Realization", "Constraint Goal Outcome Principle Requirement"},
	{"requirements_realization", "Requirements Realization", "Constraint Goal Meaning Outcome Principle Requirement Value $StrategyElements$ $BusinessElements$ $ApplicationElements$ $TechnologyElements$ Location"},
	{"motivation", "Motivation", "$MotivationElements$"},
	{"strategy", "Strategy", "$StrategyElements$ Outcome"},
	{"capability", "Capability Map", "Capability Outcome Resource"},
	{"value_stream", "Value Stream", "Capability Outcome Stakeholder ValueStream"},
	{"outcome_realization", "Outcome Realization", "Capability Meaning Outcome Resource Value ValueStream $BusinessElements$ $ApplicationElements$ $TechnologyElements$ Location"},
	{"resource", "Resource Map", "Capability Resource WorkPackage"},
	{"project", "Project", "BusinessActor BusinessRole Deliverable Goal ImplementationEvent Outcome WorkPackage"},
	{"migration", "Migration", "Gap Plateau"},
	{"implementation_migration", "Implementation and Migration", "$BusinessElements$ $ApplicationElements$ $TechnologyElements$ $ImplementationMigrationElements$ Constraint Goal Location Requirement"},
	{"layered", "Layered", ""},
}

// layerSets are Archi's "$...Elements$" collections, by the catalogue's layer.
var layerSets = map[string]string{
	"$StrategyElements$": "Strategy", "$BusinessElements$": "Business", "$ApplicationElements$": "Application",
	"$TechnologyElements$": "Technology", "$PhysicalElements$": "Physical", "$MotivationElements$": "Motivation",
	"$ImplementationMigrationElements$": "Implementation & Migration",
}

// legacyViewpoints maps the numbers Archi 2 and 3 wrote for a view's viewpoint (the constants of
// their IViewpoint) to the ArchiMate 3 viewpoint of the same name; those with no such viewpoint
// (actor cooperation, business function, ...) were dropped by ArchiMate 3 and show as None.
var legacyViewpoints = map[string]string{
	"3": "application_cooperation", "4": "application_structure", "5": "application_usage",
	"7": "business_process_cooperation", "9": "product", "10": "implementation_deployment",
	"11": "information_structure", "12": "technology_usage", "13": "technology", "14": "layered",
	"15": "organization", "16": "service_realization", "17": "stakeholder", "18": "goal_realization",
	"21": "requirements_realization", "22": "motivation", "23": "project", "24": "migration",
	"25": "implementation_migration",
}

// NoViewpoint is a view without a viewpoint (or with one Archi does not know): everything is
// allowed, and Archi shows "None".
var NoViewpoint = &Viewpoint{Name: "None"}

// viewpointIndex is built when a viewpoint is first asked for, not at every process's start (an
// apply that touches no view never asks).
var viewpointIndex = sync.OnceValues(indexViewpoints)

func indexViewpoints() (map[string]*Viewpoint, []*Viewpoint) {
	byID := map[string]*Viewpoint{}
	var list []*Viewpoint
	for _, row := range viewpointTable {
		vp := &Viewpoint{ID: row[0], Name: row[1], elements: map[string]bool{}}
		for _, c := range strings.Fields(row[2]) {
			if layer, ok := layerSets[c]; ok {
				for _, t := range ElementTypes {
					if t.Layer == layer {
						vp.elements[t.Class] = true
					}
				}
			} else {
				vp.elements[c] = true
			}
		}
		byID[vp.ID] = vp
		list = append(list, vp)
	}
	return byID, list
}

// Viewpoints are Archi's viewpoints, in the order of its viewpoints.xml.
func Viewpoints() []*Viewpoint { _, list := viewpointIndex(); return list }

// ViewpointOf is the viewpoint a view's viewpoint attribute names, as Archi reads it: an id of
// viewpoints.xml, an old number mapped to its ArchiMate 3 viewpoint, anything else None.
func ViewpointOf(attr string) *Viewpoint {
	byID, _ := viewpointIndex()
	if vp, ok := byID[attr]; ok {
		return vp
	}
	if id, ok := legacyViewpoints[attr]; ok {
		return byID[id]
	}
	return NoViewpoint
}

// Allows says whether an element of Archi class class may be on a view of this viewpoint.
func (vp *Viewpoint) Allows(class string) bool {
	if len(vp.elements) == 0 || class == "Junction" || class == "Grouping" || ElementType(class) == nil {
		return true
	}
	return vp.elements[class]
}

// Concepts are the element classes the viewpoint lists (nil: all).
func (vp *Viewpoint) Concepts() []string {
	var out []string
	for _, t := range ElementTypes {
		if vp.elements[t.Class] {
			out = append(out, t.Class)
		}
	}
	return out
}
