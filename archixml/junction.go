package archixml

import (
	"fmt"
	"sort"
	"strings"
)

// JunctionTypes are the relationship types a junction may join (ArchiMate 3.2, 5.5.1): the
// dynamic and dependency relationships, and assignment and realization.
var JunctionTypes = map[string]bool{
	"TriggeringRelationship": true, "FlowRelationship": true,
	"ServingRelationship": true, "AccessRelationship": true, "InfluenceRelationship": true, "AssociationRelationship": true,
	"AssignmentRelationship": true, "RealizationRelationship": true,
}

// CheckJunction applies the junction rules to a relationship of class rel from sourceID to
// targetID that is about to be made, where either end is a junction: the type must be one a
// junction joins; every relationship at the junction must be of that one type; and each element
// that reaches the junction must be allowed that relationship to each element the junction
// reaches, as if the junction were not there. It returns nil when no end is a junction.
func (m *Model) CheckJunction(rel, sourceID, targetID string) error {
	for _, end := range []string{sourceID, targetID} {
		j, ok := m.Object(end)
		if !ok || j.Class() != "Junction" {
			continue
		}
		if !JunctionTypes[rel] {
			return fmt.Errorf("a junction joins only triggering, flow, serving, access, influence, association, assignment and realization, not %s: %w",
				relationshipByClass[rel].Label, ErrNotAllowed)
		}
		var ins, outs []Object // elements reaching the junction, and those it reaches
		for _, r := range m.RelationshipsOf(end) {
			if r.Class() != rel {
				return fmt.Errorf("junction %q already joins %s relationships (%s); all relationships at a junction are of one type: %w",
					j.Name(), r.Type().Label, r.ID(), ErrNotAllowed)
			}
			if r.TargetID() == end {
				if s, ok := r.Source(); ok {
					ins = append(ins, s)
				}
			} else if t, ok := r.Target(); ok {
				outs = append(outs, t)
			}
		}
		if end == targetID {
			if s, ok := m.Object(sourceID); ok {
				ins = append(ins, s)
			}
		} else if t, ok := m.Object(targetID); ok {
			outs = append(outs, t)
		}
		var bad []string
		for _, s := range ins {
			for _, t := range outs {
				if s.Class() == "Junction" || t.Class() == "Junction" {
					continue // chained junctions: each is checked when its own relationships are made
				}
				if !relationshipTable().Allowed(rel, s.Class(), t.Class()) {
					bad = append(bad, fmt.Sprintf("%s %q to %s %q", TypeWords(s.Class()), s.Name(), TypeWords(t.Class()), t.Name()))
				}
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			return fmt.Errorf("through junction %q, %s would join %s, which ArchiMate 3.2 does not allow: %w",
				j.Name(), relationshipByClass[rel].Label, strings.Join(bad, "; "), ErrNotAllowed)
		}
	}
	return nil
}
