package archixml

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
)

// MaxModelBytes bounds a model's XML: the plain file, or the model.xml inflated from Archi's
// zipped form. Load refuses a bigger one with ErrTooLarge, for a zipped model from its header
// before inflating anything and again while inflating (a header can lie), so that a load never
// holds more than this much XML; CheckSize refuses an edit that would make one. Parsing takes a
// few times the XML's size in memory, so the default (256 MiB, several times the largest real
// enterprise models, a 100,000-element model is about 34 MB) keeps a load within a few GiB. A
// program may set it at start, before any load.
var MaxModelBytes = 256 << 20

// Kind says what an object with an id is.
type Kind int

// The kinds of objects with ids.
const (
	KindOther         Kind = iota // anything else with an id (a diagram's image, a canvas block)
	KindModel                     // the root
	KindFolder                    // a folder, top-level or user
	KindElement                   // an ArchiMate element (Junction included)
	KindRelationship              // an ArchiMate relationship
	KindView                      // a diagram model (ArchiMate view, sketch, canvas)
	KindDiagramObject             // a <child> of a view: diagram object, group, note, reference
	KindConnection                // a <sourceConnection> on a view
	KindProfile                   // a specialization (profile)
)

// kindNone marks the parts of objects that have no id (bounds, properties, documentation).
const kindNone Kind = -1

var kindNames = [...]string{"object", "model", "folder", "element", "relationship", "view",
	"diagram object", "connection", "profile"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "part"
	}
	return kindNames[k]
}

// kindOf classifies an element of the tree by its tag (and its class, for concepts and views).
func kindOf(e *etree.Element) Kind {
	switch e.Tag {
	case "folder":
		return KindFolder
	case "element":
		if p := e.Parent(); p != nil && p.Tag == "folder" {
			return classKind(class(e))
		}
	case "child":
		return KindDiagramObject
	case "sourceConnection":
		return KindConnection
	case "profile":
		if p := e.Parent(); p != nil && p.Tag == "model" {
			return KindProfile
		}
	case "model":
		if e.Space == "archimate" {
			return KindModel
		}
	}
	return kindNone
}

// legacyClasses maps the class names of Archi 2.x models to the ones Archi converts them to.
var legacyClasses = map[string]string{
	"UsedByRelationship": "ServingRelationship", "CommunicationPath": "Path",
	"Network": "CommunicationNetwork", "InfrastructureInterface": "TechnologyInterface",
	"InfrastructureFunction": "TechnologyFunction", "InfrastructureService": "TechnologyService",
	"RealisationRelationship": "RealizationRelationship", "SpecialisationRelationship": "SpecializationRelationship",
	"DiagramModel": "ArchimateDiagramModel", "AndJunction": "Junction", "OrJunction": "Junction",
	"BusinessActivity": "BusinessProcess",
}

// span is where an element was in the source: its start tag is src[start:tagEnd], the whole
// element src[start:end].
type span struct{ start, tagEnd, end int }

// edit states of an element
const (
	stateDirty   uint8 = 1 << iota // its own tag or its list of children changed: write it anew
	stateTouched                   // something below it changed: copy its tags, walk its children
)

// Model is one loaded .archimate model. It is not safe for concurrent edits; concurrent reads of
// a model nobody edits are fine.
type Model struct {
	doc  *etree.Document
	root *etree.Element
	src  string // the XML the model was read from (model.xml for an archive)
	nl   string // the line separator the file uses

	spans map[*etree.Element]span
	state map[*etree.Element]uint8

	byID      map[string]*etree.Element
	relsByEnd map[string][]*etree.Element // concept id -> relationships with it as source or target
	refsTo    map[string][]*etree.Element // concept id -> diagram objects and connections showing it
	dupIDs    []string

	archive *archiveInfo // non-nil when read from Archi's zipped form

	idSeed string
	idSeq  int

	rec *[]Step // the journal, while recording
}

type archiveInfo struct {
	files   []*zip.File
	modelAt int // index of model.xml in files
	raw     []byte
}

// Load reads a model from the bytes of a .archimate file, plain or zipped, of at most
// MaxModelBytes of XML.
func Load(data []byte) (*Model, error) {
	if len(data) > MaxModelBytes {
		return nil, fmt.Errorf("the model file is %d bytes, over the limit of %d: %w", len(data), MaxModelBytes, ErrTooLarge)
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return loadArchive(data)
	}
	return loadXML(data)
}

func loadArchive(data []byte) (*Model, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("read archive: %v: %w", err, ErrMalformed)
	}
	at := -1
	for i, f := range zr.File {
		if f.Name == "model.xml" {
			at = i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("archive holds no model.xml: %w", ErrNotModel)
	}
	f := zr.File[at]
	limit := int64(MaxModelBytes)
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("model.xml inflates to %d bytes, over the limit of %d: %w", f.UncompressedSize64, limit, ErrTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open model.xml: %v: %w", err, ErrMalformed)
	}
	defer rc.Close()
	// the header's size, checked above, is all the room there is: a stream that inflates to more
	// is cut one byte after it (archive/zip also refuses a size other than the header's)
	var xml strings.Builder
	xml.Grow(int(f.UncompressedSize64))
	n, err := io.Copy(&xml, io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if n > int64(f.UncompressedSize64) {
		return nil, fmt.Errorf("model.xml inflates to more than its header's %d bytes: %w", f.UncompressedSize64, ErrMalformed)
	}
	if err != nil {
		return nil, fmt.Errorf("read model.xml: %v: %w", err, ErrMalformed)
	}
	m, err := loadSource(xml.String())
	if err != nil {
		return nil, err
	}
	m.archive = &archiveInfo{files: zr.File, modelAt: at, raw: data}
	return m, nil
}

func loadXML(data []byte) (*Model, error) {
	return loadSource(string(data)) // the model's own copy: names and values are substrings of it
}

func loadSource(src string) (*Model, error) {
	doc, spans, err := read(src)
	if err != nil {
		return nil, err
	}
	root := doc.Root()
	if root.Space != "archimate" || root.Tag != "model" {
		return nil, ErrNotModel
	}
	m := &Model{doc: doc, root: root, src: src, nl: detectNewline(src), spans: spans,
		state: map[*etree.Element]uint8{}}
	m.reindex()
	return m, nil
}

func detectNewline(data string) string {
	if i := strings.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// reindex rebuilds every index from the tree.
func (m *Model) reindex() {
	m.reindex0()
	m.byID = make(map[string]*etree.Element, len(m.spans)/2)
	m.dupIDs = nil
	m.indexTree(m.root, KindModel)
}

func (m *Model) indexTree(e *etree.Element, k Kind) {
	m.indexOne(e, k)
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			if ck := kindOf(c); ck != kindNone {
				m.indexTree(c, ck)
			}
		}
	}
}

func classKind(cls string) Kind {
	if l, ok := legacyClasses[cls]; ok {
		cls = l
	}
	switch {
	case elementByClass[cls] != nil:
		return KindElement
	case relationshipByClass[cls] != nil:
		return KindRelationship
	case FolderFor(cls) == FolderDiagrams:
		return KindView
	}
	return KindOther
}

func (m *Model) indexOne(e *etree.Element, k Kind) {
	id := e.SelectAttrValue("id", "")
	if id != "" {
		if _, dup := m.byID[id]; dup {
			m.dupIDs = append(m.dupIDs, id)
		} else {
			m.byID[id] = e
		}
	}
	switch k {
	case KindRelationship:
		for _, end := range []string{"source", "target"} {
			if v := e.SelectAttrValue(end, ""); v != "" {
				m.relsByEnd[v] = append(m.relsByEnd[v], e)
			}
		}
	case KindDiagramObject, KindConnection:
		if v := conceptRef(e); v != "" {
			m.refsTo[v] = append(m.refsTo[v], e)
		}
	}
}

// unindex forgets e and everything below it.
func (m *Model) unindex(e *etree.Element) {
	if k := kindOf(e); k != kindNone {
		id := e.SelectAttrValue("id", "")
		if m.byID[id] == e {
			delete(m.byID, id)
		}
		switch k {
		case KindRelationship:
			for _, end := range []string{"source", "target"} {
				v := e.SelectAttrValue(end, "")
				m.relsByEnd[v] = without(m.relsByEnd[v], e)
			}
		case KindDiagramObject, KindConnection:
			v := conceptRef(e)
			m.refsTo[v] = without(m.refsTo[v], e)
		}
	}
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			m.unindex(c)
		}
	}
}

func without(list []*etree.Element, e *etree.Element) []*etree.Element {
	for i, x := range list {
		if x == e {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

func conceptRef(e *etree.Element) string {
	if v := e.SelectAttrValue("archimateElement", ""); v != "" {
		return v
	}
	if v := e.SelectAttrValue("archimateRelationship", ""); v != "" {
		return v
	}
	// Archi 2.x named the connection's relationship "relationship"
	if e.Tag == "sourceConnection" {
		return e.SelectAttrValue("relationship", "")
	}
	return ""
}

// class returns an element's xsi:type without the "archimate:" prefix.
func class(e *etree.Element) string {
	for _, a := range e.Attr {
		if a.Key == "type" && a.Space == "xsi" {
			_, c, ok := strings.Cut(a.Value, ":")
			if !ok {
				return a.Value
			}
			return c
		}
	}
	return ""
}

// Digest is the SHA-256 of the XML the model was read from: what deterministic ids start from.
func (m *Model) Digest() [32]byte {
	h := sha256.New()
	_, _ = io.WriteString(h, m.src)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Archived reports whether the model was read from Archi's zipped form.
func (m *Model) Archived() bool { return m.archive != nil }

// DuplicateIDs lists ids used by more than one object; Archi refuses to save such a model.
func (m *Model) DuplicateIDs() []string { return m.dupIDs }
