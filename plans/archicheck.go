package plans

import (
	"fmt"
	"sort"

	"github.com/archiplan/archiplan/archixml"
)

// What Archi's validator (the "hammer" plug-in, com.archimatetool.hammer.validation) reports about a
// model, written from its checkers: `archiplan check` runs them on the model, and a preview runs
// them on what a plan adds. Each has a stable code.
const (
	ArchiInvalidRelationship Code = "ARCHI_INVALID_RELATIONSHIP"
	ArchiUnusedElement       Code = "ARCHI_UNUSED_ELEMENT"
	ArchiUnusedRelationship  Code = "ARCHI_UNUSED_RELATIONSHIP"
	ArchiEmptyView           Code = "ARCHI_EMPTY_VIEW"
	ArchiViewpoint           Code = "ARCHI_VIEWPOINT"
	ArchiNesting             Code = "ARCHI_NESTING"
	ArchiDuplicateElement    Code = "ARCHI_DUPLICATE_ELEMENT"
	ArchiJunctionTypes       Code = "ARCHI_JUNCTION_TYPES"
)

// Advice is the mildest of Archi's three severities (error, warning, advice).
const Advice Severity = "advice"

// ArchiCheck is one of Archi's checkers: its code here, its class in Archi, the severity Archi
// gives its issues, and what it finds.
type ArchiCheck struct {
	Code     Code     `json:"code"`
	Archi    string   `json:"archi"`
	Severity Severity `json:"severity"`
	Meaning  string   `json:"meaning"`
}

// ArchiChecks are Archi's checkers, in the order its Validator runs them.
var ArchiChecks = []ArchiCheck{
	{ArchiInvalidRelationship, "InvalidRelationsChecker", Error, "a relationship the ArchiMate 3.2 table does not allow between its ends' types"},
	{ArchiUnusedElement, "UnusedElementsChecker", Warning, "an element on no view"},
	{ArchiUnusedRelationship, "UnusedRelationsChecker", Warning, "a relationship on no view"},
	{ArchiEmptyView, "EmptyViewsChecker", Advice, "a view with nothing on it"},
	{ArchiViewpoint, "ViewpointChecker", Warning, "an element on a view whose viewpoint does not allow its type (the message names the viewpoint as Archi shows it)"},
	{ArchiNesting, "NestedElementsChecker", Advice, "an element drawn inside another with no composition, aggregation, assignment, realization, specialization or access relationship between them (or one the wrong way round)"},
	{ArchiDuplicateElement, "DuplicateElementChecker", Warning, "two or more elements of one type with the same name (junctions aside)"},
	{ArchiJunctionTypes, "JunctionsChecker", Error, "a junction joining relationships of different types"},
}

func init() {
	for _, c := range ArchiChecks {
		// in a plan's preview they are warnings about what the plan adds
		Codes = append(Codes, struct {
			Code     Code
			Severity Severity
			Meaning  string
		}{c.Code, Warning, "Archi's validator would report what the plan adds: " + c.Meaning})
	}
}

// ModelFinding is one issue Archi's validator would list: the object it is about (a diagram
// object's view too) and Archi's words.
type ModelFinding struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Object   string   `json:"object"`
	Name     string   `json:"name,omitempty"`
	Type     string   `json:"type,omitempty"`
	View     string   `json:"view,omitempty"`
}

func archiSeverity(c Code) Severity {
	for _, a := range ArchiChecks {
		if a.Code == c {
			return a.Severity
		}
	}
	return Warning
}

func typeLabel(o archixml.Object) string {
	if t := o.Type(); t != nil {
		return t.Label
	}
	return o.Class()
}

func finding(c Code, o archixml.Object, view string, format string, args ...any) ModelFinding {
	return ModelFinding{Code: c, Severity: archiSeverity(c), Message: fmt.Sprintf(format, args...), Object: o.ID(),
		Name: o.Name(), Type: typeLabel(o), View: view}
}

// nestingTypes are the relationships that may be shown by drawing one element inside another.
var nestingTypes = map[string]bool{"CompositionRelationship": true, "AggregationRelationship": true, "AssignmentRelationship": true,
	"RealizationRelationship": true, "SpecializationRelationship": true, "AccessRelationship": true}

// ValidateModel runs Archi's checkers on a model, as its Validator does, and returns what they find
// ordered by severity (errors first), code and object.
func ValidateModel(m *archixml.Model) []ModelFinding {
	var out []ModelFinding
	elements, rels := m.Elements(), m.Relationships()
	var views []archixml.Object
	for _, v := range m.Views() {
		if v.Class() == "ArchimateDiagramModel" {
			views = append(views, v)
		}
	}
	onView := func(id string) bool { return onArchimateView(m, id) }
	table := archixml.Relationships()
	for _, r := range rels {
		s, sok := r.Source()
		t, tok := r.Target()
		if sok && tok && !table.Allowed(r.Class(), s.Class(), t.Class()) {
			out = append(out, finding(ArchiInvalidRelationship, r, "", "%s is not allowed between '%s' and '%s'", typeLabel(r), s.Name(), t.Name()))
		}
	}
	for _, e := range elements {
		if !onView(e.ID()) {
			out = append(out, finding(ArchiUnusedElement, e, "", "'%s' is not used in a View", e.Name()))
		}
	}
	for _, r := range rels {
		if !onView(r.ID()) {
			out = append(out, finding(ArchiUnusedRelationship, r, "", "'%s' is not used in a View", relLabel(m, r)))
		}
	}
	for _, v := range views {
		if len(v.Children()) == 0 {
			out = append(out, finding(ArchiEmptyView, v, v.ID(), "'%s' is empty", v.Name()))
		}
	}
	for _, v := range views {
		out = append(out, viewFindings(m, v, nil)...)
	}
	type key struct{ class, name string }
	byName := map[key][]archixml.Object{}
	for _, e := range elements {
		if e.Class() != "Junction" {
			k := key{e.Class(), e.Name()}
			byName[k] = append(byName[k], e)
		}
	}
	for _, e := range elements {
		if d := byName[key{e.Class(), e.Name()}]; len(d) > 1 {
			out = append(out, finding(ArchiDuplicateElement, e, "", "The name '%s' is used more than once for the type '%s'.", e.Name(), typeLabel(e)))
		}
	}
	for _, e := range elements {
		if e.Class() != "Junction" {
			continue
		}
		first := ""
		for _, r := range m.RelationshipsOf(e.ID()) {
			if first != "" && r.Class() != first {
				out = append(out, finding(ArchiJunctionTypes, e, "", "'%s' has different relationship types", e.Name()))
				break
			}
			first = r.Class()
		}
	}
	SortModelFindings(out)
	return out
}

// SortModelFindings orders findings: errors, warnings, advice; then by code and object.
func SortModelFindings(fs []ModelFinding) {
	rank := map[Severity]int{Error: 0, Warning: 1, Advice: 2}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if rank[a.Severity] != rank[b.Severity] {
			return rank[a.Severity] < rank[b.Severity]
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		if a.View != b.View {
			return a.View < b.View
		}
		return a.Object < b.Object
	})
}

func relLabel(m *archixml.Model, r archixml.Object) string {
	if r.Name() != "" {
		return r.Name()
	}
	s, _ := r.Source()
	t, _ := r.Target()
	return fmt.Sprintf("%s relation (%s - %s)", typeLabel(r), s.Name(), t.Name())
}

// viewFindings are the viewpoint and nesting findings of one view; only is, when not nil, the
// diagram objects to report on (what a plan added).
func viewFindings(m *archixml.Model, v archixml.Object, only map[string]bool) []ModelFinding {
	var out []ModelFinding
	vp := archixml.ViewpointOf(v.Attr("viewpoint"))
	// connections between diagram objects, both ways
	between := map[[2]string][]archixml.Object{}
	for _, c := range v.Connections() {
		if r, ok := c.Concept(); ok && r.Kind() == archixml.KindRelationship {
			between[[2]string{c.SourceID(), c.TargetID()}] = append(between[[2]string{c.SourceID(), c.TargetID()}], r)
			between[[2]string{c.TargetID(), c.SourceID()}] = append(between[[2]string{c.TargetID(), c.SourceID()}], r)
		}
	}
	for _, d := range v.DiagramObjects() {
		e, ok := d.Concept()
		if !ok || e.Kind() != archixml.KindElement {
			continue
		}
		if (only == nil || only[d.ID()]) && !vp.Allows(e.Class()) {
			out = append(out, finding(ArchiViewpoint, d, v.ID(), "'%s' does not belong in '%s' (%s Viewpoint)", e.Name(), v.Name(), vp.Name))
			out[len(out)-1].Name, out[len(out)-1].Type = e.Name(), typeLabel(e)
		}
		p, ok := d.Parent()
		if !ok || p.Kind() != archixml.KindDiagramObject {
			continue
		}
		pe, ok := p.Concept()
		if !ok || pe.Kind() != archixml.KindElement || e.Class() == "Junction" {
			continue
		}
		if only != nil && !only[d.ID()] && !only[p.ID()] {
			continue
		}
		if nestedWithoutRelation(m, pe, e, between[[2]string{p.ID(), d.ID()}]) {
			f := finding(ArchiNesting, d, v.ID(), "'%s' is nested inside of '%s' but there is a non-nesting relationship between them or no relationship.", e.Name(), pe.Name())
			f.Name, f.Type = e.Name(), typeLabel(e)
			out = append(out, f)
		}
	}
	return out
}

// nestedWithoutRelation is Archi's rule: a connection drawn between the two that is not a nesting
// relationship (or runs from the child to the parent) is wrong; otherwise some nesting
// relationship between the two elements, either way, makes it right.
func nestedWithoutRelation(m *archixml.Model, parent, child archixml.Object, drawn []archixml.Object) bool {
	for _, r := range drawn {
		if !nestingTypes[r.Class()] {
			return true
		}
		if r.Class() == "SpecializationRelationship" {
			if r.TargetID() == child.ID() {
				return true
			}
		} else if r.SourceID() == child.ID() {
			return true
		}
	}
	for _, r := range m.RelationshipsOf(parent.ID()) {
		if (r.TargetID() == child.ID() || r.SourceID() == child.ID()) && nestingTypes[r.Class()] {
			return false
		}
	}
	return true
}

// archiFindings are the warnings Archi's validator would give about what the plan adds, run on
// the model as the plan leaves it: a new element or relationship on no view, a new view left
// empty, an element put on a view whose viewpoint does not allow it, a nesting without a
// relationship. An object the plan moves into another parent is judged as one it adds there
// (views: what the plan changes on views).
func (e *engine) archiFindings(views []ViewChange) []Finding {
	m := e.m
	var out []Finding
	warn := func(i int, mf ModelFinding) {
		f := newFinding(mf.Code, i, actionPointer(i, ""), mf.Name, "Archi's validator would say: %s", mf.Message)
		f.Severity = Warning
		out = append(out, f)
	}
	added := map[string]map[string]bool{} // view -> diagram objects the plan adds
	actionOf := map[string]int{}
	var viewOrder []string
	for _, r := range e.results {
		if r.Failed {
			continue
		}
		for _, id := range r.Created {
			o, ok := m.Object(id)
			if !ok {
				continue
			}
			actionOf[id] = r.Index
			switch o.Kind() {
			case archixml.KindElement, archixml.KindRelationship:
				shown := onArchimateView(m, id)
				if !shown && o.Kind() == archixml.KindElement {
					warn(r.Index, finding(ArchiUnusedElement, o, "", "'%s' is not used in a View", o.Name()))
				} else if !shown {
					warn(r.Index, finding(ArchiUnusedRelationship, o, "", "'%s' is not used in a View", relLabel(m, o)))
				}
			case archixml.KindView:
				if o.Class() == "ArchimateDiagramModel" && len(o.Children()) == 0 {
					warn(r.Index, finding(ArchiEmptyView, o, o.ID(), "'%s' is empty", o.Name()))
				}
			case archixml.KindDiagramObject:
				if v, ok := o.View(); ok && v.Class() == "ArchimateDiagramModel" {
					if added[v.ID()] == nil {
						added[v.ID()] = map[string]bool{}
						viewOrder = append(viewOrder, v.ID())
					}
					added[v.ID()][id] = true
				}
			}
		}
	}
	// what a delete or a removal took off its last view, and the plan does not draw again
	warned := map[string]bool{}
	for _, r := range e.results {
		if r.Failed {
			continue
		}
		ids := append([]string(nil), r.unviewed...)
		sort.Strings(ids)
		for _, id := range ids {
			o, ok := m.Object(id)
			if !ok || warned[id] || onArchimateView(m, id) {
				continue
			}
			warned[id] = true
			switch o.Kind() {
			case archixml.KindElement:
				warn(r.Index, finding(ArchiUnusedElement, o, "", "'%s' is not used in a View (this action takes it off the last view that showed it)", o.Name()))
			case archixml.KindRelationship:
				warn(r.Index, finding(ArchiUnusedRelationship, o, "", "'%s' is not used in a View (this action takes it off the last view that showed it)", relLabel(m, o)))
			}
		}
	}
	for _, c := range views {
		if c.What != ViewRenested {
			continue
		}
		if o, ok := m.Object(c.Object); !ok || o.Kind() != archixml.KindDiagramObject {
			continue
		}
		if added[c.View] == nil {
			added[c.View] = map[string]bool{}
			viewOrder = append(viewOrder, c.View)
		}
		added[c.View][c.Object] = true
		actionOf[c.Object] = c.Action
	}
	for _, vid := range viewOrder {
		v, _ := m.Object(vid)
		for _, mf := range viewFindings(m, v, added[vid]) {
			i, ok := actionOf[mf.Object]
			if !ok {
				continue
			}
			warn(i, mf)
		}
	}
	return out
}

// onArchimateView says whether an ArchiMate view shows the concept id.
func onArchimateView(m *archixml.Model, id string) bool {
	for _, ref := range m.ReferencesTo(id) {
		if v, ok := ref.View(); ok && v.Class() == "ArchimateDiagramModel" {
			return true
		}
	}
	return false
}
