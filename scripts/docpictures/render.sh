#!/bin/sh
# Redraws the render pictures of docs/render-and-diff.md from the golden
# view archixml/render/testdata/showcase.svg (regenerate that first with
# `go test ./archixml/render -run Showcase -update` when the drawing changes).
# Each picture is one horizontal band of the showcase, cut by its viewBox and
# drawn by rsvg-convert:
#   render-figures.png        y 10..715   the box figures of every element type
#   render-alternate.png      y 715..1315 the alternate figures (type="1")
#   render-relationships.png  y 1315..2210 relationships, nesting, notes, groups
# Usage (from the module root): sh scripts/docpictures/render.sh
set -eu
svg=archixml/render/testdata/showcase.svg
band() { # NAME Y HEIGHT
	sed -e '1s/height="[0-9.]*" viewBox="[0-9. -]*"/height="'"$3"'" viewBox="10 '"$2"' 1260 '"$3"'"/' \
		"$svg" | rsvg-convert -o "docs/$1.png"
}
head -1 "$svg" | grep -q 'width="1260" height="2200" viewBox="10 10 1260 2200"' ||
	{ echo "showcase.svg is no longer 1260 x 2200 from (10,10): check the bands" >&2; exit 1; }
band render-figures 10 705
band render-alternate 715 600
band render-relationships 1315 895
