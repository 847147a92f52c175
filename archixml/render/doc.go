// Package render draws an ArchiMate view as SVG the way Archi shows it.
//
// Every diagram object is drawn at the absolute bounds Archi stores for it (nested objects at their
// parent's position plus their own, Archi's default size where a bound is -1), as the ArchiMate
// figure of its element type: the box with the type's notation icon (the diagram object's `type`
// attribute 0), or the alternate figure (type 1). Fills follow Archi's classic defaults per layer
// unless the model sets fillColor; lineColor, fontColor, font, alpha, lineWidth, textAlignment and
// textPosition are the model's where set. Groups, notes, diagram references and junctions are
// drawn as Archi draws them. Connections run between object borders through their bendpoints
// (placed by Archi's weighted mix of source and target centres), with each relationship type's
// line style and ends, and their names.
//
// The drawing is made for people and tools alike: each drawn object is an SVG group carrying its
// diagram object's id (data-id), its kind (data-kind) and its absolute bounds (data-x, data-y,
// data-w, data-h), so tests and review tools can find it. Every text a model holds is escaped:
// no name, note or property can add markup or script to the SVG. The same model gives the same
// bytes.
package render

//go:generate go run gen_metrics.go
