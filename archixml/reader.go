package archixml

import (
	"fmt"
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
	if !utf8.ValidString(src) {
		return fmt.Errorf("invalid UTF-8: %w", ErrMalformed)
	}
	r := &reader{src: src, sink: s}
	return r.document()
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

func (t *tree) opened() {}

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

type reader struct {
	src   string
	pos   int
	sink  sink
	depth int                 // elements open around where reading starts (a piece of a document)
	keys  map[string]struct{} // the attribute names of the start tag being read, past smallTag
}

func (r *reader) errorf(format string, args ...any) error {
	line := 1 + strings.Count(r.src[:min(r.pos, len(r.src))], "\n")
	return fmt.Errorf("line %d: %s: %w", line, fmt.Sprintf(format, args...), ErrMalformed)
}

func (r *reader) document() error {
	root := false
	if strings.HasPrefix(r.src, "\ufeff") { // a byte order mark, as some editors write
		r.pos = len("\ufeff")
	}
	for {
		r.skipSpace()
		if r.pos >= len(r.src) {
			break
		}
		if r.src[r.pos] != '<' {
			return r.errorf("text outside the root element")
		}
		rest := r.src[r.pos:]
		switch {
		case strings.HasPrefix(rest, "<?"):
			if err := r.procInst(); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "<!--"):
			if err := r.comment(); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "<!"):
			return fmt.Errorf("declaration at byte %d: %w", r.pos, ErrDoctype)
		default:
			if root {
				return r.errorf("a second root element")
			}
			root = true
			if err := r.element(); err != nil {
				return err
			}
		}
	}
	if !root {
		return r.errorf("no root element")
	}
	return nil
}

func (r *reader) skipSpace() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *reader) procInst() error {
	end := strings.Index(r.src[r.pos+2:], "?>")
	if end < 0 {
		return r.errorf("unterminated processing instruction")
	}
	body := r.src[r.pos+2 : r.pos+2+end]
	target, inst, _ := strings.Cut(body, " ")
	if target == "" {
		return r.errorf("processing instruction without a target")
	}
	r.sink.procInst(target, strings.TrimLeft(inst, " \t\r\n"))
	r.pos += 2 + end + 2
	return nil
}

func (r *reader) comment() error {
	end := strings.Index(r.src[r.pos+4:], "-->")
	if end < 0 {
		return r.errorf("unterminated comment")
	}
	r.sink.comment(r.src[r.pos+4 : r.pos+4+end])
	r.pos += 4 + end + 3
	return nil
}

// open is an element whose start tag reader.element has read and whose end it has not.
type open struct {
	name     string
	start    int
	tagEnd   int
	children bool
	text     []string // pending text pieces
	blank    bool     // all pending text is whitespace
}

// element reads one element, from its '<' to the end of its end tag, and everything inside.
func (r *reader) element() error {
	// iterative, with an explicit stack, so that depth costs no Go stack
	var stack []open
	for {
		if r.pos >= len(r.src) {
			return r.errorf("%d elements never closed", len(stack))
		}
		if r.src[r.pos] != '<' {
			if err := r.textRun(&stack[len(stack)-1]); err != nil {
				return err
			}
			continue
		}
		rest := r.src[r.pos:]
		var err error
		done := false
		switch {
		case strings.HasPrefix(rest, "</"):
			done, err = r.endTag(&stack)
		case strings.HasPrefix(rest, "<!--"):
			err = r.commentIn(stack)
		case strings.HasPrefix(rest, "<![CDATA["):
			err = r.cdata(stack)
		case strings.HasPrefix(rest, "<!"):
			return fmt.Errorf("declaration at byte %d: %w", r.pos, ErrDoctype)
		case strings.HasPrefix(rest, "<?"):
			if len(stack) == 0 {
				return r.errorf("processing instruction outside an element")
			}
			err = r.procInst()
		default:
			done, err = r.child(&stack)
		}
		if err != nil || done {
			return err
		}
	}
}

// textRun reads the text up to the next markup into the open element's pending text.
func (r *reader) textRun(top *open) error {
	next := strings.IndexByte(r.src[r.pos:], '<')
	if next < 0 {
		return r.errorf("text after the last element")
	}
	raw := r.src[r.pos : r.pos+next]
	if strings.Contains(raw, "]]>") {
		return r.errorf("']]>' in text")
	}
	text, blank, err := r.decode(raw, false)
	if err != nil {
		return err
	}
	top.text = append(top.text, text)
	top.blank = top.blank && blank
	r.pos += next
	return nil
}

// endTag reads the end tag of the innermost open element and ends it; done when it was the
// outermost.
func (r *reader) endTag(stack *[]open) (done bool, err error) {
	if len(*stack) == 0 {
		return false, r.errorf("stray end tag")
	}
	top := &(*stack)[len(*stack)-1]
	n := r.pos + 2
	if !strings.HasPrefix(r.src[n:], top.name) {
		return false, r.errorf("end tag does not match <%s>", top.name)
	}
	n += len(top.name)
	for n < len(r.src) && isSpace(r.src[n]) {
		n++
	}
	if n >= len(r.src) || r.src[n] != '>' {
		return false, r.errorf("end tag does not match <%s>", top.name)
	}
	r.flushText(top.text, top.blank, top.children)
	r.pos = n + 1
	r.sink.end(top.start, top.tagEnd, r.pos)
	*stack = (*stack)[:len(*stack)-1]
	return len(*stack) == 0, nil
}

// commentIn reads a comment inside the open element, the text before it given first.
func (r *reader) commentIn(stack []open) error {
	if len(stack) == 0 {
		return r.errorf("comment outside an element")
	}
	top := &stack[len(stack)-1]
	r.flushText(top.text, top.blank, true)
	top.text, top.blank = nil, true
	return r.comment()
}

// cdata reads a CDATA section into the open element's pending text.
func (r *reader) cdata(stack []open) error {
	rest := r.src[r.pos:]
	end := strings.Index(rest[9:], "]]>")
	if end < 0 || len(stack) == 0 {
		return r.errorf("unterminated CDATA section")
	}
	top := &stack[len(stack)-1]
	text := normalizeNewlines(rest[9 : 9+end])
	top.text = append(top.text, text)
	top.blank = top.blank && strings.TrimLeft(text, " \t\n") == ""
	r.pos += 9 + end + 3
	return nil
}

// child reads a start tag inside the open element (or the outermost one) and opens it; done
// when it was the outermost and empty.
func (r *reader) child(stack *[]open) (done bool, err error) {
	if len(*stack)+r.depth >= maxDepth {
		return false, r.errorf("elements nested deeper than %d", maxDepth)
	}
	if len(*stack) > 0 {
		top := &(*stack)[len(*stack)-1]
		// whitespace between elements is layout, not content: the writer makes its own
		if !top.blank {
			r.flushText(top.text, false, true)
		}
		top.text, top.blank, top.children = nil, true, true
	}
	start := r.pos
	name, empty, err := r.startTag()
	if err != nil {
		return false, err
	}
	if empty {
		r.sink.end(start, r.pos, r.pos)
		return len(*stack) == 0, nil
	}
	*stack = append(*stack, open{name: name, start: start, tagEnd: r.pos, blank: true})
	return false, nil
}

// flushText gives the pending text to the open element. Whitespace-only text around child
// elements is layout and dropped; the text of an element without children is kept whatever it is.
func (r *reader) flushText(text []string, blank, children bool) {
	if len(text) == 0 || (blank && children) {
		return
	}
	if len(text) == 1 {
		r.sink.text(text[0])
		return
	}
	r.sink.text(strings.Join(text, ""))
}

// startTag reads a start tag and tells the sink its name and attributes.
// attrsAhead guesses how many attributes the start tag being read has: the values that open
// before the first '>' (a '>' inside a value makes it guess low; the tree then grows the slice).
func (r *reader) attrsAhead() int {
	rest := r.src[r.pos:]
	if end := strings.IndexByte(rest, '>'); end >= 0 {
		rest = rest[:end]
	}
	return strings.Count(rest, `="`) + strings.Count(rest, `='`)
}

func (r *reader) startTag() (string, bool, error) {
	r.pos++ // '<'
	name, err := r.name()
	if err != nil {
		return "", false, err
	}
	r.sink.start(name, r.attrsAhead())
	var small [smallTag]string
	n := 0
	for {
		sp := r.pos
		r.skipSpace()
		if r.pos >= len(r.src) {
			return "", false, r.errorf("unterminated tag <%s>", name)
		}
		switch c := r.src[r.pos]; {
		case c == '>':
			r.pos++
			r.sink.opened()
			return name, false, nil
		case c == '/':
			if r.pos+1 >= len(r.src) || r.src[r.pos+1] != '>' {
				return "", false, r.errorf("'/' not followed by '>' in <%s>", name)
			}
			r.pos += 2
			r.sink.opened()
			return name, true, nil
		case sp == r.pos:
			return "", false, r.errorf("no space before an attribute of <%s>", name)
		}
		key, err := r.name()
		if err != nil {
			return "", false, err
		}
		r.skipSpace()
		if r.pos >= len(r.src) || r.src[r.pos] != '=' {
			return "", false, r.errorf("attribute %s of <%s> has no value", key, name)
		}
		r.pos++
		r.skipSpace()
		if r.pos >= len(r.src) || (r.src[r.pos] != '"' && r.src[r.pos] != '\'') {
			return "", false, r.errorf("attribute %s of <%s> is not quoted", key, name)
		}
		q := r.src[r.pos]
		end := strings.IndexByte(r.src[r.pos+1:], q)
		if end < 0 {
			return "", false, r.errorf("unterminated value of %s", key)
		}
		raw := r.src[r.pos+1 : r.pos+1+end]
		if strings.IndexByte(raw, '<') >= 0 {
			return "", false, r.errorf("'<' in the value of %s", key)
		}
		value, _, err := r.decode(raw, true)
		if err != nil {
			return "", false, err
		}
		r.pos += end + 2
		// the duplicate check is linear: a scan of the first few, then a set
		if n++; n > MaxAttributes {
			return "", false, r.errorf("more than %d attributes in <%s>", MaxAttributes, name)
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
		if twice || !r.sink.attr(key, value) {
			return "", false, r.errorf("attribute %s twice in <%s>", key, name)
		}
	}
}

// name reads an XML name (loosely: the characters a name may hold, starting with one that may
// start it), a substring of the source.
func (r *reader) name() (string, error) {
	start := r.pos
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		if c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 ||
			r.pos > start && (c == '-' || c == '.' || c >= '0' && c <= '9') {
			r.pos++
			continue
		}
		break
	}
	if r.pos == start {
		return "", r.errorf("a name was expected")
	}
	return r.src[start:r.pos], nil
}

// splitName splits a name read as etree does: the prefix before the first colon, and the rest.
func splitName(name string) (space, local string) {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// decode is Decode, its error at the reader's line.
func (r *reader) decode(s string, attr bool) (string, bool, error) {
	d, blank, err := Decode(s, attr)
	if err != nil {
		return "", false, r.errorf("%v", err)
	}
	return d, blank, nil
}

// Decode resolves references and normalizes line ends (and, in attributes, whitespace) as XML
// 1.0 says a parser must. It returns s itself when there is nothing to change, and whether the
// text is all whitespace. The exchange importer's lexer decodes with it too, so that both
// formats read text and attribute values alike.
func Decode(s string, attr bool) (string, bool, error) {
	blank := true
	clean := true
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
		default:
			return "", false, fmt.Errorf("control character %#x", c)
		}
	}
	if clean {
		return s, blank, nil
	}
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
				return "", false, fmt.Errorf("'&' without ';'")
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
					return "", false, err
				}
				b.WriteRune(cr)
			}
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), blank, nil
}

// what a byte is to decode: 0 for a byte that is neither space nor needs a change
const (
	byteSpace   = 1 + iota // ' '
	byteBreak              // '\n', '\t': kept in text, a space in an attribute
	byteRef                // '&'
	byteCR                 // '\r'
	byteControl            // a control character XML 1.0 does not allow
)

var textByte = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = byteControl
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
