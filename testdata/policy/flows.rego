# A plan may not add a Flow between layers.
package archiplan.flows

deny contains {
	"rule": "flow-within-layer",
	"message": sprintf("a Flow from %s %q to %s %q crosses layers", [r.source.layer, r.source.name, r.target.layer, r.target.name]),
	"fix": "model the exchange between layers with Serving or Realization, or flow between elements of one layer",
	"object": r.id,
} if {
	some c in input.changes
	c.kind == "created"
	r := c.object
	r.type == "FlowRelationship"
	r.source.layer != r.target.layer
}
