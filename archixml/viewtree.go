package archixml

import "github.com/archiplan/archiplan/archixml/internal/diagram"

// Diagram is the tree of a view's diagram objects and connections that diagram.Parse reads from
// XML(), made from the model's own tree: archixml's sub-packages that walk a view (the exchange
// writer) have it without the view written and read again.
func (o Object) Diagram() *diagram.Node { return diagram.FromElement(o.e) }
