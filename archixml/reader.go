package archixml

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beevik/etree"
)

// read parses an XML document into an etree tree in one pass, recording where each element's
// bytes are. It is the XML 1.0 subset models are written in: a prolog of the XML declaration,
// comments and processing instructions; one root element; elements, attributes, text, CDATA and
// comments. Anything with a '<!' other than a comment or CDATA (DOCTYPE, ENTITY, ...) is refused,
// and so is any entity but XML's five, so nothing is ever expanded or fetched. Names, values and
// text are substrings of src (which the model keeps), so reading allocates little beyond the tree.
//
// encoding/xml, which etree uses, reads the same documents into the same tree, at a third of the
// speed; TestRead_AgreesWithEtree holds the two to each other.
func read(src string) (*etree.Document, map[*etree.Element]span, error) {
	doc, spans, pending, err := readLater(src)
	addSpans(spans, pending)
	return doc, spans, err
}

// readLater is read, but a document read in pieces comes with the pieces' spans still in lists
// (pending), for the caller to add to spans (addSpans) before it uses them.
func readLater(src string) (*etree.Document, map[*etree.Element]span, [][]spanOf, error) {
	if doc, spans, pending, ok := readPieces(src); ok {
		return doc, spans, pending, nil
	}
	t := &tree{doc: etree.NewDocument(), spans: make(map[*etree.Element]span, strings.Count(src, "<")-strings.Count(src, "</")+1)}
	t.cur = &t.doc.Element
	if err := readInto(src, t); err != nil {
		return nil, nil, nil, err
	}
	return t.doc, t.spans, nil, nil
}

// addSpans adds lists of spans to spans.
func addSpans(spans map[*etree.Element]span, lists [][]spanOf) {
	for _, l := range lists {
		for _, sp := range l {
			spans[sp.e] = sp.span
		}
	}
}

// readInto reads src and tells s what it holds, in document order.
func readInto(src string, s sink) error {
	return NewReader(src, ReaderOptions{}).push(s, false)
}

// A sink is told what the reader reads, in document order: what read builds its tree from, and
// what Scan follows without building one. Text comes as the tree holds it: whitespace between
// elements dropped, the pieces of one run of text joined.
type sink interface {
	start(name string, attrs int) // a start tag: about attrs attributes follow
	attr(key, value string) bool  // false when the tag has key already
	opened()                      // the start tag's attributes are all told
	end(start, tagEnd, end int)   // the element started by the last open start ends
	text(s string)                // character data of the open element
	comment(s string)             // a comment
	procInst(target, inst string) // a processing instruction
}

// tree is the sink that builds the etree document, recording where each element's bytes are.
type tree struct {
	doc   *etree.Document
	cur   *etree.Element
	spans map[*etree.Element]span
	list  []spanOf        // the spans in order, when spans is nil (a piece read on its own core)
	els   []etree.Element // the rest of the block new elements are taken from
	attrs []etree.Attr    // the rest of the block attribute lists are taken from
	toks  []etree.Token   // the rest of the block first child lists are taken from
}

func (t *tree) start(name string, attrs int) {
	// elements and their attribute lists are cut from blocks allocated a few hundred at a time:
	// a large model has millions, and one allocation each was a tenth of reading it
	if len(t.els) == 0 {
		t.els = make([]etree.Element, elementBlock)
	}
	e := &t.els[0]
	t.els = t.els[1:]
	if i := strings.IndexByte(name, ':'); i >= 0 { // as etree's CreateElement splits it
		e.Space, e.Tag = name[:i], name[i+1:]
	} else {
		e.Tag = name
	}
	if attrs > 0 {
		if len(t.attrs) < attrs {
			t.attrs = make([]etree.Attr, max(attrBlock, attrs))
		}
		e.Attr = t.attrs[:0:attrs] // capped: an attribute more than counted is appended elsewhere
		t.attrs = t.attrs[attrs:]
	}
	t.firstChild()
	t.cur.AddChild(e)
	t.cur = e
}

// firstChild gives the open element, before its first child, a child list of two cut from a
// block (most elements with children have one or two: a diagram object's bounds, a property).
func (t *tree) firstChild() {
	if t.cur.Child != nil {
		return
	}
	if len(t.toks) < 2 {
		t.toks = make([]etree.Token, tokenBlock)
	}
	t.cur.Child = t.toks[:0:2] // capped: a third child moves the list elsewhere
	t.toks = t.toks[2:]
}

// elementBlock, attrBlock and tokenBlock are how many elements, attributes and child slots tree
// allocates at once.
const elementBlock, attrBlock, tokenBlock = 512, 2048, 1024

func (t *tree) attr(key, value string) bool {
	n := len(t.cur.Attr)
	if n >= smallTag {
		// the reader has checked the name is new: appended without etree's scan of the others
		space, local := splitName(key)
		t.cur.Attr = append(t.cur.Attr, etree.Attr{Space: space, Key: local, Value: value})
		return true
	}
	t.cur.CreateAttr(key, value)
	return len(t.cur.Attr) != n
}

func (t *tree) opened() {
	if t.cur.Tag == "element" {
		tagClass(t.cur)
	}
}

func (t *tree) end(start, tagEnd, end int) {
	if t.spans == nil {
		t.list = append(t.list, spanOf{t.cur, span{start: start, tagEnd: tagEnd, end: end}})
	} else {
		t.spans[t.cur] = span{start: start, tagEnd: tagEnd, end: end}
	}
	t.cur = t.cur.Parent()
}

func (t *tree) text(s string)                { t.firstChild(); t.cur.CreateText(s) }
func (t *tree) comment(s string)             { t.cur.CreateComment(s) }
func (t *tree) procInst(target, inst string) { t.cur.CreateProcInst(target, inst) }

// maxDepth bounds element nesting; Archi's deepest real diagrams nest a few dozen levels.
const maxDepth = 1000

// MaxAttributes bounds the attributes of one element (Archi writes at most about twenty): with
// the duplicate check linear, a start tag costs time in proportion to its bytes.
const MaxAttributes = 200

// smallTag is how many attributes a tag may have before its duplicate check uses a set.
const smallTag = 8

// A Reader reads XML 1.0 from a string, one token at a time (Next): the reader of both formats,
// models (which read builds its tree from, pushed to a sink) and Exchange Format files (which the
// exchange importer pulls). It checks well-formedness as it goes (names, quoting, references,
// characters, comments, matching end tags, one root) and expands nothing: a declaration (DOCTYPE,
// ENTITY) is refused, or returned as a TokDirective before the root for the caller to refuse; any
// entity but XML's five is refused. Names, values and text are substrings of the source where
// nothing (a reference, a line end) changes them. Elements open are kept on an explicit stack, so
// that depth costs no Go stack.
type Reader struct {
	src   string
	pos   int
	opts  ReaderOptions
	stack []openTag
	root  bool // the root element has started
	empty bool // the start tag just read was empty (<x/>): its end is the next token
	depth int  // elements open around where reading starts (a piece of a document)
	elems int  // start tags read
	line  int  // line of lpos
	lpos  int
	keys  map[string]struct{} // the attribute names of the start tag being read, past smallTag
	ns    []binding           // namespace bindings in scope, innermost last
	tok   Token
}

// ReaderOptions are what a Reader checks or reports beyond what a model needs.
type ReaderOptions struct {
	// Namespaces resolves the prefixes of names (Token.Space, Attr.Space) from the xmlns
	// bindings in scope; a prefix bound nowhere is refused.
	Namespaces bool
	// Directives returns a declaration before the root (<!DOCTYPE ...>) as a TokDirective,
	// for the caller to refuse with its own words; without it, the reader refuses it (ErrDoctype).
	Directives bool
	// MaxDepth bounds element nesting (0: 1,000, what a model may nest); MaxElements bounds the
	// start tags read (0: no bound). Over either is a *SyntaxError with Limit set.
	MaxDepth, MaxElements int
}

// TokenKind says what a token is.
type TokenKind uint8

const (
	TokStart     TokenKind = iota + 1 // a start tag (an empty one is followed by its TokEnd)
	TokEnd                            // the end of the element started last and not ended
	TokText                           // a run of character data, or a CDATA section
	TokComment                        // a comment
	TokProcInst                       // a processing instruction
	TokDirective                      // a declaration before the root (ReaderOptions.Directives)
)

// A Token is what Reader.Next read; it and its attributes are valid until the next call.
type Token struct {
	Kind TokenKind
	// Name is a start or end tag's name as written, or a processing instruction's target.
	Name string
	// Space and Local are a start tag's namespace and local name (ReaderOptions.Namespaces).
	Space, Local string
	// Attrs are a start tag's attributes, in order.
	Attrs []Attr
	// Text is character data, decoded; the body of a comment, a processing instruction (after
	// its target) or a declaration.
	Text string
	// Blank reports that character data is all whitespace; CDATA that it is a CDATA section.
	Blank, CDATA bool
	// Start and TagEnd are where a start tag starts and ends in the source, for its TokEnd too;
	// End is where a TokEnd's end tag ends.
	Start, TagEnd, End int
}

// Attr is an attribute of a start tag: its name as written, its namespace and local name
// (ReaderOptions.Namespaces; an xmlns declaration's namespace is "xmlns"), its value decoded.
type Attr struct {
	Name, Space, Local, Value string
}

// A SyntaxError is what a Reader refuses, at a line. It is ErrMalformed, or ErrDoctype for a
// declaration.
type SyntaxError struct {
	Line  int
	Msg   string
	Limit bool // over one of the reader's bounds (depth, elements, attributes), not wrong XML
	decl  bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d: %s: %v", e.Line, e.Msg, e.Unwrap())
}

func (e *SyntaxError) Unwrap() error {
	if e.decl {
		return ErrDoctype
	}
	return ErrMalformed
}

type openTag struct {
	name          string
	start, tagEnd int
	nsLen         int // bindings in ns when the element started
}

type binding struct{ prefix, uri string }

// xmlNS is the namespace of the prefix xml, bound everywhere.
const xmlNS = "http://www.w3.org/XML/1998/namespace"

// NewReader reads src (a byte order mark at its start is passed over).
func NewReader(src string, o ReaderOptions) *Reader {
	r := &Reader{src: src, opts: o, line: 1}
	if o.MaxDepth == 0 {
		r.opts.MaxDepth = maxDepth
	}
	if strings.HasPrefix(src, "\ufeff") { // a byte order mark, as some editors write
		r.pos = len("\ufeff")
	}
	return r
}

// Line is the line of the position reached: the end of the token read last.
func (r *Reader) Line() int {
	if r.pos > r.lpos {
		r.line += strings.Count(r.src[r.lpos:r.pos], "\n")
		r.lpos = r.pos
	}
	return r.line
}

func (r *Reader) errorf(format string, args ...any) error {
	return &SyntaxError{Line: r.Line(), Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) limitf(format string, args ...any) error {
	return &SyntaxError{Line: r.Line(), Msg: fmt.Sprintf(format, args...), Limit: true}
}

func (r *Reader) declaration(msg string) error {
	return &SyntaxError{Line: r.Line(), Msg: msg, decl: true}
}

// Next reads the next token, or returns io.EOF once the document has ended (with or without a
// root: the caller says whether none is an error). Whitespace outside the root is passed over.
func (r *Reader) Next() (*Token, error) {
	t := &r.tok
	if r.empty {
		r.empty = false
		top := r.stack[len(r.stack)-1]
		r.pop()
		t.Kind, t.Start, t.TagEnd, t.End = TokEnd, top.start, top.tagEnd, top.tagEnd
		return t, nil
	}
	if len(r.stack) == 0 {
		r.skipSpace()
	}
	if r.pos >= len(r.src) {
		if len(r.stack) > 0 {
			return nil, r.errorf("the file ends inside <%s>", r.stack[len(r.stack)-1].name)
		}
		return nil, io.EOF
	}
	if r.src[r.pos] != '<' {
		return r.text()
	}
	rest := r.src[r.pos:]
	switch {
	case strings.HasPrefix(rest, "</"):
		return r.endTag()
	case strings.HasPrefix(rest, "<!--"):
		return r.comment()
	case strings.HasPrefix(rest, "<![CDATA["):
		return r.cdata()
	case strings.HasPrefix(rest, "<!"):
		return r.directive()
	case strings.HasPrefix(rest, "<?"):
		return r.procInst()
	default:
		return r.startTag()
	}
}

func (r *Reader) skipSpace() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// text reads the text up to the next markup.
func (r *Reader) text() (*Token, error) {
	next := strings.IndexByte(r.src[r.pos:], '<')
	if next < 0 {
		next = len(r.src) - r.pos
	}
	raw := r.src[r.pos : r.pos+next]
	clean, blank, err := scan(raw, false)
	if err != nil {
		return nil, r.errorf("%v", err)
	}
	if len(r.stack) == 0 {
		return nil, r.errorf("text outside the root element")
	}
	if strings.Contains(raw, "]]>") {
		return nil, r.errorf("]]> in text")
	}
	text := raw
	if !clean {
		if text, err = decodeRefs(raw, false); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	r.pos += next
	t := &r.tok
	t.Kind, t.Text, t.Blank, t.CDATA = TokText, text, blank, false
	return t, nil
}

func (r *Reader) comment() (*Token, error) {
	rest := r.src[r.pos:]
	i := strings.Index(rest[4:], "--")
	if i < 0 || len(rest) < 4+i+3 || rest[4+i+2] != '>' {
		return nil, r.errorf("unterminated comment")
	}
	body := rest[4 : 4+i]
	if err := chars(body); err != nil {
		return nil, r.errorf("%v", err)
	}
	r.pos += 4 + i + 3
	t := &r.tok
	t.Kind, t.Text = TokComment, body
	return t, nil
}

func (r *Reader) cdata() (*Token, error) {
	if len(r.stack) == 0 {
		return nil, r.errorf("CDATA outside the root element")
	}
	rest := r.src[r.pos:]
	end := strings.Index(rest[9:], "]]>")
	if end < 0 {
		return nil, r.errorf("unterminated CDATA section")
	}
	data := rest[9 : 9+end]
	if err := chars(data); err != nil {
		return nil, r.errorf("%v", err)
	}
	r.pos += 9 + end + 3
	t := &r.tok
	t.Text = normalizeNewlines(data)
	t.Kind, t.Blank, t.CDATA = TokText, strings.TrimLeft(t.Text, " \t\n") == "", true
	return t, nil
}

// directive reads a declaration: refused inside an element, and before the root unless the
// caller refuses it itself (ReaderOptions.Directives).
func (r *Reader) directive() (*Token, error) {
	if len(r.stack) > 0 {
		return nil, r.declaration("a declaration inside an element")
	}
	if !r.opts.Directives {
		return nil, r.declaration("a DOCTYPE or other declaration")
	}
	rest := r.src[r.pos:]
	i := strings.IndexByte(rest, '>')
	if i < 0 {
		return nil, r.errorf("unterminated declaration") // "<!" at the end: found by FuzzImport
	}
	r.pos += i + 1
	t := &r.tok
	t.Kind, t.Text = TokDirective, rest[2:i]
	return t, nil
}

func (r *Reader) procInst() (*Token, error) {
	end := strings.Index(r.src[r.pos+2:], "?>")
	if end < 0 {
		return nil, r.errorf("unterminated processing instruction")
	}
	body := r.src[r.pos+2 : r.pos+2+end]
	target, inst, _ := strings.Cut(body, " ")
	if target == "" {
		return nil, r.errorf("processing instruction without a target")
	}
	if err := chars(body); err != nil {
		return nil, r.errorf("%v", err)
	}
	r.pos += 2 + end + 2
	t := &r.tok
	t.Kind, t.Name, t.Text = TokProcInst, target, strings.TrimLeft(inst, " \t\r\n")
	return t, nil
}

// endTag reads the end tag of the innermost open element and ends it.
func (r *Reader) endTag() (*Token, error) {
	r.pos += 2
	name, err := r.name()
	if err != nil {
		return nil, err
	}
	r.skipSpace()
	if r.pos >= len(r.src) || r.src[r.pos] != '>' {
		return nil, r.errorf("expected > to end </%s", name)
	}
	r.pos++
	if len(r.stack) == 0 {
		return nil, r.errorf("</%s> closes nothing", name)
	}
	top := r.stack[len(r.stack)-1]
	if name != top.name {
		return nil, r.errorf("element <%s> closed by </%s>", top.name, name)
	}
	r.pop()
	t := &r.tok
	t.Kind, t.Start, t.TagEnd, t.End = TokEnd, top.start, top.tagEnd, r.pos
	return t, nil
}

func (r *Reader) pop() {
	top := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	r.ns = r.ns[:top.nsLen]
}

// startTag reads a start tag: the bounds checked, its name, its attributes, their names
// resolved (ReaderOptions.Namespaces).
func (r *Reader) startTag() (*Token, error) {
	if len(r.stack) == 0 && r.root {
		return nil, r.errorf("a second root element")
	}
	if len(r.stack)+r.depth >= r.opts.MaxDepth {
		return nil, r.limitf("elements nested deeper than %d", r.opts.MaxDepth)
	}
	if r.elems++; r.opts.MaxElements > 0 && r.elems > r.opts.MaxElements {
		return nil, r.limitf("more than %d elements", r.opts.MaxElements)
	}
	t := &r.tok
	t.Start = r.pos
	r.pos++ // '<'
	name, err := r.name()
	if err != nil {
		return nil, err
	}
	nsLen := len(r.ns)
	if err := r.attributes(); err != nil {
		return nil, err
	}
	t.Kind, t.Name, t.TagEnd = TokStart, name, r.pos
	if r.opts.Namespaces {
		if err := r.resolve(t); err != nil {
			return nil, err
		}
	}
	r.root = true
	r.stack = append(r.stack, openTag{name: name, start: t.Start, tagEnd: r.pos, nsLen: nsLen})
	return t, nil
}

// attributes reads the attributes of a start tag into the token, up to and past its end, and
// notes whether the tag was empty (<x/>).
func (r *Reader) attributes() error {
	t := &r.tok
	t.Attrs = t.Attrs[:0]
	var small [smallTag]string
	n := 0
	for {
		sp := r.pos
		r.skipSpace()
		if r.pos >= len(r.src) {
			return r.errorf("the file ends inside a tag")
		}
		switch c := r.src[r.pos]; {
		case c == '>':
			r.pos++
			return nil
		case c == '/':
			if r.pos+1 >= len(r.src) || r.src[r.pos+1] != '>' {
				return r.errorf("expected /> to end the tag")
			}
			r.pos += 2
			r.empty = true
			return nil
		case sp == r.pos:
			return r.errorf("expected a space before an attribute")
		}
		key, err := r.name()
		if err != nil {
			return err
		}
		r.skipSpace()
		if r.pos >= len(r.src) || r.src[r.pos] != '=' {
			return r.errorf("attribute %s has no value", key)
		}
		r.pos++
		r.skipSpace()
		if r.pos >= len(r.src) || (r.src[r.pos] != '"' && r.src[r.pos] != '\'') {
			return r.errorf("attribute %s's value is not quoted", key)
		}
		q := r.src[r.pos]
		end := strings.IndexByte(r.src[r.pos+1:], q)
		if end < 0 {
			return r.errorf("unterminated attribute value")
		}
		raw := r.src[r.pos+1 : r.pos+1+end]
		if strings.IndexByte(raw, '<') >= 0 {
			return r.errorf("< in an attribute value")
		}
		value, _, err := decode(raw, true)
		if err != nil {
			return r.errorf("%v", err)
		}
		r.pos += end + 2
		// the duplicate check is linear: a scan of the first few, then a set
		if n++; n > MaxAttributes {
			return r.limitf("more than %d attributes on one element", MaxAttributes)
		}
		twice := false
		if n <= smallTag {
			for _, k := range small[:n-1] {
				twice = twice || k == key
			}
			small[n-1] = key
		} else {
			if n == smallTag+1 {
				if r.keys == nil {
					r.keys = map[string]struct{}{}
				}
				clear(r.keys)
				for _, k := range small {
					r.keys[k] = struct{}{}
				}
			}
			_, twice = r.keys[key]
			r.keys[key] = struct{}{}
		}
		if twice {
			return r.errorf("attribute %s given twice", key)
		}
		if r.opts.Namespaces {
			switch prefix, local := splitPrefix(key); {
			case prefix == "" && local == "xmlns":
				r.ns = append(r.ns, binding{"", value})
			case prefix == "xmlns":
				r.ns = append(r.ns, binding{local, value})
			}
		}
		t.Attrs = append(t.Attrs, Attr{Name: key, Value: value})
	}
}

// resolve gives the start tag read and its attributes their namespaces.
func (r *Reader) resolve(t *Token) error {
	p, local := splitPrefix(t.Name)
	space, ok := r.bound(p, true)
	if !ok {
		return r.errorf("prefix %s is not bound to a namespace", p)
	}
	t.Space, t.Local = space, local
	for i := range t.Attrs {
		a := &t.Attrs[i]
		p, a.Local = splitPrefix(a.Name)
		a.Space = p
		if p != "xmlns" {
			if a.Space, ok = r.bound(p, false); !ok {
				return r.errorf("prefix %s is not bound to a namespace", p)
			}
		}
	}
	return nil
}

// bound is the namespace a prefix is bound to: an element's without one is the default.
func (r *Reader) bound(prefix string, elem bool) (string, bool) {
	if prefix == "" && !elem {
		return "", true
	}
	if prefix == "xml" {
		return xmlNS, true
	}
	for i := len(r.ns) - 1; i >= 0; i-- {
		if r.ns[i].prefix == prefix {
			return r.ns[i].uri, true
		}
	}
	return "", prefix == ""
}

// splitPrefix splits a name at its first colon, as namespaces read it: a name starting with one
// has no prefix.
func splitPrefix(name string) (prefix, local string) {
	if i := strings.IndexByte(name, ':'); i > 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// name reads an XML name (loosely: the characters a name may hold, starting with one that may
// start it), a substring of the source.
func (r *Reader) name() (string, error) {
	start := r.pos
	high := false
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		if c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			r.pos > start && (c == '-' || c == '.' || c >= '0' && c <= '9') {
			r.pos++
			continue
		}
		if c >= utf8.RuneSelf {
			high = true
			r.pos++
			continue
		}
		break
	}
	if r.pos == start {
		return "", r.errorf("expected a name")
	}
	name := r.src[start:r.pos]
	if high && !utf8.ValidString(name) {
		return "", r.errorf("invalid UTF-8")
	}
	return name, nil
}

// push reads on and tells s what the reader reads, in document order, as read's tree holds it:
// whitespace between elements dropped, the pieces of one run of text joined. With one, it stops
// when the element it starts at ends.
func (r *Reader) push(s sink, one bool) error {
	var text []string // the open element's pending text pieces
	blank := true     // all pending text is whitespace
	children := false // the open element has child elements
	for {
		t, err := r.Next()
		if err == io.EOF {
			if !r.root {
				return r.errorf("no root element")
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t.Kind {
		case TokStart:
			if len(r.stack) > 1 {
				// whitespace between elements is layout, not content: the writer makes its own
				if !blank {
					flushText(s, text, false, true)
				}
				text, blank = text[:0], true
			}
			s.start(t.Name, len(t.Attrs))
			for _, a := range t.Attrs {
				if !s.attr(a.Name, a.Value) {
					return r.errorf("attribute %s given twice", a.Name)
				}
			}
			s.opened()
			children = false
		case TokEnd:
			flushText(s, text, blank, children)
			text, blank, children = text[:0], true, true
			s.end(t.Start, t.TagEnd, t.End)
			if one && len(r.stack) == 0 {
				return nil
			}
		case TokText:
			text = append(text, t.Text)
			blank = blank && t.Blank
		case TokComment:
			if len(r.stack) > 0 {
				flushText(s, text, blank, true)
				text, blank = text[:0], true
			}
			s.comment(t.Text)
		case TokProcInst:
			s.procInst(t.Name, t.Text)
		}
	}
}

// flushText gives the pending text to the open element. Whitespace-only text around child
// elements is layout and dropped; the text of an element without children is kept whatever it is.
func flushText(s sink, text []string, blank, children bool) {
	if len(text) == 0 || (blank && children) {
		return
	}
	if len(text) == 1 {
		s.text(text[0])
		return
	}
	s.text(strings.Join(text, ""))
}

// splitName splits a name read as etree does: the prefix before the first colon, and the rest.
func splitName(name string) (space, local string) {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// decode resolves references and normalizes line ends (and, in attributes, whitespace) as XML
// 1.0 says a parser must, after checking that every character is one XML allows. It returns s
// itself when there is nothing to change, and whether the text is all whitespace.
func decode(s string, attr bool) (string, bool, error) {
	clean, blank, err := scan(s, attr)
	if err != nil || clean {
		return s, blank, err
	}
	d, err := decodeRefs(s, attr)
	return d, blank, err
}

// scan checks that s holds only characters XML allows, and reports whether decoding would
// leave it as it is (clean) and whether it is all whitespace.
func scan(s string, attr bool) (clean, blank bool, err error) {
	blank, clean = true, true
	for i := 0; i < len(s); i++ {
		// most bytes are plain: one look-up says so
		switch c := s[i]; textByte[c] {
		case 0:
			blank = false
		case byteSpace:
		case byteBreak:
			clean = clean && !attr
		case byteRef:
			clean, blank = false, false
		case byteCR:
			clean = false
		case byteHigh:
			blank = false
			n, err := highChar(s[i:])
			if err != nil {
				return false, false, err
			}
			i += n - 1
		default:
			return false, false, fmt.Errorf("illegal character code U+%04X", c)
		}
	}
	return clean, blank, nil
}

// chars checks that s holds only characters XML allows.
func chars(s string) error {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; textByte[c] {
		case byteHigh:
			n, err := highChar(s[i:])
			if err != nil {
				return err
			}
			i += n - 1
		case byteControl:
			return fmt.Errorf("illegal character code U+%04X", c)
		}
	}
	return nil
}

// highChar checks the character s starts with, one not ASCII, and returns its length.
func highChar(s string) (int, error) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return 0, errors.New("invalid UTF-8")
	}
	if r == 0xFFFE || r == 0xFFFF {
		return 0, fmt.Errorf("illegal character code %U", r)
	}
	return n, nil
}

// decodeRefs is decode of a string scan found not clean.
func decodeRefs(s string, attr bool) (string, error) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			if attr {
				b.WriteByte(' ')
			} else {
				b.WriteByte('\n')
			}
		case '\n', '\t':
			if attr {
				b.WriteByte(' ')
			} else {
				b.WriteByte(c)
			}
		case '&':
			end := strings.IndexByte(s[i:], ';')
			if end < 0 {
				return "", fmt.Errorf("'&' without ';'")
			}
			ref := s[i+1 : i+end]
			switch ref {
			case "lt":
				b.WriteByte('<')
			case "gt":
				b.WriteByte('>')
			case "amp":
				b.WriteByte('&')
			case "quot":
				b.WriteByte('"')
			case "apos":
				b.WriteByte('\'')
			default:
				cr, err := charRef(ref)
				if err != nil {
					return "", err
				}
				b.WriteRune(cr)
			}
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// what a byte is to decode: 0 for a byte that is neither space nor needs a change
const (
	byteSpace   = 1 + iota // ' '
	byteBreak              // '\n', '\t': kept in text, a space in an attribute
	byteRef                // '&'
	byteCR                 // '\r'
	byteHigh               // the first byte (or a later one) of a character not ASCII
	byteControl            // a control character XML 1.0 does not allow
)

var textByte = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = byteControl
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = byteHigh
	}
	t[' '], t['\n'], t['\t'], t['&'], t['\r'] = byteSpace, byteBreak, byteBreak, byteRef, byteCR
	return t
}()

// charRef decodes "#65" or "#x41"; only characters XML may hold.
func charRef(ref string) (rune, error) {
	var n uint64
	var err error
	switch {
	case strings.HasPrefix(ref, "#x"):
		n, err = strconv.ParseUint(ref[2:], 16, 32)
	case strings.HasPrefix(ref, "#"):
		n, err = strconv.ParseUint(ref[1:], 10, 32)
	default:
		return 0, fmt.Errorf("entity &%s; is not one of XML's five", ref)
	}
	if err != nil || n > utf8.MaxRune || !validXMLChar(rune(n)) {
		return 0, fmt.Errorf("character reference &%s; is no XML character", ref)
	}
	return rune(n), nil
}

func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
