package exchange

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/archiplan/archiplan/archixml"
)

// This file reads an exchange file as a stream of tokens (encoding/xml) into the few records an
// import needs, checking on the way what archimate3_Diagram.xsd requires of its structure: known
// element names in their places and order, required attributes, identifiers that are NCNames and
// unique, numbers where numbers go. It keeps no tree of the input.

const (
	xsiNS = "http://www.w3.org/2001/XMLSchema-instance"
	xmlNS = "http://www.w3.org/XML/1998/namespace"
)

// what an identifier names
type idKind int

const (
	idModel idKind = iota
	idElement
	idRelationship
	idPropertyDef
	idView
	idNode
	idConnection
	idOther
)

var idWords = [...]string{"the model", "an element", "a relationship", "a property definition", "a view",
	"a node", "a connection", "an item"}

type ident struct {
	kind  idKind
	line  int
	class string // an element's or relationship's Archi class, once checked
}

type prop struct {
	ref, value string
	def        *ident // the record of ref, when the parser knew it already
	line       int
}

type concept struct {
	id, typ, name, doc string
	ident              *ident // the record of its identifier
	class              string // its Archi class, once checked
	props              []prop
	line               int
	// relationships
	source, target, access, modifier, directed string
	hasAccess                                  bool
	src, tgt                                   *ident // the records of source and target, when the parser knew them already
}

type item struct {
	ref, label, doc string
	hasLabel        bool
	kids            []*item
	line            int
}

type rgba struct {
	r, g, b, a int
	hasA       bool
}

type style struct {
	lineWidth        int // 0: not given
	fill, line, font *rgba
	fontName         string
	fontSize         string
	fontStyle        string
	hasFont          bool
}

type point struct{ x, y int }

type node struct {
	id, typ, elementRef, label, doc, viewRef string
	hasLabel, hasDoc, hasViewRef             bool
	x, y, w, h                               int
	style                                    *style
	kids                                     []*node
	line                                     int
	elem                                     *ident // the record of elementRef, when the parser knew it already
}

type conn struct {
	id, typ, relRef, source, target string
	style                           *style
	srcAtt, tgtAtt                  *point
	bends                           []point
	line                            int
	rel                             *ident // the record of relRef, when the parser knew it already
}

type view struct {
	id, viewpoint, name, doc string
	props                    []prop
	nodes                    []*node
	conns                    []*conn
	line                     int
}

// file is what an exchange file holds that an import uses.
type file struct {
	id, name, doc string
	props         []prop
	elements      []*concept
	rels          []*concept
	orgs          []*item
	propDefs      map[string]string // identifier -> name
	views         []*view
	ids           map[string]*ident
	refs          []idref // every IDREF, checked once all identifiers are known
}

type idref struct {
	value, what string
	line        int
}

// The bounds of an import, so that any file costs time and memory in proportion to its bytes and
// gives a model archiplan can load (its reader nests at most 1,000 levels; what the exchange
// format nests, organizations and nodes, becomes as many levels of folders and diagram objects).
const (
	MaxDepth    = 500
	MaxElements = 2_000_000
)

// tokens is what the parser reads: archixml's Reader (xmlReader), or (in tests) encoding/xml's
// Decoder, which reads the same tokens.
type tokens interface {
	next(t *token) error // the next token into t, or io.EOF
	Skip() error
	InputPos() (int, int)
}

// token is one token read: a start tag, an end tag, a run of text or a declaration (Directive);
// its start and text are valid until the next is read.
type token struct {
	kind  tokKind
	start xml.StartElement // tokStart
	text  string           // tokText and tokDirective
}

type tokKind uint8

const (
	tokNone tokKind = iota // none: the file ended, or was refused
	tokStart
	tokEnd
	tokText
	tokDirective
	tokOther // a comment or processing instruction, which the parser passes over
)

// xmlReader gives the parser the tokens of archixml's Reader, the .archimate reader's own: with
// namespaces resolved, a DOCTYPE returned (for the parser to refuse in its words) and the
// import's bounds. Filled in place, a token costs no allocation (boxed in an xml.Token
// interface, each start, end and run of text was one, 40% of an import's allocations), and
// values and text are the file's bytes, not copies.
type xmlReader struct {
	r     *archixml.Reader
	block []xml.Attr // the rest of the block start tags' attributes are cut from
}

func newReader(src []byte) *xmlReader {
	// src outlives what is read of it: ImportData keeps nothing of src past its return, and
	// prepare's buffer is kept by the strings themselves
	s := unsafe.String(unsafe.SliceData(src), len(src))
	return &xmlReader{r: archixml.NewReader(s, archixml.ReaderOptions{Namespaces: true, Directives: true, MaxDepth: MaxDepth, MaxElements: MaxElements})}
}

// attrBlock is how many attributes the reader allocates at once for the start tags it returns.
const attrBlock = 1024

func (x *xmlReader) next(t *token) error {
	for {
		tk, err := x.r.Next()
		if err != nil {
			return err
		}
		switch tk.Kind {
		case archixml.TokStart:
			t.kind, t.start = tokStart, xml.StartElement{Name: xml.Name{Space: tk.Space, Local: tk.Local}}
			if n := len(tk.Attrs); n > 0 {
				// cut from a block: one allocation a start tag was a tenth of the reading's time
				if len(x.block) < n {
					x.block = make([]xml.Attr, max(attrBlock, n))
				}
				t.start.Attr, x.block = x.block[:n:n], x.block[n:]
				for i, a := range tk.Attrs {
					t.start.Attr[i] = xml.Attr{Name: xml.Name{Space: a.Space, Local: a.Local}, Value: a.Value}
				}
			}
		case archixml.TokEnd:
			t.kind = tokEnd
		case archixml.TokText:
			t.kind, t.text = tokText, tk.Text
		case archixml.TokDirective:
			t.kind, t.text = tokDirective, tk.Text
		default:
			continue // comments and processing instructions
		}
		return nil
	}
}

// Skip reads up to the end of the element whose start was read last.
func (x *xmlReader) Skip() error {
	for depth := 1; depth > 0; {
		tk, err := x.r.Next()
		if err != nil {
			return err
		}
		switch tk.Kind {
		case archixml.TokStart:
			depth++
		case archixml.TokEnd:
			depth--
		}
	}
	return nil
}

// InputPos is the line of the position reached.
func (x *xmlReader) InputPos() (int, int) { return x.r.Line(), 0 }

type parser struct {
	dec    tokens
	t      token // the token read last
	f      *file
	probs  []Problem
	fatal  bool
	idents []ident // cut from in blocks: one allocation an identifier was a tenth of the map's cost
}

func (p *parser) line() int {
	l, _ := p.dec.InputPos()
	return l
}

func (p *parser) add(code string, line int, format string, args ...any) {
	p.probs = append(p.probs, Problem{Code: code, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) fail(err error) {
	if p.fatal {
		return
	}
	p.fatal = true
	var re *archixml.SyntaxError
	if errors.As(err, &re) {
		code := CodeMalformed
		if re.Limit {
			code = CodeLimit
		}
		p.add(code, re.Line, "%s", re.Msg)
		return
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		p.add(CodeMalformed, se.Line, "%s", se.Msg)
		return
	}
	p.add(CodeMalformed, p.line(), "%v", err)
}

func (p *parser) tok() *token {
	if p.fatal {
		p.t.kind = tokNone
		return &p.t
	}
	if err := p.dec.next(&p.t); err != nil {
		if err == io.EOF {
			err = errors.New("the file ends inside an element")
		}
		p.fail(err)
		p.t.kind = tokNone
	}
	return &p.t
}

func (p *parser) skip() {
	if p.fatal {
		return
	}
	if err := p.dec.Skip(); err != nil {
		p.fail(err)
	}
}

// text reads an element's text (its end consumed); an element inside is a schema violation.
func (p *parser) text(se xml.StartElement) string {
	var s string
	var b []byte
	for {
		switch t := p.tok(); t.kind {
		case tokNone, tokEnd:
			if b != nil {
				return string(b)
			}
			return s
		case tokText:
			if s == "" && b == nil {
				s = t.text
			} else {
				if b == nil {
					b = []byte(s)
				}
				b = append(b, t.text...)
			}
		case tokStart:
			p.add(CodeSchema, p.line(), "<%s> holds text only, not <%s>", se.Name.Local, t.start.Name.Local)
			p.skip()
		}
	}
}

// each reads the children of the element just started, calling fn for each child of the format's
// namespace named in order (fn consumes it whole), in that order unless anyOrder. Children of
// other namespaces are skipped (the schema's extension points), others are schema violations.
func (p *parser) each(parent xml.StartElement, order []string, anyOrder bool, fn func(k int, se xml.StartElement)) {
	last := 0
	for {
		switch t := p.tok(); t.kind {
		case tokNone, tokEnd:
			return
		case tokText:
			if strings.TrimSpace(t.text) != "" {
				p.add(CodeSchema, p.line(), "text in <%s>, which holds elements only", parent.Name.Local)
			}
		case tokStart:
			t := t.start // the child's start, kept: fn reads on
			if t.Name.Space != Namespace {
				p.skip()
				continue
			}
			k := -1
			for i, n := range order {
				if n == t.Name.Local {
					k = i
					break
				}
			}
			if k < 0 {
				p.add(CodeSchema, p.line(), "<%s> is not allowed in <%s>", t.Name.Local, parent.Name.Local)
				p.skip()
				continue
			}
			if k < last && !anyOrder {
				p.add(CodeSchema, p.line(), "<%s> in <%s> must come before <%s>", t.Name.Local, parent.Name.Local, order[last])
			}
			last = max(last, k)
			fn(k, t)
		}
	}
}

// attrs reads an element's attributes into the named slots; one not named (in no namespace) is
// a schema violation, and one of the format's, or another namespace's, is left alone.
func (p *parser) attrs(se xml.StartElement, names []string, out []*string) (xsiType string) {
	for _, a := range se.Attr {
		switch a.Name.Space {
		case "xmlns":
		case "":
			if a.Name.Local == "xmlns" {
				continue
			}
			found := false
			for i, n := range names {
				if n == a.Name.Local {
					*out[i] = a.Value
					found = true
					break
				}
			}
			if !found {
				p.add(CodeSchema, p.line(), "<%s> has no attribute %s", se.Name.Local, a.Name.Local)
			}
		case xsiNS:
			if a.Name.Local == "type" {
				xsiType = a.Value
				if i := strings.IndexByte(xsiType, ':'); i >= 0 {
					xsiType = xsiType[i+1:]
				}
			}
		}
	}
	return xsiType
}

func (p *parser) require(se xml.StartElement, line int, pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			p.add(CodeSchema, line, "<%s> needs the attribute %s", se.Name.Local, pairs[i])
		}
	}
}

// identifier records an xs:ID: an NCName, unique in the file. It returns the identifier's record
// (the first one's, for one used twice; nil for none).
func (p *parser) identifier(se xml.StartElement, id string, kind idKind, line int) *ident {
	if id == "" {
		p.add(CodeSchema, line, "<%s> needs the attribute identifier", se.Name.Local)
		return nil
	}
	if !ncName(id) {
		p.add(CodeSchema, line, "identifier %q is not an XML name (xs:ID: a letter or _ first, no spaces or colons)", id)
	}
	if prev, dup := p.f.ids[id]; dup {
		p.add(CodeDuplicateID, line, "identifier %q is used already by %s at line %d", id, idWords[prev.kind], prev.line)
		return prev
	}
	if len(p.idents) == 0 {
		p.idents = make([]ident, 1024)
	}
	d := &p.idents[0]
	p.idents = p.idents[1:]
	*d = ident{kind: kind, line: line}
	p.f.ids[id] = d
	return d
}

// ref notes an IDREF for check; one that names an identifier read already cannot dangle and is
// not kept (at 100,000 elements the list was a tenth of the parse), and its record is returned,
// for check to use without looking it up again (nil when there is none yet).
func (p *parser) ref(value, what string, line int) *ident {
	d, known := p.f.ids[value]
	if value != "" && !known {
		p.f.refs = append(p.f.refs, idref{value, what, line})
	}
	return d
}

// ncName reports whether s is an XML NCName.
func ncName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
		case i > 0 && (r == '-' || r == '.' || r >= '0' && r <= '9'):
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || r == 0xB7)):
		default:
			return false
		}
	}
	return s != ""
}

// langText keeps the text an importer reads of repeated, language-tagged elements: the first one
// in English (Archi reads the language of its locale, English here), or else the first one.
type langText struct {
	s      string
	ok, en bool
}

func (l *langText) set(se xml.StartElement, s string) {
	en := false
	for _, a := range se.Attr {
		if a.Name.Local == "lang" && (a.Name.Space == xmlNS || a.Name.Space == "xml") {
			en = a.Value == "en"
		}
	}
	if !l.ok || en && !l.en {
		l.s, l.ok, l.en = s, true, en
	}
}

// normalize is JDOM's getTextNormalize, as Archi reads names and labels: whitespace runs become
// one space, none at the ends.
func normalize(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") && !strings.Contains(s, "  ") && !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ") {
		return s // single spaces between words: as it is (most names)
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' }), " ")
}

// parse reads the whole file.
func parse(src []byte) (*file, []Problem) {
	// the identifiers' map made at its size: grown from nothing, it was rehashed a score of times
	ids := min(bytes.Count(src, []byte("identifier=")), MaxElements)
	return parseTokens(newReader(src), ids)
}

// parseTokens parses what dec reads; ids is about how many identifiers the file holds.
func parseTokens(dec tokens, ids int) (*file, []Problem) {
	p := &parser{dec: dec, f: &file{propDefs: map[string]string{}, ids: make(map[string]*ident, ids)}}
	root := false
	for !p.fatal {
		err := p.dec.next(&p.t)
		if err == io.EOF {
			break
		}
		if err != nil {
			p.fail(err)
			break
		}
		switch t := p.t.start; p.t.kind {
		case tokDirective:
			p.add(CodeMalformed, p.line(), "a DOCTYPE or other declaration, which exchange files never hold and archiplan never reads")
			p.fatal = true
		case tokStart:
			if root {
				p.fail(errors.New("a second root element"))
				break
			}
			root = true
			if t.Name.Local != "model" || t.Name.Space != Namespace {
				ns := t.Name.Space
				if ns == "" {
					ns = "no namespace"
				}
				p.add(CodeNotExchange, p.line(), "the root is <%s> in %s, not the exchange format's <model> in %s", t.Name.Local, ns, Namespace)
				p.fatal = true
				break
			}
			p.model(t)
		case tokText:
			if strings.TrimSpace(p.t.text) != "" {
				p.fail(errors.New("text outside the root element"))
			}
		}
	}
	if !root && !p.fatal {
		p.add(CodeNotExchange, p.line(), "no root element: not an exchange file")
	}
	return p.f, p.probs
}

func (p *parser) model(se xml.StartElement) {
	line := p.line()
	var id, version string
	p.attrs(se, []string{"identifier", "version"}, []*string{&id, &version})
	p.identifier(se, id, idModel, line)
	p.f.id = id
	var name, doc langText
	p.each(se, []string{"name", "documentation", "properties", "metadata", "elements", "relationships", "organizations", "propertyDefinitions", "views"}, false,
		func(k int, c xml.StartElement) {
			switch k {
			case 0:
				name.set(c, p.text(c))
			case 1:
				doc.set(c, p.text(c))
			case 2:
				p.f.props = p.properties(c)
			case 3:
				p.skip() // metadata: not kept
			case 4:
				p.list(c, "element", func(e xml.StartElement) { p.f.elements = append(p.f.elements, p.concept(e, false)) })
			case 5:
				p.list(c, "relationship", func(e xml.StartElement) { p.f.rels = append(p.f.rels, p.concept(e, true)) })
			case 6:
				p.f.orgs = append(p.f.orgs, p.items(c)...)
			case 7:
				p.propertyDefinitions(c)
			case 8:
				p.views(c)
			}
		})
	if !name.ok {
		p.add(CodeSchema, line, "<model> needs a <name>")
	}
	p.f.name, p.f.doc = normalize(name.s), doc.s
}

// list reads a container of one or more children of one name.
func (p *parser) list(se xml.StartElement, child string, fn func(xml.StartElement)) {
	line, n := p.line(), 0
	p.each(se, []string{child}, false, func(_ int, c xml.StartElement) {
		n++
		fn(c)
	})
	if n == 0 && !p.fatal {
		p.add(CodeSchema, line, "<%s> needs at least one <%s>", se.Name.Local, child)
	}
}

func (p *parser) concept(se xml.StartElement, rel bool) *concept {
	c := &concept{line: p.line()}
	if rel {
		c.typ = p.attrs(se, []string{"identifier", "source", "target", "accessType", "modifier", "isDirected"},
			[]*string{&c.id, &c.source, &c.target, &c.access, &c.modifier, &c.directed})
		c.ident = p.identifier(se, c.id, idRelationship, c.line)
		p.require(se, c.line, "source", c.source, "target", c.target)
		c.src = p.ref(c.source, "source", c.line)
		c.tgt = p.ref(c.target, "target", c.line)
		for _, a := range se.Attr {
			if a.Name.Space == "" && a.Name.Local == "accessType" {
				c.hasAccess = true
			}
		}
	} else {
		c.typ = p.attrs(se, []string{"identifier"}, []*string{&c.id})
		c.ident = p.identifier(se, c.id, idElement, c.line)
	}
	if c.typ == "" {
		p.add(CodeSchema, c.line, "<%s> needs an xsi:type", se.Name.Local)
	}
	var name, doc langText
	p.each(se, []string{"name", "documentation", "properties"}, false, func(k int, e xml.StartElement) {
		switch k {
		case 0:
			name.set(e, p.text(e))
		case 1:
			doc.set(e, p.text(e))
		case 2:
			c.props = p.properties(e)
		}
	})
	if !rel && !name.ok && c.typ != "AndJunction" && c.typ != "OrJunction" {
		p.add(CodeSchema, c.line, "element %q needs a <name>", c.id)
	}
	c.name, c.doc = normalize(name.s), doc.s
	return c
}

func (p *parser) properties(se xml.StartElement) []prop {
	var out []prop
	p.list(se, "property", func(e xml.StartElement) {
		pr := prop{line: p.line()}
		p.attrs(e, []string{"propertyDefinitionRef"}, []*string{&pr.ref})
		p.require(e, pr.line, "propertyDefinitionRef", pr.ref)
		pr.def = p.ref(pr.ref, "propertyDefinitionRef", pr.line)
		var v langText
		p.each(e, []string{"value"}, false, func(_ int, c xml.StartElement) { v.set(c, p.text(c)) })
		if !v.ok {
			p.add(CodeSchema, pr.line, "<property> needs a <value>")
		}
		pr.value = normalize(v.s)
		out = append(out, pr)
	})
	return out
}

func (p *parser) propertyDefinitions(se xml.StartElement) {
	p.list(se, "propertyDefinition", func(e xml.StartElement) {
		line := p.line()
		var id, typ string
		p.attrs(e, []string{"identifier", "type"}, []*string{&id, &typ})
		p.identifier(e, id, idPropertyDef, line)
		switch typ {
		case "string", "boolean", "currency", "date", "time", "number":
		case "":
			p.add(CodeSchema, line, "<propertyDefinition> needs the attribute type")
		default:
			p.add(CodeSchema, line, "property definition type %q is none of string, boolean, currency, date, time, number", typ)
		}
		var name langText
		p.each(e, []string{"name", "documentation"}, false, func(k int, c xml.StartElement) {
			t := p.text(c)
			if k == 0 {
				name.set(c, t)
			}
		})
		if !name.ok {
			p.add(CodeSchema, line, "property definition %q needs a <name>", id)
		}
		p.f.propDefs[id] = normalize(name.s)
	})
}

func (p *parser) items(se xml.StartElement) []*item {
	var out []*item
	p.list(se, "item", func(e xml.StartElement) { out = append(out, p.item(e)) })
	return out
}

func (p *parser) item(se xml.StartElement) *item {
	it := &item{line: p.line()}
	var id string
	p.attrs(se, []string{"identifier", "identifierRef"}, []*string{&id, &it.ref})
	if id != "" {
		p.identifier(se, id, idOther, it.line)
	}
	p.ref(it.ref, "identifierRef", it.line)
	var label, doc langText
	p.each(se, []string{"label", "documentation", "item"}, false, func(k int, c xml.StartElement) {
		switch k {
		case 0:
			label.set(c, p.text(c))
		case 1:
			doc.set(c, p.text(c))
		case 2:
			it.kids = append(it.kids, p.item(c))
		}
	})
	it.label, it.hasLabel, it.doc = normalize(label.s), label.ok, normalize(doc.s)
	return it
}

func (p *parser) views(se xml.StartElement) {
	p.each(se, []string{"viewpoints", "diagrams"}, false, func(k int, c xml.StartElement) {
		if k == 0 {
			p.skip() // viewpoint definitions: Archi has its own
			return
		}
		p.list(c, "view", func(e xml.StartElement) { p.f.views = append(p.f.views, p.view(e)) })
	})
}

func (p *parser) view(se xml.StartElement) *view {
	v := &view{line: p.line()}
	var vpRef string
	typ := p.attrs(se, []string{"identifier", "viewpoint", "viewpointRef"}, []*string{&v.id, &v.viewpoint, &vpRef})
	p.identifier(se, v.id, idView, v.line)
	if typ != "Diagram" && typ != "" { // the schema's <view> is a Diagram: its xsi:type may be left out
		p.add(CodeUnknownType, v.line, "view type %q: the format's views are Diagram", typ)
	}
	var name, doc langText
	p.each(se, []string{"name", "documentation", "properties", "node", "connection"}, false, func(k int, c xml.StartElement) {
		switch k {
		case 0:
			name.set(c, p.text(c))
		case 1:
			doc.set(c, p.text(c))
		case 2:
			v.props = p.properties(c)
		case 3:
			v.nodes = append(v.nodes, p.node(c))
		case 4:
			v.conns = append(v.conns, p.conn(c))
		}
	})
	if !name.ok {
		p.add(CodeSchema, v.line, "view %q needs a <name>", v.id)
	}
	v.name, v.doc = normalize(name.s), doc.s
	return v
}

// number reads a required integer attribute: x and y not negative, w and h positive.
func (p *parser) number(se xml.StartElement, name, s string, positive bool, line int) int {
	if s == "" {
		p.add(CodeSchema, line, "<%s> needs the attribute %s", se.Name.Local, name)
		return 0
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		p.add(CodeSchema, line, "%s=%q is not a whole number", name, s)
	case positive && v <= 0:
		p.add(CodeSchema, line, "%s=%q must be positive", name, s)
	case v < 0:
		p.add(CodeSchema, line, "%s=%q must not be negative", name, s)
	}
	return v
}

func (p *parser) node(se xml.StartElement) *node {
	n := &node{line: p.line()}
	var x, y, w, h, conceptRef, xpath string
	n.typ = p.attrs(se, []string{"identifier", "elementRef", "x", "y", "w", "h", "conceptRef", "xpathPart"},
		[]*string{&n.id, &n.elementRef, &x, &y, &w, &h, &conceptRef, &xpath})
	p.identifier(se, n.id, idNode, n.line)
	n.x = p.number(se, "x", x, false, n.line)
	n.y = p.number(se, "y", y, false, n.line)
	n.w = p.number(se, "w", w, true, n.line)
	n.h = p.number(se, "h", h, true, n.line)
	n.elem = p.ref(n.elementRef, "elementRef", n.line)
	p.ref(conceptRef, "conceptRef", n.line)
	switch n.typ {
	case "Element":
		p.require(se, n.line, "elementRef", n.elementRef)
	case "Container", "Label":
		if n.elementRef != "" {
			p.add(CodeSchema, n.line, "a %s node has no elementRef", n.typ)
		}
	case "":
		p.add(CodeSchema, n.line, "<node> needs an xsi:type")
	default:
		p.add(CodeUnknownType, n.line, "node type %q: the format's nodes are Element, Container and Label", n.typ)
	}
	var label, doc langText
	p.each(se, []string{"label", "documentation", "style", "viewRef", "node"}, false, func(k int, c xml.StartElement) {
		switch k {
		case 0:
			label.set(c, p.text(c))
		case 1:
			doc.set(c, p.text(c))
		case 2:
			n.style = p.style(c)
		case 3:
			line := p.line()
			var ref string
			p.attrs(c, []string{"ref"}, []*string{&ref})
			p.require(c, line, "ref", ref)
			p.ref(ref, "viewRef", line)
			if !n.hasViewRef {
				n.viewRef, n.hasViewRef = ref, true
			}
			p.each(c, nil, false, nil)
		case 4:
			if n.typ == "Label" {
				p.add(CodeSchema, p.line(), "a Label node holds no nodes")
			}
			n.kids = append(n.kids, p.node(c))
		}
	})
	n.label, n.hasLabel, n.doc, n.hasDoc = label.s, label.ok, doc.s, doc.ok
	return n
}

func (p *parser) conn(se xml.StartElement) *conn {
	c := &conn{line: p.line()}
	c.typ = p.attrs(se, []string{"identifier", "relationshipRef", "source", "target"}, []*string{&c.id, &c.relRef, &c.source, &c.target})
	p.identifier(se, c.id, idConnection, c.line)
	c.rel = p.ref(c.relRef, "relationshipRef", c.line)
	p.ref(c.source, "source", c.line)
	p.ref(c.target, "target", c.line)
	switch c.typ {
	case "Relationship", "NestingRelationship":
		p.require(se, c.line, "relationshipRef", c.relRef, "source", c.source, "target", c.target)
	case "Line":
		if c.relRef != "" {
			p.add(CodeSchema, c.line, "a Line connection has no relationshipRef")
		}
	case "":
		p.add(CodeSchema, c.line, "<connection> needs an xsi:type")
	default:
		p.add(CodeUnknownType, c.line, "connection type %q: the format's connections are Relationship and Line", c.typ)
	}
	p.each(se, []string{"label", "documentation", "style", "viewRef", "sourceAttachment", "bendpoint", "targetAttachment"}, false, func(k int, e xml.StartElement) {
		switch k {
		case 0, 1:
			p.text(e)
		case 2:
			c.style = p.style(e)
		case 3:
			line := p.line()
			var ref string
			p.attrs(e, []string{"ref"}, []*string{&ref})
			p.require(e, line, "ref", ref)
			p.ref(ref, "viewRef", line)
			p.each(e, nil, false, nil)
		default:
			line := p.line()
			var x, y string
			p.attrs(e, []string{"x", "y"}, []*string{&x, &y})
			pt := point{p.number(e, "x", x, false, line), p.number(e, "y", y, false, line)}
			p.each(e, nil, false, nil)
			switch k {
			case 4:
				c.srcAtt = &pt
			case 5:
				c.bends = append(c.bends, pt)
			case 6:
				c.tgtAtt = &pt
			}
		}
	})
	return c
}

func (p *parser) style(se xml.StartElement) *style {
	s := &style{}
	line := p.line()
	var lw string
	p.attrs(se, []string{"lineWidth"}, []*string{&lw})
	if lw != "" {
		s.lineWidth = p.number(se, "lineWidth", lw, true, line)
	}
	seen := [3]bool{}
	p.each(se, []string{"lineColor", "fillColor", "font"}, true, func(k int, c xml.StartElement) {
		if seen[k] {
			p.add(CodeSchema, p.line(), "<style> holds one <%s>", c.Name.Local)
		}
		seen[k] = true
		switch k {
		case 0:
			s.line = p.color(c)
		case 1:
			s.fill = p.color(c)
		case 2:
			s.hasFont = true
			p.attrs(c, []string{"name", "size", "style"}, []*string{&s.fontName, &s.fontSize, &s.fontStyle})
			if s.fontSize != "" {
				if v, err := strconv.ParseFloat(s.fontSize, 64); err != nil || v < 0 {
					p.add(CodeSchema, p.line(), "font size %q is not a number of points", s.fontSize)
				}
			}
			p.each(c, []string{"color"}, false, func(_ int, e xml.StartElement) { s.font = p.color(e) })
		}
	})
	return s
}

func (p *parser) color(se xml.StartElement) *rgba {
	line := p.line()
	var r, g, b, a string
	p.attrs(se, []string{"r", "g", "b", "a"}, []*string{&r, &g, &b, &a})
	c := &rgba{r: p.byte(se, "r", r, 255, line), g: p.byte(se, "g", g, 255, line), b: p.byte(se, "b", b, 255, line)}
	if a != "" {
		c.a, c.hasA = p.byte(se, "a", a, 100, line), true
	}
	p.each(se, nil, false, nil)
	return c
}

func (p *parser) byte(se xml.StartElement, name, s string, limit int, line int) int {
	v := p.number(se, name, s, false, line)
	if v > limit {
		p.add(CodeSchema, line, "%s=%q is over %d", name, s, limit)
	}
	return v
}
