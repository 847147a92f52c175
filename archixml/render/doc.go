// Package render draws an ArchiMate view as SVG the way Archi shows it.
//
// Every diagram object is drawn at the absolute bounds Archi stores for it (nested objects at their
// parent's position plus their own, Archi's default size where a bound is -1), as the ArchiMate
// figure of its element type: the box with the type's notation icon (the diagram object's `type`
// attribute 0), or the alternate figure (type 1). Fills follow Archi's classic defaults per layer
// unless the model sets fillColor; every outline is derived from the fill as Archi derives it
// (70 %) unless deriveElementLineColor is false; lineColor, lineStyle, fontColor, font, alpha,
// lineWidth, textAlignment and textPosition are the model's where set. Each icon is drawn where
// and as Archi's figure class draws it (its getIconOrigin and its strokes), and the label keeps
// clear of it by the figure's icon offset. Groups (tabbed or not), Groupings (a dashed rectangle
// with their icon unless type 1), notes (the 13 px corner), diagram references, junctions (AND
// filled, OR hollow), the alternate Application Component (fixed tabs), the 3D Node (its top
// and side shaded darker) and the alternate figures Archi draws over the whole box (objects,
// contracts and products with their 12 px bands, functions, artifacts, devices, requirements,
// constraints, values, stakeholders, value streams; interactions, principles and meanings in the
// part of the box Archi's getFigurePositionFromTextPosition gives them) are drawn as Archi draws
// them, in its integer arithmetic. Connections run between object borders
// through their bendpoints (placed by Archi's weighted mix of source and target centres), with each
// relationship type's line style and ends as Archi's connection figures draw them (draw2d's
// decorations at Archi's scales: arrowheads 7 px, diamonds 20, realization and access dotted),
// and their names: in the middle (the middle point, or the middle of the middle segment) or near
// an end as draw2d's locators place them, the line clipped behind the label, as Archi's default
// label strategy does. Their ends are where Archi's
// orthogonal anchor (its default) puts them: straight down or across the middle of where two
// boxes overlap in x or y, corner to corner where they overlap in neither, straight towards a
// bendpoint within the box's span (a junction: on its circle, towards the other end). The second
// and later straight connections between the same two ends fan out 10 px apart, alternately
// either side, as Archi's FanRouter does, so that none is drawn on another. A connection Archi hides is not drawn:
// with Archi's default preferences, one between a diagram object and the object it sits in
// directly, and one whose source (else target) is such a connection
// (DiagramModelUtils.shouldBeHiddenConnection). On a view whose router is Manhattan, the
// bendpoints are unused and each connection is routed as draw2d's ManhattanConnectionRouter
// routes it between the same anchors: out of each box perpendicular to the side its end lies on,
// turning halfway between the ends (or 10 px out of a box when the other end lies behind it),
// its middle segments moved 2 px at a time off the rows and columns the view's earlier
// connections use.
//
// Labels are measured with the advance widths of Liberation Sans (metric-compatible with Arial),
// generated from Debian's fonts-liberation into metrics_table.go by gen_metrics.go, and the SVG
// names that font, so a label breaks where it is drawn: at spaces and after a hyphen inside a
// word, as Archi's text flow does, a word wider than the line broken where it overflows, within Archi's text margin (4 px; a note's
// 5 px), lines that do not fit the box left out.
//
// What still differs from Archi, and why:
//   - Archi measures with the system's font (Segoe UI 9 pt on Windows, the desktop's "Sans" on
//     Linux); Liberation Sans is close to Segoe UI but not the same, so a label near the limit may
//     break one word earlier or later than Archi breaks it on a given machine. A font the model
//     names is drawn in that font but still measured with Liberation Sans.
//   - Icons are drawn with SVG's anti-aliased strokes where SWT rasterises integer coordinates:
//     the same shapes, edges half a pixel apart.
//   - The alternate figures of the pictogram types (actor, collaboration, interface, equipment,
//     ...) keep the pictogram in proportion with the label below, close to but not exactly
//     Archi's getFigurePositionFromTextPosition.
//   - Images on objects (Archi's iconic delegate), gradients and the legend figure are not drawn;
//     label expressions are expanded for the common forms only (${name}, ${type},
//     ${documentation}, ${property:key}).
//   - Archi's Manhattan router keeps its rows and columns as connections are routed and
//     re-routed while a person works; here they are taken once, in the order the view stores
//     the connections, so where two lines compete for a row the one moved may differ. Like
//     Archi, two connections between the same boxes side by side are drawn on one line under
//     Manhattan (the router moves only middle segments). Line jumps and curves (Archi's
//     preferences, off by default) are drawn only when Prefs asks for them.
//
// The drawing is made for people and tools alike: each drawn object is an SVG group carrying its
// diagram object's id (data-id), its kind (data-kind) and its absolute bounds (data-x, data-y,
// data-w, data-h), so tests and review tools can find it. Every text a model holds is escaped:
// no name, note or property can add markup or script to the SVG. The same model gives the same
// bytes. A picture cropped to some objects (Options.Focus) leaves out what lies wholly outside it.
package render

//go:generate go run gen_metrics.go
