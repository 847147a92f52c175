# A naming convention: element names start with a capital letter and hold no double spaces.
package archiplan.naming

warn contains {
	"rule": "name-capitalised",
	"message": sprintf("%s %q does not start with a capital letter", [c.object.type, c.object.name]),
	"fix": "rename it: \"Customer Portal\", not \"customer portal\"",
	"object": c.object.id,
} if {
	some c in input.changes
	c.kind in {"created", "changed"}
	c.object.kind == "element"
	c.object.type != "Junction"
	not regex.match(`^[A-Z0-9]`, c.object.name)
}

warn contains {
	"rule": "name-single-spaces",
	"message": sprintf("%q holds two spaces in a row", [c.object.name]),
	"fix": "rename it with single spaces",
	"object": c.object.id,
} if {
	some c in input.changes
	c.kind in {"created", "changed"}
	contains(c.object.name, "  ")
}
