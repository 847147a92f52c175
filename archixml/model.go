package archixml

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"unsafe"

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
			if c, ok := taggedClass(e.Tag); ok {
				return c.kind
			}
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

// conceptTags holds the tag "element" once for each class a concept or view can have (and once
// for a class unknown): an element read is given the copy of its class as its tag (tagClass),
// equal to "element" as any other, so that kindOf and Type know its kind and catalogue entry
// from where the tag's bytes are, without reading its class and looking it up (at 100k elements,
// where every object's kind is asked several times, those look-ups were a sixth of a cold
// context's CPU). Its bytes are its own, never a literal's, so an element made anew is
// classified as ever.
var conceptTags = strings.Repeat("element", len(tagged))

// tagged is what each tag of conceptTags says, in its order; taggedAt is the place of each class
// in it (an unknown class's is 0).
var tagged, taggedAt = func() ([]classInfo, map[string]int) {
	classes := slices.Sorted(maps.Keys(kindByClass))
	infos := []classInfo{{kind: KindOther}}
	at := map[string]int{}
	for _, c := range classes {
		at[c] = len(infos)
		infos = append(infos, classInfo{kind: kindByClass[c], typ: typeByClass[c]})
	}
	return infos, at
}()

// classInfo is what an element's class says of it: its kind (classKind) and its catalogue entry
// (typeByClass).
type classInfo struct {
	kind Kind
	typ  *ConceptType
}

// tagClass gives an <element> the tag that says its class (conceptTags).
func tagClass(e *etree.Element) {
	i := taggedAt[class(e)]
	e.Tag = conceptTags[i*len("element") : (i+1)*len("element")]
}

// untagClass forgets the class an <element>'s tag says, before its class may change.
func untagClass(e *etree.Element) {
	if _, ok := taggedClass(e.Tag); ok {
		e.Tag = "element"
	}
}

// taggedClass is what a tag given by tagClass says of the element's class.
func taggedClass(tag string) (*classInfo, bool) {
	at := uintptr(unsafe.Pointer(unsafe.StringData(tag))) - uintptr(unsafe.Pointer(unsafe.StringData(conceptTags)))
	if len(tag) != len("element") || at >= uintptr(len(conceptTags)) {
		return nil, false
	}
	return &tagged[at/uintptr(len("element"))], true
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
	byName    map[string][]*etree.Element // name -> elements and views of that name; nil until Named needs it
	dupIDs    []string

	// alike is, for each Fold asked of Alike, the fold of a name -> the elements and views whose
	// names fold to it; each built on first use, then kept up to date as byName is
	alike map[*Fold]map[string][]*etree.Element

	archive *archiveInfo // non-nil when read from Archi's zipped form

	idSeed string
	idSeq  int

	rec     *[]Step // the journal, while recording
	touches []Touch // what each step of the journal changed (the step itself left out)

	gen   int        // counts edits of the tree and its source spans (markDirty, forgetSource)
	saved *saveSpans // where the last Save put every element, for Rebase

	// indexed is true once the first index is built: from then on an object is put into the
	// index lists at its place in the document, not at their end, so that after any edit and undo
	// the lists are in the order a fresh load gives (new ids follow that order).
	indexed bool
}

type archiveInfo struct {
	files   []*zip.File
	modelAt int // index of model.xml in files
	raw     []byte
}

// Load reads a model from the bytes of a .archimate file, plain or zipped, of at most
// MaxModelBytes of XML.
func Load(data []byte) (*Model, error) {
	if err := checkFileSize(data); err != nil {
		return nil, err
	}
	if zipped(data) {
		return loadArchive(data)
	}
	return loadXML(data)
}

// LoadOwned is Load of bytes the caller hands over: the model reads its names and values out of
// data itself instead of a copy (tens of megabytes, and their copying, for a large model). data
// must not change afterwards, by anyone.
func LoadOwned(data []byte) (*Model, error) {
	if err := checkFileSize(data); err != nil {
		return nil, err
	}
	if zipped(data) {
		return loadArchive(data)
	}
	return loadSource(unsafe.String(unsafe.SliceData(data), len(data)))
}

func checkFileSize(data []byte) error {
	if len(data) > MaxModelBytes {
		return fmt.Errorf("the model file is %d bytes, over the limit of %d: %w", len(data), MaxModelBytes, ErrTooLarge)
	}
	return nil
}

// zipped reports whether data is Archi's zipped form (model.xml with images/).
func zipped(data []byte) bool { return bytes.HasPrefix(data, []byte("PK\x03\x04")) }

func loadArchive(data []byte) (*Model, error) {
	src, zr, at, err := inflate(data)
	if err != nil {
		return nil, err
	}
	m, err := loadSource(src)
	if err != nil {
		return nil, err
	}
	m.archive = &archiveInfo{files: zr.File, modelAt: at, raw: data}
	return m, nil
}

// inflate reads model.xml out of Archi's zipped form: its XML, the archive, and model.xml's place
// in it.
func inflate(data []byte) (string, *zip.Reader, int, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", nil, 0, fmt.Errorf("read archive: %v: %w", err, ErrMalformed)
	}
	at := -1
	for i, f := range zr.File {
		if f.Name == "model.xml" {
			at = i
		}
	}
	if at < 0 {
		return "", nil, 0, fmt.Errorf("archive holds no model.xml: %w", ErrNotModel)
	}
	f := zr.File[at]
	limit := int64(MaxModelBytes)
	if f.UncompressedSize64 > uint64(limit) {
		return "", nil, 0, fmt.Errorf("model.xml inflates to %d bytes, over the limit of %d: %w", f.UncompressedSize64, limit, ErrTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return "", nil, 0, fmt.Errorf("open model.xml: %v: %w", err, ErrMalformed)
	}
	defer rc.Close()
	// the header's size, checked above, is all the room there is: a stream that inflates to more
	// is cut one byte after it (archive/zip also refuses a size other than the header's)
	var xml strings.Builder
	xml.Grow(int(f.UncompressedSize64))
	n, err := io.Copy(&xml, io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if n > int64(f.UncompressedSize64) {
		return "", nil, 0, fmt.Errorf("model.xml inflates to more than its header's %d bytes: %w", f.UncompressedSize64, ErrMalformed)
	}
	if err != nil {
		return "", nil, 0, fmt.Errorf("read model.xml: %v: %w", err, ErrMalformed)
	}
	return xml.String(), zr, at, nil
}

func loadXML(data []byte) (*Model, error) {
	return loadSource(string(data)) // the model's own copy: names and values are substrings of it
}

func loadSource(src string) (*Model, error) {
	if len(src) >= piecesFrom {
		defer roomyGC()()
	}
	doc, spans, pending, err := readLater(src)
	if err != nil {
		return nil, err
	}
	root := doc.Root()
	if root.Space != "archimate" || root.Tag != "model" {
		return nil, ErrNotModel
	}
	m := &Model{doc: doc, root: root, src: src, nl: detectNewline(src), spans: spans,
		state: map[*etree.Element]uint8{}}
	if len(pending) == 0 {
		m.reindex()
		return m, nil
	}
	// the spans of a model read in pieces go into one map while the index is built (80 ms of
	// map work at 100,000 elements that needs nothing but the lists)
	n := len(spans)
	for _, p := range pending {
		n += len(p)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		addSpans(spans, pending)
	}()
	m.reindexOf(n)
	<-done
	return m, nil
}

func detectNewline(data string) string {
	if i := strings.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// reindex rebuilds every index from the tree.
func (m *Model) reindex() { m.reindexOf(len(m.spans)) }

// reindexOf is reindex for a tree of n elements; it never reads m.spans (loadSource fills them
// in meanwhile).
func (m *Model) reindexOf(n int) {
	m.reindex0()
	m.byID = make(map[string]*etree.Element, n/2)
	// sized for a model's usual share of relationships and diagram objects, so that they do not
	// grow (and copy themselves) a dozen times while a large model is indexed
	m.relsByEnd = make(map[string][]*etree.Element, n/8)
	m.refsTo = make(map[string][]*etree.Element, n/8)
	m.dupIDs = nil
	m.indexed = false
	if n >= indexApartFrom && runtime.GOMAXPROCS(0) > 1 {
		// the ids on one core, what refers to what on another: each writes maps of its own and
		// only reads the tree (140 ms at 100,000 elements on one core, two thirds of it map work)
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.walkIndexed(m.root, KindModel, m.indexRefs)
		}()
		m.walkIndexed(m.root, KindModel, func(e *etree.Element, _ Kind) { m.indexID(e) })
		<-done
	} else {
		m.indexTree(m.root, KindModel)
	}
	m.indexed = true
}

// indexApartFrom is the number of objects from which reindex builds its maps on two cores.
var indexApartFrom = 20000

func (m *Model) indexTree(e *etree.Element, k Kind) { m.walkIndexed(e, k, m.indexOne) }

// walkIndexed calls fn on e and on every object under it that the index knows, in document order.
func (m *Model) walkIndexed(e *etree.Element, k Kind, fn func(*etree.Element, Kind)) {
	fn(e, k)
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			if ck := kindOf(c); ck != kindNone {
				m.walkIndexed(c, ck, fn)
			}
		}
	}
}

func classKind(cls string) Kind {
	if k, ok := kindByClass[cls]; ok {
		return k
	}
	return KindOther
}

// kindByClass is the kind of each class the catalogue knows (Archi 2.x's legacy names too): one
// lookup per element read, where asking the legacy names, the elements, the relationships and the
// view types in turn took up to five (a sixth of a cold context's CPU at 100k).
var kindByClass = func() map[string]Kind {
	kinds := map[string]Kind{}
	for cls := range elementByClass {
		kinds[cls] = KindElement
	}
	for cls := range relationshipByClass {
		kinds[cls] = KindRelationship
	}
	for _, cls := range ViewTypes {
		kinds[cls] = KindView
	}
	for old, cls := range legacyClasses {
		if k, ok := kinds[cls]; ok {
			kinds[old] = k
		} else {
			kinds[old] = KindOther
		}
	}
	return kinds
}()

func (m *Model) indexOne(e *etree.Element, k Kind) {
	m.indexID(e)
	m.indexRefs(e, k)
}

// indexID indexes e by its id (byID; a second object with the id goes to dupIDs).
func (m *Model) indexID(e *etree.Element) {
	id := e.SelectAttrValue("id", "")
	if id != "" {
		if _, dup := m.byID[id]; dup {
			m.dupIDs = append(m.dupIDs, id)
		} else {
			m.byID[id] = e
		}
	}
}

// indexRefs indexes e by what it refers to: relsByEnd, refsTo, byName when built.
func (m *Model) indexRefs(e *etree.Element, k Kind) {
	switch k {
	case KindRelationship:
		for _, end := range []string{"source", "target"} {
			if v := e.SelectAttrValue(end, ""); v != "" {
				m.relsByEnd[v] = m.inOrder(m.relsByEnd[v], e)
			}
		}
	case KindDiagramObject, KindConnection:
		if v := conceptRef(e); v != "" {
			m.refsTo[v] = m.inOrder(m.refsTo[v], e)
		}
	case KindElement, KindView:
		m.named(e)
	}
}

// link and unlink keep the index built from one attribute of an object in step with it, around an
// edit of that attribute: relsByEnd (source, target of relationships), refsTo (the concept a
// diagram object or connection shows), byName (name of elements and views).
func (m *Model) link(e *etree.Element, key string) {
	switch k := kindOf(e); {
	case key == "name" && (k == KindElement || k == KindView):
		m.named(e)
	case (key == "source" || key == "target") && k == KindRelationship:
		if v := e.SelectAttrValue(key, ""); v != "" {
			m.relsByEnd[v] = m.inOrder(m.relsByEnd[v], e)
		}
	case key != "name" && key != "source" && key != "target" && (k == KindDiagramObject || k == KindConnection):
		if v := conceptRef(e); v != "" {
			m.refsTo[v] = m.inOrder(m.refsTo[v], e)
		}
	}
}

func (m *Model) unlink(e *etree.Element, key string) {
	switch k := kindOf(e); {
	case key == "name" && (k == KindElement || k == KindView):
		m.unnamed(e)
	case (key == "source" || key == "target") && k == KindRelationship:
		v := e.SelectAttrValue(key, "")
		m.relsByEnd[v] = without(m.relsByEnd[v], e)
	case key != "name" && key != "source" && key != "target" && (k == KindDiagramObject || k == KindConnection):
		v := conceptRef(e)
		m.refsTo[v] = without(m.refsTo[v], e)
	}
}

// named and unnamed put an element or view into, and take it out of, the indexes by its name that
// are built: byName and each of alike.
func (m *Model) named(e *etree.Element) {
	n := e.SelectAttrValue("name", "")
	if m.byName != nil {
		m.byName[n] = m.inOrder(m.byName[n], e)
	}
	for f, idx := range m.alike {
		k := (*f)(n)
		idx[k] = m.inOrder(idx[k], e)
	}
}

func (m *Model) unnamed(e *etree.Element) {
	n := e.SelectAttrValue("name", "")
	if m.byName != nil {
		m.byName[n] = without(m.byName[n], e)
	}
	for f, idx := range m.alike {
		k := (*f)(n)
		idx[k] = without(idx[k], e)
	}
}

// linkedAttr says whether an index is built from the attribute.
func linkedAttr(key string) bool {
	switch key {
	case "source", "target", "archimateElement", "archimateRelationship", "relationship", "name":
		return true
	}
	return false
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
		case KindElement, KindView:
			m.unnamed(e)
		}
	}
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			m.unindex(c)
		}
	}
}

// inOrder adds e to an index list kept in document order. While the index is built from the tree
// the walk is in document order already; later, e goes before the objects it precedes in the
// document (most edits add at the end, so the scan from the end is short).
func (m *Model) inOrder(list []*etree.Element, e *etree.Element) []*etree.Element {
	if !m.indexed {
		return append(list, e)
	}
	j := len(list)
	for j > 0 && docBefore(e, list[j-1]) {
		j--
	}
	list = append(list, nil)
	copy(list[j+1:], list[j:])
	list[j] = e
	return list
}

// docBefore reports whether a comes before b in the document (a ancestor of b counts as before).
func docBefore(a, b *etree.Element) bool {
	pa, pb := docPath(a), docPath(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// docPath is the index of e and of each of its ancestors among their parent's tokens, from the
// top.
func docPath(e *etree.Element) []int {
	var p []int
	for ; e != nil && e.Parent() != nil; e = e.Parent() {
		p = append(p, e.Index())
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
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
