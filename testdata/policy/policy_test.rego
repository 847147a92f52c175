# The policy's own tests: archiplan policy test runs them (OPA's convention).
package archiplan.owner_test

import data.archiplan.flows
import data.archiplan.owner

component(props) := {"kind": "created", "object": {"id": "id-1", "kind": "element", "type": "ApplicationComponent", "name": "Portal", "folder": "Application", "properties": props}}

test_component_without_owner_denied if {
	some f in owner.deny with input as {"changes": [component([])]}
	f.rule == "component-owner"
}

test_component_with_owner_allowed if {
	count(owner.deny) == 0 with input as {"changes": [component([{"key": "owner", "value": "Sales IT"}])]}
}

test_flow_between_layers_denied if {
	flow := {"kind": "created", "object": {"id": "id-2", "kind": "relationship", "type": "FlowRelationship", "name": "",
		"source": {"id": "a", "type": "BusinessProcess", "name": "Rent", "layer": "Business"},
		"target": {"id": "b", "type": "ApplicationComponent", "name": "App", "layer": "Application"}}}
	count(flows.deny) == 1 with input as {"changes": [flow]}
}
