package query

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

func typeError(name string) error {
	return fmt.Errorf("%w: %q is no ArchiMate element or relationship type (write it as Archi or jArchi does: BusinessActor, \"Business Actor\")", ErrUnknownType, name)
}

// End is one end of an allowed question: a type, or an element of the model.
type End struct {
	Type    string `json:"type"`
	Class   string `json:"class"`
	Element *Ref   `json:"element,omitempty"`
}

// AllowedResult lists the relationships the ArchiMate 3.2 table (Archi's relationships.xml)
// allows from Source to Target. Where an end is a junction of the model, the junction rules hold
// too (one relationship type per junction; what reaches it must be allowed to what it reaches):
// Refused says why each type the table allows is refused there.
type AllowedResult struct {
	FormatVersion string            `json:"format_version"`
	Source        End               `json:"source"`
	Target        End               `json:"target"`
	Relationships []string          `json:"relationships"`
	Refused       map[string]string `json:"refused,omitempty"`
}

func end(m *archixml.Model, s string) (End, error) {
	if o, ok := m.Object(s); ok {
		if o.Kind() != archixml.KindElement {
			return End{}, fmt.Errorf("%w: %q is a %s; allowed takes element types or elements", ErrWrongKind, s, o.Kind())
		}
		r := RefOf(o)
		return End{Type: r.Type, Class: o.Class(), Element: &r}, nil
	}
	t := archixml.LookupType(s)
	if t == nil {
		t = archixml.LookupType(strings.ReplaceAll(s, " ", ""))
	}
	if t == nil || t.IsRelationship() {
		return End{}, typeError(s)
	}
	return End{Type: t.Label, Class: t.Class}, nil
}

// Allowed answers which relationships may join source to target (types or ids).
func Allowed(m *archixml.Model, source, target string) (*AllowedResult, error) {
	s, err := end(m, source)
	if err != nil {
		return nil, err
	}
	t, err := end(m, target)
	if err != nil {
		return nil, err
	}
	res := &AllowedResult{FormatVersion: FormatVersion, Source: s, Target: t, Relationships: []string{}}
	for _, class := range archixml.Relationships().AllowedTypes(s.Class, t.Class) {
		label := archixml.RelationshipType(class).Label
		if s.Element != nil && t.Element != nil {
			if err := m.CheckJunction(class, s.Element.ID, t.Element.ID); err != nil {
				if res.Refused == nil {
					res.Refused = map[string]string{}
				}
				msg := err.Error()
				if errors.Is(err, archixml.ErrNotAllowed) {
					msg = strings.TrimSuffix(msg, ": "+archixml.ErrNotAllowed.Error())
				}
				res.Refused[label] = msg
				continue
			}
		}
		res.Relationships = append(res.Relationships, label)
	}
	sort.Strings(res.Relationships)
	return res, nil
}
