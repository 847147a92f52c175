# No Application Component without an owner property.
package archiplan.owner

deny contains {
	"rule": "component-owner",
	"message": sprintf("Application Component %q has no owner property", [c.object.name]),
	"fix": "set_property owner on it (the team that runs it)",
	"object": c.object.id,
} if {
	some c in input.changes
	c.kind in {"created", "changed"}
	c.object.type == "ApplicationComponent"
	not has_owner(c.object)
}

has_owner(o) if {
	some p in o.properties
	p.key == "owner"
	trim_space(p.value) != ""
}
