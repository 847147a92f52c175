# A required property per type: every Business Service has an "sla", every Node an "environment".
package archiplan.required

required := {
	"BusinessService": "sla",
	"Node": "environment",
}

deny contains {
	"rule": "required-property",
	"message": sprintf("%s %q has no %q property", [c.object.type, c.object.name, key]),
	"fix": sprintf("set_property %s on it", [key]),
	"object": c.object.id,
} if {
	some c in input.changes
	c.kind in {"created", "changed"}
	key := required[c.object.type]
	not has(c.object, key)
}

has(o, key) if {
	some p in o.properties
	p.key == key
}
