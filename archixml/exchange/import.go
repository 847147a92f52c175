package exchange

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// Import reads an exchange file and makes of it the Archi model Archi's own importer makes
// (org.opengroup.archimate.xmlexchange's XMLModelImporter, whose rules are followed, not its
// code): identifiers kept, elements in the default folder of their type unless the organizations
// put them in folders, properties through their definitions, views with their nodes at bounds
// relative to what holds them, connections with bendpoints as Archi stores them, styles and
// viewpoints, and the connections Archi draws between an element and one nested in it. The
// model is written by archixml, as Archi writes models.
//
// Every problem of the file is found, each with its line, before anything is made: an
// *ImportError lists them (codes CodeSchema, CodeDanglingRef, ...), and no model is returned.
// The file is read as a stream of tokens, never as a whole tree.
func Import(r io.Reader) (*archixml.Model, error) { return ImportWith(r, Options{}) }

// Options change what Import accepts.
type Options struct {
	// AllowForbidden accepts relationships the ArchiMate table forbids between their ends' types
	// (Archi holds them, and its validator reports them), instead of refusing the file.
	AllowForbidden bool
}

// ImportWith is Import with options.
func ImportWith(r io.Reader, o Options) (*archixml.Model, error) {
	b, err := prepare(r, o)
	if err != nil {
		return nil, err
	}
	return b.build()
}

// ImportBytes is what Save writes of the model ImportWith makes, written from the file's records
// in one pass without making the model: what `archiplan import` writes. A model over
// archixml.MaxModelBytes is refused (archixml.ErrTooLarge) once its writing passes the limit.
func ImportBytes(r io.Reader, o Options) ([]byte, error) {
	b, err := prepare(r, o)
	if err != nil {
		return nil, err
	}
	return b.bytes()
}

// ImportData is ImportBytes of a file already in memory: src is read, never changed nor kept (a
// mapping of the file may be unmapped once it returns), and must not change while it runs (the
// values read are the bytes of src, not copies).
func ImportData(src []byte, o Options) ([]byte, error) {
	b, err := prepareData(src, o)
	if err != nil {
		return nil, err
	}
	return b.bytes()
}

func (b *builder) bytes() ([]byte, error) {
	kids, n, err := b.made()
	if err != nil {
		return nil, err
	}
	return archixml.Write(b.f.name, b.f.id, kids, n+n/32+1024) // room for the root, escapes and other scripts than Latin

}

// prepare reads and checks the file: the builder of its model, or every problem of the file
// (*ImportError).
func prepare(r io.Reader, o Options) (*builder, error) {
	var buf bytes.Buffer
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok { // a file: read it in one piece
		if fi, err := st.Stat(); err == nil && fi.Size() <= int64(archixml.MaxModelBytes) {
			buf.Grow(int(fi.Size()) + bytes.MinRead)
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, int64(archixml.MaxModelBytes)+1)); err != nil {
		return nil, err
	}
	return prepareData(buf.Bytes(), o)
}

// prepareData is prepare of the file's bytes.
func prepareData(src []byte, o Options) (*builder, error) {
	if len(src) > archixml.MaxModelBytes {
		return nil, &ImportError{Problems: []Problem{{Code: CodeMalformed, Message: fmt.Sprintf("the file is over %d bytes, the most archiplan reads", archixml.MaxModelBytes)}}}
	}
	f, probs := parse(src)
	if len(probs) == 0 || !isFatal(probs) {
		b := &builder{f: f, opts: o}
		probs = append(probs, b.check()...)
		if len(probs) == 0 {
			return b, nil
		}
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })
	return nil, &ImportError{Problems: probs}
}

func isFatal(probs []Problem) bool {
	for _, p := range probs {
		if p.Code == CodeMalformed || p.Code == CodeNotExchange {
			return true
		}
	}
	return false
}

// builder checks the references and makes the model.
type builder struct {
	f     *file
	opts  Options
	probs []Problem

	seq      int
	taken    map[string]bool
	profiles map[[2]string]string // name, concept type -> profile id
	profList []*archixml.Node
	relIndex map[string]*concept
	slab     slab
}

func (b *builder) add(code string, line int, format string, args ...any) {
	b.probs = append(b.probs, Problem{Code: code, Line: line, Message: fmt.Sprintf(format, args...)})
}

// classOf is the Archi class of an exchange element or relationship type ("" when none).
func classOf(typ string, rel bool) string {
	if rel {
		return relClasses[typ]
	}
	switch typ {
	case "AndJunction", "OrJunction":
		return "Junction"
	case "Junction":
		return ""
	}
	if archixml.ElementType(typ) != nil {
		return typ
	}
	return ""
}

// relClasses are the Archi classes of the format's relationship types ("Serving":
// "ServingRelationship"): found, not made, for each relationship of a file.
var relClasses = func() map[string]string {
	m := map[string]string{}
	for _, r := range archixml.RelationshipTypes {
		m[strings.TrimSuffix(r.Class, "Relationship")] = r.Class
	}
	return m
}()

// want checks that a reference names an identifier of one of the kinds: its record, or nil. d
// is the record when the parser knew it already (nil: looked up).
func (b *builder) want(ref string, d *ident, what string, line int, kinds ...idKind) *ident {
	if d == nil {
		d = b.f.ids[ref]
	}
	if d == nil {
		return nil // reported as dangling already
	}
	k := d.kind
	for _, w := range kinds {
		if k == w {
			return d
		}
	}
	words := make([]string, len(kinds))
	for i, w := range kinds {
		words[i] = idWords[w]
	}
	b.add(CodeWrongRef, line, "%s %q names %s, not %s", what, ref, idWords[k], strings.Join(words, " or "))
	return nil
}

// setClass notes a concept's class, on the concept and on its identifier's record (which, for an
// identifier used twice, the last one sets).
func (b *builder) setClass(c *concept, class string) {
	c.class = class
	if c.ident != nil {
		c.ident.class = class
	}
}

// elementClass is the Archi class of the element a node shows.
func (b *builder) elementClass(n *node) string {
	if n.elem != nil {
		return n.elem.class
	}
	return b.classOf(n.elementRef)
}

// classOf is the Archi class of the element or relationship of an identifier ("" for others).
func (b *builder) classOf(id string) string {
	if d := b.f.ids[id]; d != nil {
		return d.class
	}
	return ""
}

func (b *builder) check() []Problem {
	f := b.f
	for _, r := range f.refs {
		if _, ok := f.ids[r.value]; !ok {
			b.add(CodeDanglingRef, r.line, "%s %q: the file holds no such identifier", r.what, r.value)
		}
	}
	for _, e := range f.elements {
		c := classOf(e.typ, false)
		if c == "" && e.typ != "" {
			b.add(CodeUnknownType, e.line, "element type %q is not an ArchiMate element type Archi knows", e.typ)
		}
		b.setClass(e, c)
	}
	for _, r := range f.rels {
		c := classOf(r.typ, true)
		if c == "" && r.typ != "" {
			b.add(CodeUnknownType, r.line, "relationship type %q is not an ArchiMate relationship type", r.typ)
		}
		b.setClass(r, c)
	}
	for _, r := range f.rels {
		s := b.want(r.source, r.src, "source", r.line, idElement, idRelationship)
		t := b.want(r.target, r.tgt, "target", r.line, idElement, idRelationship)
		if !b.opts.AllowForbidden && s != nil && t != nil && r.class != "" && s.class != "" && t.class != "" && !archixml.Relationships().Allowed(r.class, s.class, t.class) {
			b.add(CodeRelForbidden, r.line, "relationship %q: ArchiMate does not allow %s from %s to %s", r.id, r.typ, s.class, t.class)
		}
		switch r.access {
		case "", "Access", "Read", "Write", "ReadWrite":
		default:
			b.add(CodeSchema, r.line, "accessType %q is none of Access, Read, Write, ReadWrite", r.access)
		}
		switch r.directed {
		case "", "true", "false", "1", "0":
		default:
			b.add(CodeSchema, r.line, "isDirected %q is not a boolean", r.directed)
		}
	}
	props := func(ps []prop) {
		for _, p := range ps {
			b.want(p.ref, p.def, "propertyDefinitionRef", p.line, idPropertyDef)
		}
	}
	props(f.props)
	for _, list := range [][]*concept{f.elements, f.rels} {
		for _, c := range list {
			props(c.props)
		}
	}
	for _, v := range f.views {
		props(v.props)
		b.checkView(v)
	}
	return b.probs
}

// checkView checks what a view's nodes and connections name, and what Archi could not hold of
// its connections.
func (b *builder) checkView(v *view) {
	onView := map[string]*node{}
	var walk func(ns []*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			onView[n.id] = n
			if n.elementRef != "" {
				b.want(n.elementRef, n.elem, "elementRef", n.line, idElement)
			}
			if n.hasViewRef && n.elementRef == "" && n.typ == "Label" && len(n.kids) == 0 {
				b.want(n.viewRef, nil, "viewRef", n.line, idView)
			}
			walk(n.kids)
		}
	}
	walk(v.nodes)
	conns := map[string]*conn{}
	for _, c := range v.conns {
		conns[c.id] = c
	}
	// the concept an end shows: an element for an element node, a relationship for a relationship
	// connection, "" for anything else
	shows := func(end string) (string, bool) {
		if n, ok := onView[end]; ok {
			return n.elementRef, true
		}
		if c, ok := conns[end]; ok {
			return c.relRef, true
		}
		return "", false
	}
	for _, c := range v.conns {
		if c.relRef != "" {
			b.want(c.relRef, c.rel, "relationshipRef", c.line, idRelationship)
		}
		if c.source == "" || c.target == "" {
			if c.typ == "Line" {
				b.add(CodeUnsupported, c.line, "connection %q: a line without both source and target, which Archi cannot draw", c.id)
			}
			continue
		}
		s, okS := shows(c.source)
		t, okT := shows(c.target)
		for _, end := range []struct {
			ref string
			ok  bool
		}{{c.source, okS}, {c.target, okT}} {
			if !end.ok {
				if _, exists := b.f.ids[end.ref]; exists {
					b.add(CodeWrongRef, c.line, "connection %q: %q is not a node or connection of view %q", c.id, end.ref, v.id)
				}
			}
		}
		if !okS || !okT {
			continue
		}
		if c.relRef == "" {
			if s != "" && t != "" {
				b.add(CodeUnsupported, c.line, "connection %q: a line between two ArchiMate nodes or connections, which Archi cannot hold (draw the relationship)", c.id)
			}
			if _, ok := conns[c.source]; ok {
				b.add(CodeUnsupported, c.line, "connection %q: a line from a connection, which Archi cannot hold", c.id)
			} else if _, ok := conns[c.target]; ok {
				b.add(CodeUnsupported, c.line, "connection %q: a line to a connection, which Archi cannot hold", c.id)
			}
			continue
		}
		r := b.relationship(c.relRef)
		if r == nil {
			continue
		}
		if s == "" || t == "" {
			b.add(CodeWrongRef, c.line, "connection %q of relationship %q joins something that shows no ArchiMate concept (a group or a note)", c.id, c.relRef)
			continue
		}
		if s != r.source || t != r.target {
			b.add(CodeUnsupported, c.line, "connection %q: its ends show %q and %q, but relationship %q goes from %q to %q", c.id, s, t, r.id, r.source, r.target)
		}
	}
}

func (b *builder) relationship(id string) *concept {
	if b.relIndex == nil {
		b.relIndex = make(map[string]*concept, len(b.f.rels))
		for _, r := range b.f.rels {
			b.relIndex[r.id] = r
		}
	}
	return b.relIndex[id]
}

// newID is an id for what the file gives none (folders, profiles, the connections Archi adds):
// Archi's form, derived from the model's identifier and what it is for, unique in the model.
func (b *builder) newID(parts ...string) string {
	for {
		b.seq++
		h := sha256.New()
		h.Write([]byte(b.f.id))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(b.seq)))
		for _, p := range parts {
			h.Write([]byte{0})
			h.Write([]byte(p))
		}
		id := "id-" + hex.EncodeToString(h.Sum(nil)[:16])
		if _, used := b.f.ids[id]; !used && !b.taken[id] {
			b.taken[id] = true
			return id
		}
	}
}

// slab is where the model's XML elements and their attribute lists are cut from, a block at a
// time: an allocation each was a sixth of an import's allocations.
type slab struct {
	nodes []archixml.Node
	attrs []string
}

// el is an element with the attributes whose values are not empty, and, for concepts, diagram
// objects and connections, room for the few set after (profiles, connections, style, alignment).
func (s *slab) el(tag string, attrs ...string) *archixml.Node {
	if len(s.nodes) == 0 {
		s.nodes = make([]archixml.Node, 512)
	}
	n := &s.nodes[0]
	s.nodes = s.nodes[1:]
	room := len(attrs)
	switch tag {
	case "element", "child", "sourceConnection":
		room += 6
	}
	if len(s.attrs) < room {
		s.attrs = make([]string, 4096)
	}
	n.Tag, n.Attrs, s.attrs = tag, s.attrs[:0:room], s.attrs[room:] // capped: more goes elsewhere
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] != "" {
			n.Attrs = append(n.Attrs, attrs[i], attrs[i+1])
		}
	}
	return n
}

func textEl(tag, text string) *archixml.Node {
	return &archixml.Node{Tag: tag, Text: text}
}

// folder is a folder of the model being made; its objects are placements, the current one of
// each object being its last.
type folder struct {
	name, doc, typ, id string
	subs               []*folder
	objs               []placed
}

// object is an element, relationship or view of the model being made: its XML, the folder of its
// type, and its current placement.
type object struct {
	node  *archixml.Node
	home  *folder
	where *folder
	seq   int
}

type placed struct {
	o   *object
	seq int
}

type folders struct {
	slab *slab
	top  map[string]*folder
	seq  int
	objs map[string]*object // by id
}

func (fs *folders) put(f *folder, o *object) {
	if o.where == f {
		return // already there: EMF's add of a member changes nothing
	}
	fs.seq++
	f.objs = append(f.objs, placed{o, fs.seq})
	o.where, o.seq = f, fs.seq
}

func (fs *folders) xml(f *folder) *archixml.Node {
	n := fs.slab.el("folder", "name", f.name, "id", f.id, "type", f.typ)
	if f.doc != "" {
		n.Kids = append(n.Kids, textEl("documentation", f.doc))
	}
	for _, s := range f.subs {
		n.Kids = append(n.Kids, fs.xml(s))
	}
	for _, p := range f.objs {
		if p.o.seq == p.seq {
			n.Kids = append(n.Kids, p.o.node)
		}
	}
	return n
}

// build makes the model, refusing (archixml.ErrTooLarge) one that archixml would write in more
// than MaxModelBytes before it is made: deep folders multiply the indentation of what they hold,
// so a file under the limit can make a model far over it.
func (b *builder) build() (*archixml.Model, error) {
	kids, _, err := b.made()
	if err != nil {
		return nil, err
	}
	return archixml.Build(b.f.name, b.f.id, kids)
}

// made is the model's nodes and the fewest bytes archixml writes of them, or ErrTooLarge.
func (b *builder) made() ([]*archixml.Node, int, error) {
	kids := b.nodes()
	n, over := writtenAtLeast(kids, 1, archixml.MaxModelBytes)
	if over {
		return nil, 0, fmt.Errorf("the model would be at least %d bytes, over the limit of %d: %w", n, archixml.MaxModelBytes, archixml.ErrTooLarge)
	}
	return kids, n, nil
}

// writtenAtLeast counts the fewest bytes archixml writes for the nodes at depth, as its writer
// writes them (each on its line, indented two spaces a level, with its tags, attributes and
// text; values counted by their printable ASCII bytes, which escaping never shortens), and stops
// as soon as the count passes limit (over).
func writtenAtLeast(nodes []*archixml.Node, depth, limit int) (n int, over bool) {
	for _, e := range nodes {
		n += 1 + 2*depth + 1 + len(e.Tag) + 2 // newline, indentation, "<tag" and "/>" or "></tag>"'s ">"
		for i := 0; i+1 < len(e.Attrs); i += 2 {
			n += len(e.Attrs[i]) + 4 + printable(e.Attrs[i+1]) // ` key="value"`
		}
		if len(e.Kids) > 0 { // the children, then the end tag on its line (a text is not written)
			k, _ := writtenAtLeast(e.Kids, depth+1, limit-n)
			n += k + 1 + 2*depth + 2 + len(e.Tag)
		} else if e.Text != "" {
			n += printable(e.Text) + 2 + len(e.Tag) // the text and "</tag"
		}
		if n > limit {
			return n, true
		}
	}
	return n, false
}

// printable counts the bytes of s that are printable ASCII: each is written as at least one byte.
func printable(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x20 && s[i] < 0x7f {
			n++
		}
	}
	return n
}

// nodes makes the model's top folders (the objects in them) and its other children.
func (b *builder) nodes() []*archixml.Node {
	f := b.f
	b.taken = map[string]bool{}
	b.profiles = map[[2]string]string{}
	objects := len(f.elements) + len(f.rels) + len(f.views) // each placed in a folder once at least
	fs := &folders{slab: &b.slab, top: map[string]*folder{}, objs: make(map[string]*object, objects)}
	slab := make([]object, objects) // one allocation, not one an object
	add := func(id string, n *archixml.Node, home *folder) {
		o := &slab[0]
		slab = slab[1:]
		o.node, o.home = n, home
		fs.objs[id] = o
		fs.put(home, o)
	}
	var tops []*folder
	for _, t := range archixml.TopFolderTypes {
		top := &folder{name: archixml.TopFolderName(t), typ: t, id: b.newID("folder", t)}
		fs.top[t] = top
		tops = append(tops, top)
	}
	for _, e := range f.elements {
		c := e.class
		n := b.slab.el("element", "xsi:type", "archimate:"+c, "name", e.name, "id", e.id)
		if e.typ == "OrJunction" {
			n.Attrs = append(n.Attrs, "type", "or")
		}
		b.conceptKids(n, e, c)
		add(e.id, n, fs.top[archixml.FolderFor(c)])
	}
	for _, r := range f.rels {
		c := r.class
		n := b.slab.el("element", "xsi:type", "archimate:"+c, "name", r.name, "id", r.id, "source", r.source, "target", r.target)
		switch {
		case c == "AccessRelationship" && r.hasAccess:
			n.Attrs = append(n.Attrs, "accessType", map[string]string{"Read": "1", "Access": "2", "ReadWrite": "3"}[r.access])
			if n.Attrs[len(n.Attrs)-1] == "" {
				n.Attrs = n.Attrs[:len(n.Attrs)-2] // write: Archi's default, not written
			}
		case c == "InfluenceRelationship" && r.modifier != "":
			n.Attrs = append(n.Attrs, "strength", r.modifier)
		case c == "AssociationRelationship" && strings.EqualFold(r.directed, "true"):
			n.Attrs = append(n.Attrs, "directed", "true")
		}
		b.conceptKids(n, r, c)
		add(r.id, n, fs.top[archixml.FolderRelations])
	}
	for _, v := range f.views {
		add(v.id, b.view(v), fs.top[archixml.FolderDiagrams])
	}
	b.organize(fs, tops)

	var kids []*archixml.Node
	for _, t := range tops {
		kids = append(kids, fs.xml(t))
	}
	if f.doc != "" {
		kids = append(kids, textEl("purpose", f.doc))
	}
	kids = append(kids, b.properties(f.props, "")...)
	kids = append(kids, b.profList...)
	return kids
}

// conceptKids adds an element's or relationship's documentation and properties; a property of
// the definition whose identifier is "specialization" names its specialization, as Archi reads it.
func (b *builder) conceptKids(n *archixml.Node, c *concept, class string) {
	if c.doc != "" {
		n.Kids = append(n.Kids, textEl("documentation", c.doc))
	}
	n.Kids = append(n.Kids, b.properties(c.props, class)...)
	var profiles []string
	for _, p := range c.props {
		if p.ref != "specialization" || class == "" {
			continue
		}
		key := [2]string{p.value, class}
		id, ok := b.profiles[key]
		if !ok {
			id = b.newID("profile", p.value, class)
			b.profiles[key] = id
			b.profList = append(b.profList, b.slab.el("profile", "name", p.value, "id", id, "conceptType", class))
		}
		if !contains(profiles, id) {
			profiles = append(profiles, id)
		}
	}
	if len(profiles) > 0 {
		n.Attrs = append(n.Attrs, "profiles", strings.Join(profiles, " "))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// properties are Archi's key and value pairs of the exchange properties (class: the concept's, for
// the specializations, which are not properties; "" where there are none).
func (b *builder) properties(ps []prop, class string) []*archixml.Node {
	var out []*archixml.Node
	for _, p := range ps {
		if p.ref == "specialization" && class != "" {
			continue
		}
		out = append(out, &archixml.Node{Tag: "property", Attrs: []string{"key", b.f.propDefs[p.ref], "value", p.value}})
	}
	return out
}

// organize moves the objects and makes the folders the organizations say, as Archi's importer
// does: an item naming an object puts it in the folders of the items above it, under its type's
// folder; a top-level item labelled as a top-level folder is that folder (its documentation is
// set, no folder is made); other items make folders only under such a one.
func (b *builder) organize(fs *folders, tops []*folder) {
	byName := func(label string) *folder {
		for _, t := range tops {
			if t.name == label {
				return t
			}
		}
		return nil
	}
	// sub walks the items from the top down to path's end, below start
	sub := func(path []*item, start *folder) *folder {
		f := start
		for i, it := range path {
			if i == 0 {
				if t := byName(it.label); t != nil && it.hasLabel {
					t.doc = it.doc
					continue
				}
			}
			var found *folder
			for _, s := range f.subs {
				if s.name == it.label {
					found = s
					break
				}
			}
			if found == nil {
				found = &folder{name: it.label, doc: it.doc, id: b.newID("folder", f.id, it.label)}
				f.subs = append(f.subs, found)
			}
			f = found
		}
		return f
	}
	var walk func(it *item, path []*item)
	walk = func(it *item, path []*item) {
		var o *object // the element, relationship or view it names, if it has no items
		if it.ref != "" && len(it.kids) == 0 {
			o = fs.objs[it.ref]
		}
		if o != nil {
			fs.put(sub(path, o.home), o)
			return // no items below
		}
		here := append(path[:len(path):len(path)], it)
		if top := byName(here[0].label); top != nil && here[0].hasLabel {
			sub(here, top)
		}
		for _, kid := range it.kids {
			walk(kid, here)
		}
	}
	for _, it := range b.f.orgs {
		walk(it, nil)
	}
}

// viewpoint ids by the format's names (the inverse of the export's map)
var viewpointIDs = func() map[string]string {
	m := map[string]string{}
	for id, name := range viewpoints {
		m[name] = id
	}
	return m
}()

// comp is a diagram object or connection of the view being made.
type comp struct {
	id, class, concept string
	conn               bool
	x, y, w, h         int // objects: absolute bounds
	parent             *comp
	kids               []*comp
	out                []*comp  // connections from it, in the order drawn
	in                 []string // ids of connections to it
	src, tgt           *comp
	n                  *node
	c                  *conn
	bends              [][4]int
}

func (b *builder) view(v *view) *archixml.Node {
	vn := b.slab.el("element", "xsi:type", "archimate:ArchimateDiagramModel", "name", v.name, "id", v.id, "viewpoint", viewpointIDs[v.viewpoint])
	byID := map[string]*comp{}
	var roots []*comp
	var mk func(n *node, parent *comp) *comp
	mk = func(n *node, parent *comp) *comp {
		c := &comp{id: n.id, n: n, x: n.x, y: n.y, w: n.w, h: n.h, parent: parent}
		switch {
		case n.elementRef != "":
			c.class, c.concept = "DiagramObject", n.elementRef
		case n.typ == "Container" || len(n.kids) > 0:
			c.class = "Group"
		case n.typ == "Label" && n.hasViewRef:
			c.class = "DiagramModelReference"
		default:
			c.class = "Note"
		}
		byID[n.id] = c
		if c.class == "DiagramObject" || c.class == "Group" {
			for _, k := range n.kids {
				c.kids = append(c.kids, mk(k, c))
			}
		}
		return c
	}
	for _, n := range v.nodes {
		roots = append(roots, mk(n, nil))
	}
	for _, xc := range v.conns {
		c := &comp{id: xc.id, conn: true, c: xc, concept: xc.relRef}
		byID[xc.id] = c
	}
	for _, xc := range v.conns {
		c := byID[xc.id]
		c.src, c.tgt = byID[xc.source], byID[xc.target]
		c.src.out = append(c.src.out, c)
		c.tgt.in = append(c.tgt.in, c.id)
		if !c.src.conn && !c.tgt.conn {
			c.bends = bendpoints(c.src, c.tgt, xc)
		}
	}
	b.nestedConnections(v, roots)
	for _, r := range roots {
		vn.Kids = append(vn.Kids, b.object(r))
	}
	if v.doc != "" {
		vn.Kids = append(vn.Kids, textEl("documentation", v.doc))
	}
	vn.Kids = append(vn.Kids, b.properties(v.props, "")...)
	return vn
}

// nestedConnections draws, as Archi's importer does after a view's connections, a connection for
// every relationship between an element and one drawn directly in it that has none yet.
func (b *builder) nestedConnections(v *view, roots []*comp) {
	var bySource map[string][]*concept
	has := func(s, t *comp, rel string) bool {
		for _, c := range s.out {
			if c.tgt == t && c.concept == rel {
				return true
			}
		}
		return false
	}
	connect := func(s, t *comp, r *concept) {
		c := &comp{id: b.newID("connection", v.id, s.id, t.id, r.id), conn: true, concept: r.id, src: s, tgt: t}
		s.out = append(s.out, c)
		t.in = append(t.in, c.id)
	}
	var walk func(p *comp)
	walk = func(p *comp) {
		if p.class == "DiagramObject" {
			for _, k := range p.kids {
				if k.class != "DiagramObject" {
					continue
				}
				if bySource == nil {
					bySource = map[string][]*concept{}
					for _, r := range b.f.rels {
						bySource[r.source] = append(bySource[r.source], r)
					}
				}
				for _, r := range bySource[p.concept] {
					if r.target == k.concept && !has(p, k, r.id) {
						connect(p, k, r)
					}
				}
				for _, r := range bySource[k.concept] {
					if r.target == p.concept && !has(k, p, r.id) {
						connect(k, p, r)
					}
				}
			}
		}
		for _, k := range p.kids {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
}

// bendpoints are Archi's of the exchange file's absolute points (createBendPointFromAbsolutePosition):
// offsets from the centres of the source and the target; an attachment point adds one halfway to
// the next point, as Archi's importer does.
func bendpoints(s, t *comp, c *conn) [][4]int {
	at := func(x, y int) [4]int {
		return [4]int{x - (s.x + s.w/2), y - (s.y + s.h/2), x - (t.x + t.w/2), y - (t.y + t.h/2)}
	}
	half := func(a, b point) [4]int {
		dx, dy := 0, 0
		if b.x-a.x != 0 {
			dx = (b.x - a.x) / 2
		}
		if b.y-a.y != 0 {
			dy = (b.y - a.y) / 2
		}
		return at(a.x+dx, a.y+dy)
	}
	var out [][4]int
	if c.srcAtt != nil && c.tgtAtt != nil && len(c.bends) == 0 {
		return append(out, half(*c.srcAtt, *c.tgtAtt))
	}
	if c.srcAtt != nil && len(c.bends) > 0 {
		out = append(out, half(*c.srcAtt, c.bends[0]))
	}
	for _, p := range c.bends {
		out = append(out, at(p.x, p.y))
	}
	if c.tgtAtt != nil && len(c.bends) > 0 {
		out = append(out, half(*c.tgtAtt, c.bends[len(c.bends)-1]))
	}
	return out
}

// object is a diagram object's XML: bounds relative to what holds it, its connections, its kids.
func (b *builder) object(c *comp) *archixml.Node {
	n := c.n
	e := b.slab.el("child", "xsi:type", "archimate:"+c.class, "id", c.id)
	if c.class == "Group" {
		name := "Group" // the name Archi gives a new group
		if n.hasLabel {
			name = normalize(n.label)
		}
		e.Attrs = append(e.Attrs, "name", name)
	}
	if len(c.in) > 0 {
		e.Attrs = append(e.Attrs, "targetConnections", strings.Join(c.in, " "))
	}
	b.styleAttrs(e, n.style, false)
	if c.class == "Group" || c.class == "Note" || c.class == "DiagramObject" && b.elementClass(n) == "Grouping" {
		e.Attrs = append(e.Attrs, "textAlignment", "1") // Archi makes notes, groups and groupings left-aligned
	}
	switch c.class {
	case "DiagramObject":
		e.Attrs = append(e.Attrs, "archimateElement", c.concept)
	case "DiagramModelReference":
		e.Attrs = append(e.Attrs, "model", n.viewRef)
	}
	x, y := c.x, c.y
	if c.parent != nil {
		x, y = x-c.parent.x, y-c.parent.y
	}
	e.Kids = append(e.Kids, b.slab.el("bounds", "x", nonZero(x), "y", nonZero(y), "width", strconv.Itoa(c.w), "height", strconv.Itoa(c.h)))
	if s := n.style; s != nil && s.line != nil && s.line.hasA {
		if a := alpha255(s.line.a); a != 255 {
			e.Kids = append(e.Kids, b.slab.el("feature", "name", "lineAlpha", "value", strconv.Itoa(a)))
		}
	}
	for _, o := range c.out {
		e.Kids = append(e.Kids, b.connection(o))
	}
	for _, k := range c.kids {
		e.Kids = append(e.Kids, b.object(k))
	}
	switch c.class {
	case "Note":
		if n.hasLabel && n.label != "" {
			e.Kids = append(e.Kids, textEl("content", n.label))
		}
	case "Group":
		if n.doc != "" {
			e.Kids = append(e.Kids, textEl("documentation", n.doc))
		}
	}
	return e
}

func (b *builder) connection(c *comp) *archixml.Node {
	typ := ""
	if c.concept != "" {
		typ = "archimate:Connection"
	}
	e := b.slab.el("sourceConnection", "xsi:type", typ, "id", c.id)
	if len(c.in) > 0 {
		e.Attrs = append(e.Attrs, "targetConnections", strings.Join(c.in, " "))
	}
	if c.c != nil {
		b.styleAttrs(e, c.c.style, true)
	}
	e.Attrs = append(e.Attrs, "source", c.src.id, "target", c.tgt.id)
	if c.concept != "" {
		e.Attrs = append(e.Attrs, "archimateRelationship", c.concept)
	}
	for _, o := range c.out {
		e.Kids = append(e.Kids, b.connection(o))
	}
	for _, p := range c.bends {
		e.Kids = append(e.Kids, b.slab.el("bendpoint", "startX", nonZero(p[0]), "startY", nonZero(p[1]), "endX", nonZero(p[2]), "endY", nonZero(p[3])))
	}
	return e
}

func nonZero(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// alpha255 is the format's opacity percentage as Archi's 0-255 alpha (Math.round).
func alpha255(pct int) int { return int(math.Floor(float64(pct)*255/100 + 0.5)) }

func hexColor(c *rgba) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b)
}

// styleAttrs sets the attributes Archi's importer sets from a style: fill colour and opacity
// (objects), line colour, line width (connections, 1 to 3), font and font colour.
func (b *builder) styleAttrs(e *archixml.Node, s *style, conn bool) {
	if s == nil {
		return
	}
	if s.hasFont {
		name, size, st := "Sans", "9.0", 0 // Archi's default view font on Linux, which the file's font changes
		if s.fontName != "" {
			name = s.fontName
		}
		if s.fontSize != "" {
			if v, err := strconv.ParseFloat(s.fontSize, 64); err == nil {
				size = strconv.Itoa(int(v)) + ".0"
			}
		}
		if strings.Contains(s.fontStyle, "bold") {
			st |= 1
		}
		if strings.Contains(s.fontStyle, "italic") {
			st |= 2
		}
		e.Attrs = append(e.Attrs, "font", fmt.Sprintf("1|%s|%s|%d|GTK|1|", name, size, st))
		if s.font != nil {
			e.Attrs = append(e.Attrs, "fontColor", hexColor(s.font))
		}
	}
	if conn && s.lineWidth != 0 {
		w := min(max(s.lineWidth, 1), 3)
		if w != 1 {
			e.Attrs = append(e.Attrs, "lineWidth", strconv.Itoa(w))
		}
	}
	if s.line != nil {
		e.Attrs = append(e.Attrs, "lineColor", hexColor(s.line))
	}
	if !conn && s.fill != nil {
		e.Attrs = append(e.Attrs, "fillColor", hexColor(s.fill))
		if s.fill.hasA {
			if a := alpha255(s.fill.a); a != 255 {
				e.Attrs = append(e.Attrs, "alpha", strconv.Itoa(a))
			}
		}
	}
}
