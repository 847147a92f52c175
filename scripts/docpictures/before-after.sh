#!/bin/sh
# Redraws docs/render-before-after.png: the pictures a plan's preview draws for the example
# model's view (`archiplan preview`, cropped to what changes), before and after side by side.
# The plan renames Rental Desk, deletes Customer File (drawn faint before) and adds Bike
# Mechanic assigned to Rent a Bike. Needs go and rsvg-convert.
# Usage (from the module root): sh scripts/docpictures/before-after.sh
set -eu
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/archiplan" ./cmd/archiplan
cd "$tmp"
./archiplan init ws >/dev/null
cd ws
cat >plans/desk.json <<'PLAN'
{"schema_version": "3.0", "status": "ready", "summary": "A mechanic fixes bikes at the front desk",
 "actions": [
  {"op": "rename_element", "element_id": "id-37914ef915915bd2606e2c7216356e27", "new_name": "Front Desk"},
  {"op": "delete_element", "element_id": "id-ab919f099d5163aef346998a70273e9f"},
  {"op": "create_element", "type": "BusinessRole", "name": "Bike Mechanic", "ref_id": "mech"},
  {"op": "create_relationship", "source_id": "mech", "target_id": "id-5baa76a88c8ebc28c7736f8ee77eb30a", "relationship_type": "AssignmentRelationship"},
  {"op": "add_to_view", "view_id": "id-8ec058ffdd586dec87035fe47b31819a", "element_id": "mech", "x": 300, "y": 110}
 ]}
PLAN
"$tmp/archiplan" preview plans/desk.json >/dev/null 2>&1
before=plans/desk.view-1.before.svg after=plans/desk.view-1.after.svg
w=$(sed -n '1s/.* width="\([0-9]*\)".*/\1/p' "$before")
h=$(sed -n '1s/.* height="\([0-9]*\)".*/\1/p' "$before")
gap=24
{
	echo "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"$((2 * w + gap))\" height=\"$((h + 24))\" font-family=\"Liberation Sans, Arial, Helvetica, sans-serif\">"
	echo "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"
	echo "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">before</text>"
	echo "<text x=\"$((w + gap + 4))\" y=\"16\" font-size=\"13\" font-weight=\"bold\">after</text>"
	sed '1s/<svg /<svg x="0" y="24" /' "$before"
	sed '1s/<svg /<svg x="'$((w + gap))'" y="24" /' "$after"
	echo "</svg>"
} | rsvg-convert -o "$root/docs/render-before-after.png"
