package archixml

import (
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// Object is a handle on one object of a model (anything with an id). The zero Object is "none".
type Object struct {
	m *Model
	e *etree.Element
}

// Property is one key/value pair of an object's properties, in file order.
type Property struct {
	Key, Value string
}

// Bounds are a diagram object's position and size relative to its container; -1 means Archi's
// default size.
type Bounds struct {
	X, Y, Width, Height int
}

// Object returns the object with the given id.
func (m *Model) Object(id string) (Object, bool) {
	e, ok := m.byID[id]
	if !ok {
		return Object{}, false
	}
	return Object{m, e}, true
}

// Root returns the model object itself.
func (m *Model) Root() Object { return Object{m, m.root} }

// Name is the model's name.
func (m *Model) Name() string { return m.root.SelectAttrValue("name", "") }

// ID is the model's id.
func (m *Model) ID() string { return m.root.SelectAttrValue("id", "") }

// Version is the Archi model version the file was written with ("5.0.0").
func (m *Model) Version() string { return m.root.SelectAttrValue("version", "") }

// Purpose is the model's purpose text.
func (m *Model) Purpose() string { return childText(m.root, "purpose") }

// Len is the number of objects with an id.
func (m *Model) Len() int { return len(m.byID) }

// All returns every object of kind k in document order.
func (m *Model) All(k Kind) []Object {
	var out []Object
	// a view holds diagram objects and connections only: the concepts, folders and views are
	// found without reading every view's content (a tenth of a second at 100k elements)
	inViews := k == KindDiagramObject || k == KindConnection || k == KindOther || k == kindNone
	var visit func(e *etree.Element, ek Kind)
	visit = func(e *etree.Element, ek Kind) {
		if ek == k {
			out = append(out, Object{m, e})
		}
		if ek == KindView && !inViews {
			return
		}
		for _, t := range e.Child {
			if c, ok := t.(*etree.Element); ok {
				if ck := kindOf(c); ck != kindNone {
					visit(c, ck)
				}
			}
		}
	}
	visit(m.root, kindOf(m.root))
	return out
}

// Elements returns the ArchiMate elements in document order.
func (m *Model) Elements() []Object { return m.All(KindElement) }

// Relationships returns the relationships in document order.
func (m *Model) Relationships() []Object { return m.All(KindRelationship) }

// Views returns the diagram models in document order.
func (m *Model) Views() []Object { return m.All(KindView) }

// Folders returns the folders in document order.
func (m *Model) Folders() []Object { return m.All(KindFolder) }

// Profiles returns the specializations the model defines.
func (m *Model) Profiles() []Object { return m.All(KindProfile) }

func (m *Model) walk(e *etree.Element, fn func(*etree.Element)) {
	fn(e)
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			if kindOf(c) != kindNone {
				m.walk(c, fn)
			}
		}
	}
}

// TopFolder returns the top-level folder of the given type ("business", "relations", ...).
func (m *Model) TopFolder(folderType string) (Object, bool) {
	for _, c := range m.root.SelectElements("folder") {
		if c.SelectAttrValue("type", "") == folderType {
			return Object{m, c}, true
		}
	}
	return Object{}, false
}

// RelationshipsOf returns the relationships with id as source or target, in the order they were
// indexed.
func (m *Model) RelationshipsOf(id string) []Object {
	return m.wrap(m.relsByEnd[id])
}

// ReferencesTo returns the diagram objects and connections that show the concept with this id.
func (m *Model) ReferencesTo(id string) []Object {
	return m.wrap(m.refsTo[id])
}

func (m *Model) wrap(list []*etree.Element) []Object {
	out := make([]Object, len(list))
	for i, e := range list {
		out[i] = Object{m, e}
	}
	return out
}

// Valid reports whether o refers to an object.
func (o Object) Valid() bool { return o.e != nil }

// ID is the object's id.
func (o Object) ID() string { return o.e.SelectAttrValue("id", "") }

// Kind says what the object is.
func (o Object) Kind() Kind { return kindOf(o.e) }

// Class is the object's Archi class ("BusinessActor", "ServingRelationship",
// "ArchimateDiagramModel", "DiagramObject"); "Folder" for folders, "Profile" for profiles.
func (o Object) Class() string { return className(o.Kind(), class(o.e)) }

// className is the class of an object of kind k whose xsi:type names class c.
func className(k Kind, c string) string {
	switch k {
	case KindFolder:
		return "Folder"
	case KindProfile:
		return "Profile"
	case KindModel:
		return "ArchimateModel"
	}
	if l, ok := legacyClasses[c]; ok {
		return l
	}
	return c
}

// Type returns the catalogue entry of an element or relationship, or nil.
func (o Object) Type() *ConceptType {
	switch o.Kind() {
	case KindFolder, KindProfile, KindModel: // classes of their own (className), none a concept's
		return nil
	}
	if c, ok := taggedClass(o.e.Tag); ok {
		return c.typ
	}
	return typeByClass[class(o.e)]
}

// typeByClass is conceptType of each class as written, legacy names too: one look-up where
// Class and conceptType took two or three (Type is asked of every element a context counts).
var typeByClass = func() map[string]*ConceptType {
	types := map[string]*ConceptType{}
	// the elements' last: a class of both would be an element's, as conceptType says
	for _, byClass := range []map[string]*ConceptType{relationshipByClass, elementByClass} {
		for c, t := range byClass {
			types[c] = t
		}
	}
	for old, c := range legacyClasses {
		if t := conceptType(c); t != nil {
			types[old] = t
		} else {
			delete(types, old)
		}
	}
	return types
}()

// conceptType is the catalogue entry of an element or relationship class, or nil.
func conceptType(c string) *ConceptType {
	if t := elementByClass[c]; t != nil {
		return t
	}
	return relationshipByClass[c]
}

// Name is the object's name.
func (o Object) Name() string { return o.e.SelectAttrValue("name", "") }

// Attr returns any attribute of the object as written ("viewpoint", "accessType", "type").
// namingAttrs are the attributes that say what an object is and where (its id, name, type, ends,
// the concept it shows, the connections that end at it): Settings leaves them out.
var namingAttrs = set("id", "name", "xsi:type", "source", "target", "archimateElement", "archimateRelationship",
	"relationship", "targetConnections")

// hasSettings reports whether objects of kind k have Settings: concepts, views and what they draw.
func hasSettings(k Kind) bool {
	return k == KindElement || k == KindRelationship || k == KindView || k == KindDiagramObject || k == KindConnection
}

// Settings returns, for an element, relationship, view, diagram object or connection, its
// attributes but those that name it (fill colour, font, alpha, figure, router, viewpoint, access
// type...), in file order, then, for a connection, each bendpoint as "bendpoint" =
// "startX,startY,endX,endY": what a restyle, reroute or viewpoint change alters, for words that
// show it (textconv).
func (o Object) Settings() []Property {
	if !hasSettings(o.Kind()) {
		return nil
	}
	var out []Property
	for _, a := range o.e.Attr {
		if k := a.FullKey(); !namingAttrs[k] {
			out = append(out, Property{k, a.Value})
		}
	}
	if o.Kind() == KindConnection {
		for _, b := range o.e.SelectElements("bendpoint") {
			out = append(out, bendpoint(func(k string) string { return b.SelectAttrValue(k, "") }))
		}
	}
	return out
}

// bendpoint is a bendpoint's setting, from its attributes.
func bendpoint(value func(string) string) Property {
	v := func(k string) string {
		if s := value(k); s != "" {
			return s
		}
		return "0"
	}
	return Property{"bendpoint", v("startX") + "," + v("startY") + "," + v("endX") + "," + v("endY")}
}

func (o Object) Attr(key string) string {
	if !strings.Contains(key, ":") {
		// etree's lookup ignores prefixes: "type" would find xsi:type (a junction's class) before a
		// junction's own type attribute
		for _, a := range o.e.Attr {
			if a.Space == "" && a.Key == key {
				return a.Value
			}
		}
		return ""
	}
	return o.e.SelectAttrValue(key, "")
}

// Documentation is the object's documentation text.
func (o Object) Documentation() string { return childText(o.e, "documentation") }

// Content is a note's text.
func (o Object) Content() string { return childText(o.e, "content") }

// Model is the model the object belongs to.
func (o Object) Model() *Model { return o.m }

// Properties returns the object's properties in file order.
func (o Object) Properties() []Property {
	var out []Property
	for _, p := range o.e.SelectElements("property") {
		out = append(out, Property{p.SelectAttrValue("key", ""), p.SelectAttrValue("value", "")})
	}
	return out
}

// Property returns the value of the first property with the key.
func (o Object) Property(key string) (string, bool) {
	for _, p := range o.e.SelectElements("property") {
		if p.SelectAttrValue("key", "") == key {
			return p.SelectAttrValue("value", ""), true
		}
	}
	return "", false
}

// ProfileIDs returns the ids of the specializations a concept has.
func (o Object) ProfileIDs() []string { return strings.Fields(o.e.SelectAttrValue("profiles", "")) }

// Source is a relationship's or connection's source.
func (o Object) Source() (Object, bool) { return o.m.Object(o.e.SelectAttrValue("source", "")) }

// Target is a relationship's or connection's target.
func (o Object) Target() (Object, bool) { return o.m.Object(o.e.SelectAttrValue("target", "")) }

// SourceID is a relationship's or connection's source id, as written.
func (o Object) SourceID() string { return o.e.SelectAttrValue("source", "") }

// TargetID is a relationship's or connection's target id, as written.
func (o Object) TargetID() string { return o.e.SelectAttrValue("target", "") }

// Concept returns the element or relationship a diagram object or connection shows.
func (o Object) Concept() (Object, bool) { return o.m.Object(conceptRef(o.e)) }

// Parent returns the object that holds this one (a folder for concepts and views, the view or a
// diagram object for diagram objects).
func (o Object) Parent() (Object, bool) {
	for p := o.e.Parent(); p != nil; p = p.Parent() {
		if kindOf(p) != kindNone {
			return Object{o.m, p}, true
		}
	}
	return Object{}, false
}

// View returns the view a diagram object or connection is drawn on.
func (o Object) View() (Object, bool) {
	for p := o.e.Parent(); p != nil; p = p.Parent() {
		if kindOf(p) == KindView {
			return Object{o.m, p}, true
		}
	}
	return Object{}, false
}

// FolderPath is the path of folder names from the top-level folder down to the folder holding
// the object (or the folder itself), e.g. "Business/Processes".
func (o Object) FolderPath() string {
	var names []string
	e := o.e
	if o.Kind() != KindFolder {
		e = e.Parent()
	}
	for ; e != nil && e.Tag == "folder"; e = e.Parent() {
		names = append(names, e.SelectAttrValue("name", ""))
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return strings.Join(names, "/")
}

// TopFolderType is the type of the top-level folder the object sits in ("" when none).
func (o Object) TopFolderType() string {
	top := ""
	for e := o.e; e != nil; e = e.Parent() {
		if e.Tag == "folder" {
			top = e.SelectAttrValue("type", "")
		}
	}
	return top
}

// Children returns the objects directly inside this one: subfolders and contents of a folder,
// diagram objects of a view or of a diagram object, connections of a diagram object.
func (o Object) Children() []Object {
	var out []Object
	for _, t := range o.e.Child {
		if c, ok := t.(*etree.Element); ok {
			if kindOf(c) != kindNone {
				out = append(out, Object{o.m, c})
			}
		}
	}
	return out
}

// Bounds returns a diagram object's bounds.
func (o Object) Bounds() (Bounds, bool) {
	b := o.e.SelectElement("bounds")
	if b == nil {
		return Bounds{}, false
	}
	return boundsOf(func(k string) string { return b.SelectAttrValue(k, "") }), true
}

// boundsOf reads bounds from the attributes of a <bounds> element: x and y 0 and width and height
// -1 (Archi's default size) where missing or not a number.
func boundsOf(attr func(key string) string) Bounds {
	num := func(k string, dflt int) int {
		v, err := strconv.Atoi(attr(k))
		if err != nil {
			return dflt
		}
		return v
	}
	return Bounds{num("x", 0), num("y", 0), num("width", -1), num("height", -1)}
}

// DiagramObjects returns every diagram object on a view, nested ones included, in document order.
func (o Object) DiagramObjects() []Object {
	var out []Object
	o.m.walk(o.e, func(e *etree.Element) {
		if kindOf(e) == KindDiagramObject {
			out = append(out, Object{o.m, e})
		}
	})
	return out
}

// Connections returns every connection on a view, in document order.
func (o Object) Connections() []Object {
	var out []Object
	o.m.walk(o.e, func(e *etree.Element) {
		if kindOf(e) == KindConnection {
			out = append(out, Object{o.m, e})
		}
	})
	return out
}

func childText(e *etree.Element, tag string) string {
	c := e.SelectElement(tag)
	if c == nil {
		return ""
	}
	return c.Text()
}

// XML is the object and everything it holds as XML: the bytes of the file where it is untouched.
// Two loads of one file give equal XML for equal objects, which is how a change to an object
// between two commits is found.
func (o Object) XML() string { return o.m.fragment(o.e) }
