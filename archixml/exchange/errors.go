package exchange

import (
	"fmt"
	"strings"
)

// The codes of what makes an exchange file one Import refuses. They are stable, listed in the
// README's table, and never reused.
const (
	CodeMalformed    = "EXCHANGE_MALFORMED"      // not well-formed XML, a DOCTYPE, not UTF-8, too large
	CodeNotExchange  = "EXCHANGE_NOT_EXCHANGE"   // the root is not the format's <model> in its namespace
	CodeSchema       = "EXCHANGE_SCHEMA"         // what archimate3_Diagram.xsd forbids: an element or attribute missing, unknown or misplaced, a bad value
	CodeUnknownType  = "EXCHANGE_UNKNOWN_TYPE"   // an element, relationship, node or connection type the format or Archi does not know
	CodeDanglingRef  = "EXCHANGE_DANGLING_REF"   // a reference to an identifier the file does not hold
	CodeWrongRef     = "EXCHANGE_REF_WRONG_KIND" // a reference to the wrong kind of thing (a node's elementRef to a relationship, ...)
	CodeDuplicateID  = "EXCHANGE_DUPLICATE_ID"   // an identifier used twice
	CodeRelForbidden = "EXCHANGE_REL_NOT_ALLOWED"
	CodeLimit        = "EXCHANGE_LIMIT"       // over a bound every import keeps: elements nested deeper than MaxDepth, more than MaxElements elements, more attributes on one element than a model may have
	CodeUnsupported  = "EXCHANGE_UNSUPPORTED" // what Archi cannot hold (a line joining two ArchiMate nodes, a connection whose ends do not show its relationship's ends, ...)
)

// Codes says what each code means, for the reference (docs/reference/codes.md).
var Codes = []struct{ Code, Meaning string }{
	{CodeMalformed, "the file is not well-formed XML (or not UTF-8, holds a DOCTYPE, or is over the size limit); the line says where"},
	{CodeNotExchange, "the root is not the Exchange Format's `<model>` in `http://www.opengroup.org/xsd/archimate/3.0/` (another namespace, an Archi file)"},
	{CodeSchema, "what `archimate3_Diagram.xsd` forbids: an element not allowed where it is or out of order, an attribute missing or unknown, an identifier that is not an XML name, a number out of range"},
	{CodeUnknownType, "an element, relationship, view, node or connection type that is not the format's or Archi's"},
	{CodeDanglingRef, "a reference (relationship end, `elementRef`, `relationshipRef`, a connection's source or target, `viewRef`, `propertyDefinitionRef`, `identifierRef`) to an identifier the file does not hold"},
	{CodeWrongRef, "a reference to the wrong kind of thing (a node's `elementRef` to a relationship, a connection's end on another view, a relationship connection to a group or note)"},
	{CodeDuplicateID, "an identifier used twice; the message names the first use's line"},
	{CodeRelForbidden, "the ArchiMate 3.2 relationship table does not allow the relationship between its ends' types (`--allow-forbidden` accepts it, as Archi does)"},
	{CodeUnsupported, "what Archi cannot hold: a line between two ArchiMate nodes, to or from a connection, or without both ends; a connection whose ends do not show its relationship's ends"},
}

// Problem is one thing wrong with an exchange file, at a line of it.
type Problem struct {
	Code    string
	Line    int
	Message string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", p.Line, p.Code, p.Message)
	}
	return p.Code + ": " + p.Message
}

// ImportError is every problem Import found in a file; nothing was made of it.
type ImportError struct {
	Problems []Problem
}

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "not imported, %d problem(s):", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Has reports whether a problem of the code was found.
func (e *ImportError) Has(code string) bool {
	for _, p := range e.Problems {
		if p.Code == code {
			return true
		}
	}
	return false
}
