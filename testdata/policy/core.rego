# Deleting anything in Business/Core needs two approvals, one from the business architects.
package archiplan.core

in_core(o) if o.folder == "Business/Core"

in_core(o) if startswith(o.folder, "Business/Core/")

core_deletes := [c.object.name | some c in input.changes; c.kind == "deleted"; in_core(c.object)]

approval contains {
	"rule": "core-delete",
	"count": 2,
	"message": sprintf("deletes %s in Business/Core", [concat(", ", core_deletes)]),
} if count(core_deletes) > 0

approval contains {
	"rule": "core-delete-architects",
	"count": 1,
	"from": ["group:business-architects"],
	"message": "one of the two approvals of a delete in Business/Core is a business architect's",
} if count(core_deletes) > 0
