package render

import (
	"github.com/archiplan/archiplan/archixml"
)

// Archi's classic default fills (AbstractArchimateElementUIProvider and the UI providers of the
// diagram's own objects).
const (
	fillBusiness    = "#ffffb5"
	fillApplication = "#b5ffff"
	fillTechnology  = "#c9e7b7"
	fillMotivation  = "#ccccff"
	fillStrategy    = "#f5deaa"
	fillImplMig     = "#ffe0e0"
	fillLocation    = "#edcfe2"
	fillGroup       = "#d2d7d7"
	fillReference   = "#dcebeb"
	fillWhite       = "#ffffff"
	lineDefault     = "#5c5c5c"
)

// DefaultFill is Archi's default fill colour for a diagram object of the class.
func DefaultFill(class string) string {
	switch class {
	case "Location":
		return fillLocation
	case "Grouping":
		return fillWhite
	case "Junction":
		return "#000000"
	case "Group", "DiagramModelGroup":
		return fillGroup
	case "DiagramModelReference":
		return fillReference
	case "SketchModelSticky":
		return "#fffff0"
	}
	t := archixml.ElementType(class)
	if t == nil {
		return fillWhite
	}
	switch t.Folder {
	case archixml.FolderBusiness:
		return fillBusiness
	case archixml.FolderApplication:
		return fillApplication
	case archixml.FolderTechnology:
		return fillTechnology
	case archixml.FolderMotivation:
		return fillMotivation
	case archixml.FolderStrategy:
		return fillStrategy
	case archixml.FolderImplementation:
		return fillImplMig
	}
	return fillWhite
}

// boxShape is the figure of type 0: Archi's rectangle, rounded rectangle (behaviour, strategy) or
// bevelled box (motivation), with the type's icon.
func boxShape(class string) string {
	switch class {
	case "BusinessProcess", "ApplicationProcess", "TechnologyProcess",
		"BusinessFunction", "ApplicationFunction", "TechnologyFunction",
		"BusinessInteraction", "ApplicationInteraction", "TechnologyInteraction",
		"BusinessEvent", "ApplicationEvent", "TechnologyEvent", "ImplementationEvent",
		"BusinessService", "ApplicationService", "TechnologyService",
		"Capability", "CourseOfAction", "ValueStream", "WorkPackage":
		return "round"
	case "Stakeholder", "Driver", "Assessment", "Goal", "Outcome", "Principle", "Requirement",
		"Constraint", "Meaning", "Value":
		return "bevel"
	}
	return "rect"
}

// iconOf names the notation icon of a class (and the shape its alternate figure takes).
var iconOf = map[string]string{
	"BusinessActor": "actor", "BusinessRole": "role", "Stakeholder": "stakeholder",
	"BusinessCollaboration": "collaboration", "ApplicationCollaboration": "collaboration", "TechnologyCollaboration": "collaboration",
	"BusinessInterface": "interface", "ApplicationInterface": "interface", "TechnologyInterface": "interface",
	"BusinessProcess": "process", "ApplicationProcess": "process", "TechnologyProcess": "process",
	"BusinessFunction": "function", "ApplicationFunction": "function", "TechnologyFunction": "function",
	"BusinessInteraction": "interaction", "ApplicationInteraction": "interaction", "TechnologyInteraction": "interaction",
	"BusinessEvent": "event", "ApplicationEvent": "event", "TechnologyEvent": "event", "ImplementationEvent": "event",
	"BusinessService": "service", "ApplicationService": "service", "TechnologyService": "service",
	"BusinessObject": "object", "DataObject": "object", "Contract": "contract",
	"Representation": "representation", "Deliverable": "deliverable", "Product": "product",
	"ApplicationComponent": "component", "Artifact": "artifact",
	"Node": "node", "Device": "device", "SystemSoftware": "systemsoftware",
	"Path": "path", "CommunicationNetwork": "network", "DistributionNetwork": "distribution",
	"Equipment": "equipment", "Facility": "facility", "Material": "material",
	"Resource": "resource", "Capability": "capability", "ValueStream": "valuestream", "CourseOfAction": "courseofaction",
	"Driver": "driver", "Assessment": "assessment", "Goal": "goal", "Outcome": "outcome", "Principle": "principle",
	"Requirement": "requirement", "Constraint": "constraint", "Meaning": "meaning", "Value": "value",
	"WorkPackage": "workpackage", "Plateau": "plateau", "Gap": "gap", "Location": "location",
	"DiagramModelReference": "reference",
}

// icons are the notation icons, drawn in a 15 x 12 box at the figure's top right corner. Each is
// SVG path data; "F" marks a part drawn filled in the icon colour.
var icons = map[string][]string{
	"actor":          {"M7.5 0.5a2 2 0 1 1 0 4a2 2 0 1 1 0 -4z", "M7.5 4.5v4.5M7.5 9l-3 3M7.5 9l3 3M4 6.5h7"},
	"role":           {"M4 1.5h7a2.5 4 0 0 1 0 8h-7a2.5 4 0 0 1 0 -8z", "M11 1.5a2.5 4 0 0 0 0 8"},
	"collaboration":  {"M5.5 1.5a4.5 4.5 0 1 1 0 9a4.5 4.5 0 1 1 0 -9z", "M9.5 1.5a4.5 4.5 0 1 1 0 9a4.5 4.5 0 1 1 0 -9z"},
	"interface":      {"M10.5 2a4 4 0 1 1 0 8a4 4 0 1 1 0 -8z", "M0.5 6h6"},
	"systemsoftware": {"M6.5 3a4.5 4.5 0 1 1 0 9a4.5 4.5 0 1 1 0 -9z", "M5 2.2a4.5 4.5 0 1 1 6.5 6.8"},
	"path":           {"M3.5 6h8", "M3.5 3l-3 3l3 3M11.5 3l3 3l-3 3"},
	"network":        {"M3 10.5l3 -8h8l-3 8z", "FM3 10.5m-1.5 0a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M6 2.5m-1.5 0a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M14 2.5m-1.5 0a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M11 10.5m-1.5 0a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0"},
	"distribution":   {"M1 4.5h13M1 7.5h13", "M3.5 2l-3 4l3 4M11.5 2l3 4l-3 4"},
	"equipment":      {"M5 4a3.5 3.5 0 1 1 0 7a3.5 3.5 0 1 1 0 -7z", "M11 0.5a2.5 2.5 0 1 1 0 5a2.5 2.5 0 1 1 0 -5z"},
	"facility":       {"M0.5 11.5v-11h2v6l4 -3v3l4 -3v3l4 -3v8z"},
	"material":       {"M4 1h7l3.5 5.5l-3.5 5.5h-7l-3.5 -5.5z", "M4.5 3.5h6M2.5 7.5l2 3M12.5 7.5l-2 3"},
	"resource":       {"M0.5 2.5h12v7h-12z", "M12.5 4.5h2v3h-2M3 4v4M5.5 4v4M8 4v4"},
	"capability":     {"M9.5 0.5h4v4h-4zM5.5 4.5h4v4h-4zM9.5 4.5h4v4h-4zM1.5 8.5h4v4h-4zM5.5 8.5h4v4h-4zM9.5 8.5h4v4h-4z"},
	"courseofaction": {"M9.5 1.5a4 4 0 1 1 0 8a4 4 0 1 1 0 -8z", "FM9.5 4a1.5 1.5 0 1 1 0 3a1.5 1.5 0 1 1 0 -3z", "M0.5 11.5l6 -4"},
	"driver":         {"M7.5 1a5 5 0 1 1 0 10a5 5 0 1 1 0 -10z", "M7.5 0v12M1.5 6h12M3.2 1.7l8.6 8.6M11.8 1.7l-8.6 8.6"},
	"assessment":     {"M9 0.5a4 4 0 1 1 0 8a4 4 0 1 1 0 -8z", "M6.2 7.3l-5.2 4.7"},
	"goal":           {"M7.5 0.5a5.5 5.5 0 1 1 0 11a5.5 5.5 0 1 1 0 -11z", "M7.5 3a3 3 0 1 1 0 6a3 3 0 1 1 0 -6z", "FM7.5 5a1 1 0 1 1 0 2a1 1 0 1 1 0 -2z"},
	"outcome":        {"M6.5 1.5a5 5 0 1 1 0 10a5 5 0 1 1 0 -10z", "M6.5 4a2.5 2.5 0 1 1 0 5a2.5 2.5 0 1 1 0 -5z", "M6.5 6.5l7 -6M11 0.5h2.5v2.5"},
	"workpackage":    {"M11.5 3a5 4.5 0 1 0 1 4", "M9 3h3v-3"},
	"plateau":        {"M4.5 2.5h10M2.5 6h10M0.5 9.5h10"},
	"gap":            {"M7.5 1.5a5 5 0 1 1 0 10a5 5 0 1 1 0 -10z", "M0.5 5h14M0.5 8h14"},
	"location":       {"M7.5 11.5l-4 -6a4.5 4.5 0 1 1 8 0z"},
	"reference":      {"M0.5 0.5h14v11h-14z", "M2.5 3h4v2.5h-4zM8.5 6.5h4v2.5h-4z", "M6.5 4.25h2v3.5"},
}
