// Package query is the read side of a model: search, show (with what a delete or a change would
// touch), allowed relationships, views, folders, stats and Archi's checks. The command line and the
// MCP server both answer from here, so a person and an agent see the same thing. Every result is a
// JSON-ready value whose shape the README documents; FormatVersion versions them.
package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/archiplan/archiplan/archixml"
)

// FormatVersion versions the JSON shapes of this package's results.
const FormatVersion = "1"

var (
	// ErrNotFound means an id is no object of the model.
	ErrNotFound = errors.New("REF_NOT_FOUND")
	// ErrWrongKind means an id names an object the query does not take.
	ErrWrongKind = errors.New("REF_WRONG_KIND")
	// ErrBadID means an id was given as neither a string nor a whole number.
	ErrBadID = errors.New("BAD_ID")
	// ErrUnknownType means a name is no ArchiMate element or relationship type.
	ErrUnknownType = errors.New("UNKNOWN_TYPE")
)

// ID turns an id given as a JSON string or number (Archi 2 models have numeric ids such as 580)
// into the id the model holds.
func ID(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("%w: %v is not a whole number", ErrBadID, x)
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case json.Number:
		return x.String(), nil
	case nil:
		return "", fmt.Errorf("%w: no id given", ErrBadID)
	default:
		return "", fmt.Errorf("%w: an id is a string or a number, not %T", ErrBadID, v)
	}
}

// Ref is an object named in a result: id, name, type as jArchi writes it, folder path.
type Ref struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Type   string `json:"type,omitempty"`
	Folder string `json:"folder,omitempty"`
	Source string `json:"source,omitempty"`
	Target string `json:"target,omitempty"`
}

// RefOf names an object.
func RefOf(o archixml.Object) Ref {
	r := Ref{ID: o.ID(), Kind: o.Kind().String(), Name: o.Name(), Folder: o.FolderPath()}
	if t := o.Type(); t != nil {
		r.Type = t.Label
	} else if o.Kind() == archixml.KindView {
		r.Type = viewKind(o)
	}
	if o.Kind() == archixml.KindRelationship {
		r.Source, r.Target = o.SourceID(), o.TargetID()
	}
	return r
}

func viewKind(v archixml.Object) string {
	switch v.Class() {
	case "SketchModel":
		return "Sketch"
	case "CanvasModel":
		return "Canvas"
	}
	return "ArchiMate View"
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
