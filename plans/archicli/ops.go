package archicli

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// fieldsOf are the fields each archicli op may carry (its BOM schema, and the server's own extras
// such as autoSwapDirection); a field outside them is refused as the peer's schema refuses it.
var fieldsOf = map[string][]string{
	"createElement":            {"type", "name", "tempId", "documentation", "folder", "properties"},
	"createOrGetElement":       {"create", "match", "onDuplicate"},
	"createRelationship":       {"type", "sourceId", "targetId", "tempId", "name", "documentation", "accessType", "strength", "properties"},
	"createOrGetRelationship":  {"create", "match", "onDuplicate"},
	"updateElement":            {"id", "name", "documentation", "properties"},
	"updateRelationship":       {"id", "name", "documentation", "properties"},
	"deleteElement":            {"id", "cascade"},
	"deleteRelationship":       {"id"},
	"setProperty":              {"id", "key", "value"},
	"moveToFolder":             {"id", "folderId"},
	"createFolder":             {"name", "tempId", "parentId", "parentType"},
	"addToView":                {"viewId", "elementId", "tempId", "parentVisualId", "x", "y", "width", "height", "autoNest"},
	"addConnectionToView":      {"viewId", "relationshipId", "sourceVisualId", "targetVisualId", "autoResolveVisuals", "tempId", "skipExistingConnections", "autoSwapDirection"},
	"nestInView":               {"viewId", "visualId", "parentVisualId", "x", "y"},
	"deleteConnectionFromView": {"viewId", "connectionId"},
	"styleViewObject":          {"viewObjectId", "fillColor", "fontColor", "fontStyle", "lineColor", "lineWidth", "opacity", "textAlignment", "textPosition", "font"},
	"styleConnection":          {"connectionId", "lineColor", "lineWidth", "font", "fontColor", "fontStyle", "textPosition"},
	"moveViewObject":           {"viewObjectId", "x", "y", "width", "height"},
	"createNote":               {"viewId", "content", "tempId", "x", "y", "width", "height"},
	"createGroup":              {"viewId", "name", "tempId", "documentation", "x", "y", "width", "height"},
	"createView":               {"name", "tempId", "documentation", "viewpoint", "folderId"},
	"deleteView":               {"viewId"},
	"duplicateView":            {"viewId", "name", "tempId"},
	"setViewRouter":            {"viewId", "routerType"},
	"layoutView":               {"viewId", "algorithm", "rankdir", "nodesep", "ranksep"},
}

// The defaults the peer's server applies to what a BOM leaves out, written out so that the plan
// makes what the peer makes.
const (
	objectX, objectY, objectW, objectH = 100, 100, 120, 55
	noteW, noteH                       = 185, 80
	groupW, groupH                     = 400, 300
	nestX, nestY                       = 10, 10
)

// accessTypes are the peer's integer access types (Archi's enum order).
var accessTypes = map[string]string{"0": "write", "1": "read", "2": "access", "3": "readwrite",
	"write": "write", "read": "read", "access": "access", "readwrite": "readwrite"}

// textAlignments and textPositions are Archi's integers for them.
var (
	textAlignments = map[string]string{"1": "left", "2": "center", "4": "right"}
	textPositions  = map[string]string{"0": "top", "1": "middle", "2": "bottom"}
)

// getter reads one change's fields, remembering the first problem.
type getter struct {
	c   *converter
	i   int
	op  string
	raw map[string]any
	err *Error
}

func (g *getter) failf(code Code, format string, args ...any) {
	if g.err == nil {
		g.err = g.c.fail(code, g.i, g.op, format, args...)
	}
}

func (g *getter) has(k string) bool { _, ok := g.raw[k]; return ok }

func (g *getter) str(k string) string {
	v, ok := g.raw[k]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		g.failf(CodeBadValue, "%s must be a string", k)
	}
	return s
}

func (g *getter) need(k string) string {
	if !g.has(k) {
		g.failf(CodeInvalid, "%s is missing", k)
		return ""
	}
	s := g.str(k)
	if s == "" {
		g.failf(CodeBadValue, "%s is empty", k)
	}
	return s
}

func (g *getter) integer(k string) (int, bool) {
	v, ok := g.raw[k]
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		g.failf(CodeBadValue, "%s must be an integer", k)
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		g.failf(CodeBadValue, "%s must be an integer", k)
		return 0, false
	}
	return int(i), true
}

func (g *getter) intOr(k string, def int) int {
	if n, ok := g.integer(k); ok {
		return n
	}
	return def
}

func (g *getter) boolean(k string) bool {
	v, ok := g.raw[k]
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		g.failf(CodeBadValue, "%s must be true or false", k)
	}
	return b
}

// ints appends to a the integer fields the change gives, each pair the peer's name and
// archiplan's.
func (g *getter) ints(a ordered, names ...string) ordered {
	for i := 0; i+1 < len(names); i += 2 {
		if n, ok := g.integer(names[i]); ok {
			a = append(a, kv{names[i+1], n})
		}
	}
	return a
}

// sub is a getter for a nested object (createOrGet*'s create and match).
func (g *getter) sub(k string) *getter {
	m, ok := g.raw[k].(map[string]any)
	if !ok {
		g.failf(CodeInvalid, "%s must be an object", k)
		m = map[string]any{}
	}
	return &getter{c: g.c, i: g.i, op: g.op, raw: m}
}

func (g *getter) unsupported(k, why string) {
	if g.has(k) {
		g.failf(CodeUnsupported, "%s: %s", k, why)
	}
}

// emit adds one action.
func (c *converter) emit(a ordered) { c.actions = append(c.actions, a) }

func (c *converter) convert(i int, ch change) error {
	op, _ := ch.raw["op"].(string)
	g := &getter{c: c, i: i, op: op, raw: ch.raw}
	allowed, known := fieldsOf[op]
	if !known {
		return c.fail(CodeUnknownOp, i, op, "archicli has no op %q", op)
	}
	var keys []string
	for k := range ch.raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "op" && !oneOf(k, allowed...) {
			return c.fail(CodeInvalid, i, op, "%s has no field %q", op, k)
		}
	}
	switch op {
	case "createElement":
		c.createElement(g, g, "")
	case "createOrGetElement":
		cr, match := g.sub("create"), g.sub("match")
		c.sameMatch(g, cr, match, "type", "name")
		c.createElement(g, cr, c.onDuplicate(g, "error", "reuse", "rename"))
	case "createRelationship":
		c.createRelationship(g, g, "create")
	case "createOrGetRelationship":
		cr, match := g.sub("create"), g.sub("match")
		c.sameMatch(g, cr, match, "type", "sourceId", "targetId", "accessType", "strength")
		c.createRelationship(g, cr, c.onDuplicate(g, "error", "reuse"))
	case "updateElement", "updateRelationship":
		c.update(g)
	case "deleteElement":
		if g.has("cascade") && !g.boolean("cascade") {
			g.failf(CodeUnsupported, "cascade false: archiplan deletes an element with its relationships and appearances, as Archi does")
		}
		c.emit(ordered{{"op", "delete_element"}, {"element_id", c.ref(g.need("id"))}})
	case "deleteRelationship":
		c.emit(ordered{{"op", "delete_relationship"}, {"relationship_id", c.ref(g.need("id"))}})
	case "setProperty":
		c.emit(ordered{{"op", "set_property"}, {"element_id", c.ref(g.need("id"))}, {"key", g.need("key")}, {"value", g.str("value")}})
	case "moveToFolder":
		g.failf(CodeUnsupported, "folderId: archiplan moves to a folder by its path (move_to_folder's folder_path), not by a folder's id")
	case "createFolder":
		c.createFolder(g)
	case "addToView":
		c.addToView(g)
	case "nestInView":
		c.emit(ordered{{"op", "move_view_object"}, {"object_id", c.ref(g.need("visualId"))}, {"parent_id", c.ref(g.need("parentVisualId"))},
			{"x", g.intOr("x", nestX)}, {"y", g.intOr("y", nestY)}})
	case "addConnectionToView":
		c.addConnection(g)
	case "deleteConnectionFromView":
		g.need("viewId")
		c.emit(ordered{{"op", "remove_from_view"}, {"object_id", c.ref(g.need("connectionId"))}})
	case "styleViewObject":
		c.style(g, "viewObjectId")
	case "styleConnection":
		c.style(g, "connectionId")
	case "moveViewObject":
		a := ordered{{"op", "move_view_object"}, {"object_id", c.ref(g.need("viewObjectId"))}}
		c.emit(g.ints(a, "x", "x", "y", "y", "width", "width", "height", "height"))
	case "createNote":
		a := ordered{{"op", "create_note"}, {"view_id", c.ref(g.need("viewId"))}, {"text", g.str("content")}}
		a = append(a, c.box(g, noteW, noteH)...)
		c.emit(withRef(a, g.str("tempId")))
	case "createGroup":
		c.createGroup(g)
	case "createView":
		c.createView(g)
	case "deleteView":
		c.emit(ordered{{"op", "delete_view"}, {"view_id", c.ref(g.need("viewId"))}})
	case "duplicateView":
		a := ordered{{"op", "duplicate_view"}, {"view_id", c.ref(g.need("viewId"))}}
		if n := g.str("name"); n != "" {
			a = append(a, kv{"name", n})
		}
		c.emit(withRef(a, g.str("tempId")))
	case "setViewRouter":
		c.setViewRouter(g)
	case "layoutView":
		c.layout(g)
	}
	if g.err != nil {
		return g.err
	}
	return nil
}

func withRef(a ordered, tempID string) ordered {
	if tempID != "" {
		a = append(a, kv{"ref_id", tempID})
	}
	return a
}

// onDuplicate is a createOrGet op's strategy: its own, else the BOM's, else the server's "error".
func (c *converter) onDuplicate(g *getter, allowed ...string) string {
	s := c.strategy
	if g.has("onDuplicate") {
		s = strings.ToLower(g.str("onDuplicate"))
	}
	if !oneOf(s, allowed...) {
		g.failf(CodeBadValue, "onDuplicate %q is none of %s", s, strings.Join(allowed, ", "))
	}
	return s
}

// sameMatch refuses a match that differs from what create makes: archiplan's duplicate rule
// matches on what the action creates.
func (c *converter) sameMatch(g, cr, match *getter, keys ...string) {
	for _, k := range keys {
		mv, ok := match.raw[k]
		if !ok {
			continue
		}
		if cv, _ := cr.raw[k]; !equalJSON(mv, cv) {
			g.failf(CodeUnsupported, "match.%s differs from create.%s: archiplan finds duplicates by what the action creates", k, k)
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func (c *converter) createElement(g, f *getter, onDup string) {
	t, ok := elementType(f.need("type"))
	if !ok && g.err == nil {
		g.failf(CodeBadValue, "%q is no element type", f.str("type"))
	}
	f.unsupported("folder", "archiplan puts a new element in a folder by its path (create_element's folder_path), not by a folder's id or name")
	a := ordered{{"op", "create_element"}, {"type", t}, {"name", f.need("name")}}
	if d := f.str("documentation"); d != "" {
		a = append(a, kv{"documentation", d})
	}
	if p, ok := f.raw["properties"].(map[string]any); ok && len(p) > 0 {
		a = append(a, kv{"properties", sortedProps(p)})
	}
	if onDup != "" {
		a = append(a, kv{"on_duplicate", onDup})
	}
	tid := f.str("tempId")
	if tid == "" {
		tid = g.str("tempId")
	}
	c.emit(withRef(a, tid))
	if g.err == nil && f.err != nil {
		g.err = f.err
	}
}

func (c *converter) createRelationship(g, f *getter, onDup string) {
	t, ok := relationshipType(f.need("type"))
	if !ok && g.err == nil && f.err == nil {
		g.failf(CodeBadValue, "%q is no relationship type", f.str("type"))
	}
	a := ordered{{"op", "create_relationship"}, {"source_id", c.ref(f.need("sourceId"))}, {"target_id", c.ref(f.need("targetId"))}, {"relationship_type", t}}
	if n := f.str("name"); n != "" {
		a = append(a, kv{"name", n})
	}
	if d := f.str("documentation"); d != "" {
		a = append(a, kv{"documentation", d})
	}
	if p, ok := f.raw["properties"].(map[string]any); ok && len(p) > 0 {
		a = append(a, kv{"properties", sortedProps(p)})
	}
	if v, ok := f.raw["accessType"]; ok {
		at, known := accessTypes[strings.ToLower(strings.TrimSpace(jsonText(v)))]
		if !known {
			g.failf(CodeBadValue, "accessType %s is none of 0-3, write, read, access, readwrite", jsonText(v))
		}
		if t != "" && t != "Access" {
			g.failf(CodeBadValue, "accessType on %s", archixml.Article(t+" relationship"))
		}
		a = append(a, kv{"access_type", at})
	}
	if s := f.str("strength"); s != "" {
		a = append(a, kv{"influence_strength", s})
	}
	a = append(a, kv{"on_duplicate", onDup})
	tid := f.str("tempId")
	if tid == "" {
		tid = g.str("tempId")
	}
	c.emit(withRef(a, tid))
	if g.err == nil && f.err != nil {
		g.err = f.err
	}
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// update splits updateElement/updateRelationship into one action per field it sets.
func (c *converter) update(g *getter) {
	id := c.ref(g.need("id"))
	n := 0
	if g.has("name") {
		c.emit(ordered{{"op", "rename_element"}, {"element_id", id}, {"new_name", g.str("name")}})
		n++
	}
	if g.has("documentation") {
		c.emit(ordered{{"op", "set_documentation"}, {"element_id", id}, {"documentation", g.str("documentation")}})
		n++
	}
	if p, ok := g.raw["properties"].(map[string]any); ok {
		for _, kvs := range sortedProps(p) {
			c.emit(ordered{{"op", "set_property"}, {"element_id", id}, kvs[0], kvs[1]})
			n++
		}
	} else if g.has("properties") {
		g.failf(CodeBadValue, "properties must be an object of key -> value")
	}
	if n == 0 {
		g.failf(CodeInvalid, "%s sets nothing", g.op)
	}
}

// createGroup converts createGroup: a group on a view, in the box asked or the default size.
func (c *converter) createGroup(g *getter) {
	a := ordered{{"op", "create_group"}, {"view_id", c.ref(g.need("viewId"))}, {"name", g.need("name")}}
	if d := g.str("documentation"); d != "" {
		a = append(a, kv{"documentation", d})
	}
	a = append(a, c.box(g, groupW, groupH)...)
	c.emit(withRef(a, g.str("tempId")))
}

// createView converts createView: a new view, its documentation and its viewpoint.
func (c *converter) createView(g *getter) {
	g.unsupported("folderId", "archiplan puts a new view in a folder by its path (create_view's folder_path), not by a folder's id")
	a := ordered{{"op", "create_view"}, {"name", g.need("name")}}
	if d := g.str("documentation"); d != "" {
		a = append(a, kv{"documentation", d})
	}
	if vp := g.str("viewpoint"); vp != "" {
		a = append(a, kv{"viewpoint", strings.ReplaceAll(strings.ToLower(strings.TrimSpace(vp)), " ", "_")})
	}
	c.emit(withRef(a, g.str("tempId")))
}

// setViewRouter converts setViewRouter: a view's connection router, manual or manhattan.
func (c *converter) setViewRouter(g *getter) {
	r := strings.ToLower(g.need("routerType"))
	if !oneOf(r, "manual", "manhattan") {
		g.failf(CodeBadValue, "routerType %q is neither manual nor manhattan", r)
	}
	c.emit(ordered{{"op", "set_connection_router"}, {"view_id", c.ref(g.need("viewId"))}, {"router", r}})
}

// topFolders are the peer's parentType words for Archi's top-level folders, as archiplan names
// them in a folder_path.
var topFolders = map[string]string{"strategy": "Strategy", "business": "Business", "application": "Application",
	"technology": "Technology & Physical", "motivation": "Motivation", "implementation_migration": "Implementation & Migration",
	"implementation": "Implementation & Migration", "other": "Other", "relations": "Relations", "diagrams": "Views", "views": "Views"}

func (c *converter) createFolder(g *getter) {
	name := g.need("name")
	var path string
	switch {
	case g.has("parentId"):
		parent := g.str("parentId")
		p, ok := c.folderPaths()[parent]
		if !ok {
			g.failf(CodeUnsupported, "parentId %q: archiplan names a folder by its path; only a folder this BOM creates can be a parent", parent)
		}
		path = p + "/" + name
	case g.has("parentType"):
		top, ok := topFolders[strings.ToLower(strings.ReplaceAll(g.str("parentType"), "-", "_"))]
		if !ok {
			g.failf(CodeBadValue, "parentType %q is no top-level folder", g.str("parentType"))
		}
		path = top + "/" + name
	default:
		g.failf(CodeInvalid, "createFolder needs parentId or parentType")
	}
	c.emit(withRef(ordered{{"op", "create_folder"}, {"folder_path", path}}, g.str("tempId")))
}

// folderPaths are the paths of the folders the actions so far create, by ref_id.
func (c *converter) folderPaths() map[string]string {
	out := map[string]string{}
	for _, a := range c.actions {
		if a[0].v != "create_folder" {
			continue
		}
		var path, ref string
		for _, p := range a {
			switch p.k {
			case "folder_path":
				path, _ = p.v.(string)
			case "ref_id":
				ref, _ = p.v.(string)
			}
		}
		if ref != "" {
			out[ref] = path
		}
	}
	return out
}

// box writes a new object's position and size, the server's defaults where the BOM gives none.
func (c *converter) box(g *getter, w, h int) ordered {
	width, height := g.intOr("width", w), g.intOr("height", h)
	return ordered{{"x", g.intOr("x", objectX)}, {"y", g.intOr("y", objectY)}, {"width", width}, {"height", height}}
}

func (c *converter) addToView(g *getter) {
	if g.boolean("autoNest") {
		g.failf(CodeUnsupported, "autoNest: archiplan nests only in the parent a plan names (parent_id)")
	}
	a := ordered{{"op", "add_to_view"}, {"view_id", c.ref(g.need("viewId"))}, {"element_id", c.ref(g.need("elementId"))}}
	if p := g.str("parentVisualId"); p != "" {
		a = append(a, kv{"parent_id", c.ref(p)})
	}
	b := c.box(g, objectW, objectH)
	// the server makes a negative size its default
	for i := range b {
		if n, _ := b[i].v.(int); (b[i].k == "width" || b[i].k == "height") && n < 0 {
			b[i].v = map[string]int{"width": objectW, "height": objectH}[b[i].k]
		}
	}
	a = append(a, b...)
	// the peer draws only the connections a BOM asks for
	a = append(a, kv{"connect", false})
	c.emit(withRef(a, g.str("tempId")))
}

func (c *converter) addConnection(g *getter) {
	a := ordered{{"op", "add_connection_to_view"}, {"view_id", c.ref(g.need("viewId"))}, {"relationship_id", c.ref(g.need("relationshipId"))}}
	src, tgt := g.str("sourceVisualId"), g.str("targetVisualId")
	if !g.boolean("autoResolveVisuals") && src != "" && tgt != "" {
		a = append(a, kv{"source_object_id", c.ref(src)}, kv{"target_object_id", c.ref(tgt)})
		if g.boolean("autoSwapDirection") {
			a = append(a, kv{"allow_reversed", true})
		}
	}
	// skipExistingConnections: archiplan never joins a pair twice (CONNECTION_EXISTS)
	g.boolean("skipExistingConnections")
	c.emit(withRef(a, g.str("tempId")))
}

func (c *converter) style(g *getter, idField string) {
	g.unsupported("fontStyle", "archiplan sets a font as Archi writes it (style_view_object's font), which holds the style")
	a := ordered{{"op", "style_view_object"}, {"object_id", c.ref(g.need(idField))}}
	for _, p := range [][2]string{{"fillColor", "fill_color"}, {"lineColor", "line_color"}, {"fontColor", "font_color"}, {"font", "font"}} {
		if g.has(p[0]) {
			a = append(a, kv{p[1], strings.ToLower(g.str(p[0]))})
		}
	}
	if n, ok := g.integer("textAlignment"); ok {
		v, known := textAlignments[jsonText(n)]
		if !known {
			g.failf(CodeBadValue, "textAlignment %d is none of 1 (left), 2 (center), 4 (right)", n)
		}
		a = append(a, kv{"text_alignment", v})
	}
	if n, ok := g.integer("textPosition"); ok {
		v, known := textPositions[jsonText(n)]
		if !known {
			g.failf(CodeBadValue, "textPosition %d is none of 0 (top), 1 (middle), 2 (bottom)", n)
		}
		a = append(a, kv{"text_position", v})
	}
	c.emit(g.ints(a, "opacity", "opacity", "lineWidth", "line_width"))
}

func (c *converter) layout(g *getter) {
	a := ordered{{"op", "layout_view"}, {"view_id", c.ref(g.need("viewId"))}}
	if s := strings.ToLower(g.str("algorithm")); s != "" {
		// the server's dagre and sugiyama are layered layouts, as archiplan's layers is
		if !oneOf(s, "dagre", "sugiyama") {
			g.failf(CodeBadValue, "algorithm %q is neither dagre nor sugiyama", s)
		}
		a = append(a, kv{"algorithm", "layers"})
	}
	if s := strings.ToUpper(g.str("rankdir")); s != "" {
		if !oneOf(s, "TB", "LR") {
			g.failf(CodeUnsupported, "rankdir %s: archiplan lays ranks out from top to bottom (TB) or left to right (LR)", s)
		}
		a = append(a, kv{"direction", s})
	}
	c.emit(g.ints(a, "nodesep", "node_spacing", "ranksep", "rank_spacing"))
}
