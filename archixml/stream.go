package archixml

import (
	"strings"
	"unsafe"
)

// Scan reads a model file (plain or zipped, at most MaxModelBytes of XML) in one pass, without
// building its tree, and calls fn with each object in the order of the file, an object before
// what it holds: for a reader that needs every object once (textconv), at a fraction of Load's
// time and memory. It answers what Load's Objects answer for the object in hand, and Find names
// any object read so far.
//
// The model itself comes first, as soon as its start tag is read: its id and name, nothing it
// holds. Every other object comes once it has ended, so that its documentation, properties and
// bounds are known wherever they stand among its children (Archi writes a folder's documentation
// after its subfolders), and once every object it refers to (its source and target, the concept a
// diagram object shows) has been read, so that Find names them; an object held back holds back
// what follows it, and a reference to nothing is waited for until the file ends. What is held
// back is the objects' few fields, not the file's tree: a top-level folder's objects at most, in
// a model Archi wrote.
//
// A file Load refuses, Scan refuses with the same error, possibly after fn has been called for
// the objects before the fault. An error from fn stops the calls and is returned.
//
// Scan makes no copy of a plain file's bytes: the names and texts it hands out are views of data,
// which must not change while any of them is in use.
func Scan(data []byte, fn func(*Scanned) error) error {
	if err := checkFileSize(data); err != nil {
		return err
	}
	src := unsafe.String(unsafe.SliceData(data), len(data))
	if zipped(data) {
		var err error
		if src, _, _, err = inflate(data); err != nil {
			return err
		}
	}
	s := &scanner{fn: fn, byID: make(map[string]Named, strings.Count(src, " id=")+1)}
	if err := readInto(src, s); err != nil {
		return err
	}
	if s.notModel {
		return ErrNotModel
	}
	s.deliver(true)
	return s.err
}

// Scanned is one object of a model being read by Scan.
type Scanned struct {
	sc                      *scanner
	parent                  *Scanned
	kind                    Kind
	id, name, class         string
	source, target, concept string
	doc                     string
	props                   []Property
	settings                []Property
	bounds                  Bounds
	folder                  string // FolderPath
	flags                   uint8
}

const (
	scannedEnded  uint8 = 1 << iota
	scannedDoc          // its first <documentation> was read
	scannedBounds       // its first <bounds> was read
)

// Named is what Scan keeps of every object it has read: enough to name it.
type Named struct {
	Kind  Kind
	Class string // as Object.Class
	Name  string
}

// Type is the catalogue entry of an element or relationship, or nil.
func (n Named) Type() *ConceptType { return conceptType(n.Class) }

// Find names the first object read with the id, as Model.Object finds it in a loaded model.
func (o *Scanned) Find(id string) (Named, bool) {
	n, ok := o.sc.byID[id]
	return n, ok
}

// ID is the object's id.
func (o *Scanned) ID() string { return o.id }

// Kind says what the object is.
func (o *Scanned) Kind() Kind { return o.kind }

// Class is the object's Archi class, as Object.Class.
func (o *Scanned) Class() string { return className(o.kind, o.class) }

// Type returns the catalogue entry of an element or relationship, or nil.
func (o *Scanned) Type() *ConceptType { return conceptType(o.Class()) }

// Name is the object's name.
func (o *Scanned) Name() string { return o.name }

// FolderPath is the path of folder names down to the folder holding the object (or the folder
// itself), as Object.FolderPath.
func (o *Scanned) FolderPath() string { return o.folder }

// SourceID is a relationship's or connection's source id, as written.
func (o *Scanned) SourceID() string { return o.source }

// TargetID is a relationship's or connection's target id, as written.
func (o *Scanned) TargetID() string { return o.target }

// ConceptID is the id of the element or relationship a diagram object or connection shows, as
// written ("" for none).
func (o *Scanned) ConceptID() string { return o.concept }

// Documentation is the object's documentation text.
func (o *Scanned) Documentation() string { return o.doc }

// Properties returns the object's properties in file order.
func (o *Scanned) Properties() []Property { return o.props }

// Settings returns what Object.Settings returns: its attributes but those that name it, then, for
// a connection, its bendpoints.
func (o *Scanned) Settings() []Property { return o.settings }

// Bounds returns a diagram object's bounds.
func (o *Scanned) Bounds() (Bounds, bool) { return o.bounds, o.flags&scannedBounds != 0 }

// Parent returns the object that holds this one; the model has none.
func (o *Scanned) Parent() (*Scanned, bool) { return o.parent, o.parent != nil }

// what an element that is no object is to the object directly holding it
const (
	partNone     uint8 = iota
	partDoc            // its first <documentation>, while its text is what Object.Documentation reads
	partProperty       // a <property>
)

type frame struct {
	tag  string   // local name
	obj  *Scanned // the object the element is, nil for a part or an element Load does not index
	part uint8
}

type attr struct{ key, value string }

// scanner is the sink that follows a model's objects for Scan: what Load would index, and the
// parts of them Object's queries read.
type scanner struct {
	fn       func(*Scanned) error
	err      error
	byID     map[string]Named
	stack    []frame
	name     string // the start tag being read
	attrs    []attr // its attributes
	queue    []*Scanned
	head     int
	notModel bool
}

func (s *scanner) start(name string, _ int) {
	if n := len(s.stack); n > 0 && s.stack[n-1].part == partDoc {
		s.stack[n-1].part = partNone // documentation's text ends at an element
	}
	s.name, s.attrs = name, s.attrs[:0]
}

func (s *scanner) attr(key, value string) bool {
	if len(s.attrs) >= smallTag { // the reader has checked the name is new
		s.attrs = append(s.attrs, attr{key, value})
		return true
	}
	for _, a := range s.attrs {
		if a.key == key {
			return false
		}
	}
	s.attrs = append(s.attrs, attr{key, value})
	return true
}

// value is the first attribute named key in any namespace, as etree's SelectAttrValue finds it.
func (s *scanner) value(key string) string {
	for _, a := range s.attrs {
		if _, local := splitName(a.key); local == key {
			return a.value
		}
	}
	return ""
}

func (s *scanner) opened() {
	space, tag := splitName(s.name)
	f := frame{tag: tag}
	var parent *frame
	if n := len(s.stack); n > 0 {
		parent = &s.stack[n-1]
	}
	k := kindNone
	switch tag {
	case "folder":
		k = KindFolder
	case "element":
		if parent != nil && parent.tag == "folder" {
			k = classKind(s.class())
		}
	case "child":
		k = KindDiagramObject
	case "sourceConnection":
		k = KindConnection
	case "profile":
		if parent != nil && parent.tag == "model" {
			k = KindProfile
		}
	case "model":
		if space == "archimate" {
			k = KindModel
		}
	}
	switch {
	case parent == nil && k != KindModel:
		s.notModel = true
	case parent == nil:
		f.obj = s.object(k, nil)
		s.call(f.obj)
	case parent.obj == nil:
	case k != kindNone:
		f.obj = s.object(k, parent.obj)
		s.queue = append(s.queue, f.obj)
	default:
		s.part(&f, parent.obj)
	}
	s.stack = append(s.stack, f)
}

// class is the open tag's xsi:type without its prefix, as class.
func (s *scanner) class() string {
	for _, a := range s.attrs {
		if a.key == "xsi:type" {
			if _, c, ok := strings.Cut(a.value, ":"); ok {
				return c
			}
			return a.value
		}
	}
	return ""
}

// object makes the object the open tag starts.
func (s *scanner) object(k Kind, parent *Scanned) *Scanned {
	o := &Scanned{sc: s, parent: parent, kind: k, id: s.value("id"), name: s.value("name"),
		class: s.class(), source: s.value("source"), target: s.value("target")}
	if k == KindDiagramObject || k == KindConnection {
		o.concept = s.value("archimateElement")
		if o.concept == "" {
			o.concept = s.value("archimateRelationship")
		}
		if o.concept == "" && k == KindConnection {
			o.concept = s.value("relationship") // Archi 2.x
		}
	}
	if hasSettings(k) {
		for _, a := range s.attrs {
			if !namingAttrs[a.key] {
				o.settings = append(o.settings, Property{a.key, a.value})
			}
		}
	}
	folder := ""
	if parent != nil && parent.kind == KindFolder {
		folder = parent.folder
	}
	if k == KindFolder {
		if parent != nil && parent.kind == KindFolder {
			folder += "/"
		}
		folder += o.name
	}
	o.folder = folder
	if o.id != "" {
		if _, dup := s.byID[o.id]; !dup {
			s.byID[o.id] = Named{Kind: k, Class: className(k, o.class), Name: o.name}
		}
	}
	return o
}

// part notes what an element directly inside object o adds to it.
func (s *scanner) part(f *frame, o *Scanned) {
	switch f.tag {
	case "documentation":
		if o.flags&scannedDoc == 0 {
			o.flags |= scannedDoc
			f.part = partDoc
		}
	case "property":
		o.props = append(o.props, Property{s.value("key"), s.value("value")})
	case "bendpoint":
		if o.kind == KindConnection {
			o.settings = append(o.settings, bendpoint(s.value))
		}
	case "bounds":
		if o.flags&scannedBounds == 0 {
			o.flags |= scannedBounds
			o.bounds = boundsOf(s.value)
		}
	}
}

func (s *scanner) end(_, _, _ int) {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if f.obj != nil {
		f.obj.flags |= scannedEnded
		s.deliver(false)
	}
}

func (s *scanner) text(t string) {
	if f := &s.stack[len(s.stack)-1]; f.part == partDoc {
		o := s.stack[len(s.stack)-2].obj
		o.doc += t
	}
}

func (s *scanner) comment(string) {}

func (s *scanner) procInst(string, string) {
	if n := len(s.stack); n > 0 && s.stack[n-1].part == partDoc {
		s.stack[n-1].part = partNone // documentation's text ends at a processing instruction
	}
}

// deliver calls fn for the objects at the head of the queue that are ready: ended and, unless
// the file has ended, with every object they refer to read.
func (s *scanner) deliver(final bool) {
	for s.head < len(s.queue) {
		o := s.queue[s.head]
		if o.flags&scannedEnded == 0 || !final && !(s.read(o.source) && s.read(o.target) && s.read(o.concept)) {
			break
		}
		s.queue[s.head] = nil
		s.head++
		s.call(o)
	}
	switch {
	case s.head == len(s.queue):
		s.queue, s.head = s.queue[:0], 0
	case s.head >= 4096 && s.head*2 >= len(s.queue):
		n := copy(s.queue, s.queue[s.head:])
		clear(s.queue[n:])
		s.queue, s.head = s.queue[:n], 0
	}
}

// read reports whether the object with the id has been read, or the id is empty.
func (s *scanner) read(id string) bool {
	if id == "" {
		return true
	}
	_, ok := s.byID[id]
	return ok
}

func (s *scanner) call(o *Scanned) {
	if s.err == nil {
		s.err = s.fn(o)
	}
}
