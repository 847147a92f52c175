package exchange

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/archiplan/archiplan/archixml"
)

// lexer reads XML 1.0 from bytes in memory as encoding/xml's Decoder reads it from a stream
// (the same tokens, namespaces resolved), about three times as fast: element and attribute names
// are interned, text is a slice of the input, and only what an entity or a line end changes is
// copied. It checks well-formedness (names, quoting, entities, characters, matching end tags, one
// root) and returns a DOCTYPE as a Directive, which the parser refuses; nothing is expanded or
// fetched. Attribute values are normalised as XML requires (a line end or tab becomes a space).
type lexer struct {
	src   []byte
	pos   int
	line  int // line of lpos
	lpos  int
	stack []frame
	names map[string]string
	root  bool
	ns    []binding // namespace bindings in scope, innermost last
	// pendingEnd: the element just started was empty (<x/>): its end is the next token
	pendingEnd bool
	elements   int                 // start tags read
	keys       map[string]struct{} // the attribute names of a start tag with many
	attrs      []rawAttr           // the attributes of the start tag being read
	block      []xml.Attr          // the rest of the block start tags' attributes are cut from
}

// The bounds of an import, so that any file costs time and memory in proportion to its bytes and
// gives a model archiplan can load (its reader nests at most 1,000 levels; what the exchange
// format nests, organizations and nodes, becomes as many levels of folders and diagram objects).
const (
	MaxDepth    = 500
	MaxElements = 2_000_000
)

// limitError is a file over one of the import's bounds (CodeLimit), at a line.
type limitError struct {
	line int
	msg  string
}

func (e *limitError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func (l *lexer) limitf(format string, args ...any) error {
	line, _ := l.InputPos()
	return &limitError{line: line, msg: fmt.Sprintf(format, args...)}
}

type frame struct {
	raw   string // the tag as written, for the end tag
	nsLen int    // bindings in ns when the element started
}

type binding struct{ prefix, uri string }

func newLexer(src []byte) *lexer {
	l := &lexer{src: src, line: 1, names: map[string]string{}}
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		l.pos = 3
	}
	return l
}

// InputPos is the line and column of the position reached.
func (l *lexer) InputPos() (int, int) {
	if l.pos > l.lpos {
		l.line += bytes.Count(l.src[l.lpos:l.pos], []byte{'\n'})
		l.lpos = l.pos
	}
	return l.line, 0
}

func (l *lexer) errorf(format string, args ...any) error {
	line, _ := l.InputPos()
	return &xml.SyntaxError{Msg: fmt.Sprintf(format, args...), Line: line}
}

func (l *lexer) intern(b []byte) string {
	if len(b) == 0 {
		return "" // no prefix, the most names: no lookup
	}
	if s, ok := l.names[string(b)]; ok {
		return s
	}
	s := string(b)
	l.names[s] = s
	return s
}

// Skip reads up to the end of the element whose start was read last.
func (l *lexer) Skip() error {
	var t token
	for depth := 1; depth > 0; {
		if err := l.next(&t); err != nil {
			return err
		}
		switch t.kind {
		case tokStart:
			depth++
		case tokEnd:
			depth--
		}
	}
	return nil
}

// next reads the next token into t, as encoding/xml's Token would return it (comments and
// processing instructions are passed over). Filled in place, a token costs no allocation: boxed
// in an xml.Token interface, each start, end and run of text was one, 40% of an import's
// allocations.
func (l *lexer) next(t *token) error {
	if l.pendingEnd {
		l.pendingEnd = false
		l.pop()
		t.kind = tokEnd
		return nil
	}
	for {
		if l.pos >= len(l.src) {
			if len(l.stack) > 0 {
				return l.errorf("the file ends inside <%s>", l.stack[len(l.stack)-1].raw)
			}
			return io.EOF
		}
		if l.src[l.pos] != '<' {
			return l.text(t)
		}
		rest := l.src[l.pos:]
		switch {
		case bytes.HasPrefix(rest, []byte("</")):
			t.kind = tokEnd
			return l.end()
		case bytes.HasPrefix(rest, []byte("<!--")):
			i := bytes.Index(rest[4:], []byte("--"))
			if i < 0 || len(rest) < 4+i+3 || rest[4+i+2] != '>' {
				return l.errorf("unterminated comment")
			}
			if err := l.chars(rest[4 : 4+i]); err != nil {
				return err
			}
			l.pos += 4 + i + 3
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			if len(l.stack) == 0 {
				return l.errorf("CDATA outside the root element")
			}
			i := bytes.Index(rest, []byte("]]>"))
			if i < 0 {
				return l.errorf("unterminated CDATA section")
			}
			data := rest[9:i]
			if err := l.chars(data); err != nil {
				return err
			}
			l.pos += i + 3
			t.kind, t.text = tokText, lineEnds(data)
			return nil
		case bytes.HasPrefix(rest, []byte("<!")):
			if len(l.stack) > 0 {
				return l.errorf("a declaration inside an element")
			}
			i := bytes.IndexByte(rest, '>')
			if i < 0 {
				return l.errorf("unterminated declaration") // "<!" at the end: found by FuzzImport
			}
			l.pos += i + 1
			t.kind, t.text = tokDirective, rest[2:i]
			return nil
		case bytes.HasPrefix(rest, []byte("<?")):
			i := bytes.Index(rest, []byte("?>"))
			if i < 0 {
				return l.errorf("unterminated processing instruction")
			}
			l.pos += i + 2
		default:
			t.kind = tokStart
			return l.start(&t.start)
		}
	}
}

// smallTag is how many attributes a tag may have before its duplicate check uses a set.
const smallTag = 8

// chars checks that bytes are UTF-8 XML characters.
func (l *lexer) chars(b []byte) error {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return l.errorf("illegal character code U+%04X", c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return l.errorf("invalid UTF-8")
		}
		if r >= 0xD800 && r <= 0xDFFF || r == 0xFFFE || r == 0xFFFF {
			return l.errorf("illegal character code %U", r)
		}
		i += n
	}
	return nil
}

// lineEnds makes \r\n and \r into \n, as XML reads line ends (a copy only when there is one).
func lineEnds(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' {
			out = append(out, '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func (l *lexer) text(t *token) error {
	rest := l.src[l.pos:]
	i := bytes.IndexByte(rest, '<')
	if i < 0 {
		i = len(rest)
	}
	raw := rest[:i]
	if err := l.chars(raw); err != nil {
		return err
	}
	t.kind = tokText
	if len(l.stack) == 0 {
		if len(bytes.TrimSpace(raw)) > 0 {
			return l.errorf("text outside the root element")
		}
		l.pos += i
		t.text = raw
		return nil
	}
	if bytes.Contains(raw, []byte("]]>")) {
		return l.errorf("]]> in text")
	}
	l.pos += i
	if bytes.IndexByte(raw, '&') < 0 {
		t.text = lineEnds(raw)
		return nil
	}
	out, err := l.unescape(raw, false)
	t.text = out
	return err
}

// unescape replaces XML's five entities and character references and reads line ends as XML
// does; in attributes, line ends and tabs become spaces. It is archixml's Decode, which reads
// .archimate files, so that both formats read text alike.
func (l *lexer) unescape(b []byte, attr bool) ([]byte, error) {
	s, _, err := archixml.Decode(unsafe.String(unsafe.SliceData(b), len(b)), attr)
	if err != nil {
		return nil, l.errorf("%v", err)
	}
	return []byte(s), nil
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf ||
		!first && (c == '-' || c == '.' || c >= '0' && c <= '9')
}

// name reads a name at pos.
func (l *lexer) name() ([]byte, error) {
	start := l.pos
	for l.pos < len(l.src) && isNameByte(l.src[l.pos], l.pos == start) {
		l.pos++
	}
	if l.pos == start {
		return nil, l.errorf("expected a name")
	}
	n := l.src[start:l.pos]
	if !utf8.Valid(n) {
		return nil, l.errorf("invalid UTF-8")
	}
	return n, nil
}

func (l *lexer) space() bool {
	start := l.pos
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case ' ', '\t', '\n', '\r':
			l.pos++
			continue
		}
		break
	}
	return l.pos > start
}

func split(n []byte) (prefix, local []byte) {
	if i := bytes.IndexByte(n, ':'); i > 0 {
		return n[:i], n[i+1:]
	}
	return nil, n
}

func (l *lexer) resolve(prefix string, elem bool) (string, bool) {
	if prefix == "" && !elem {
		return "", true
	}
	if prefix == "xml" {
		return xmlNS, true
	}
	for i := len(l.ns) - 1; i >= 0; i-- {
		if l.ns[i].prefix == prefix {
			return l.ns[i].uri, true
		}
	}
	return "", prefix == ""
}

// start reads a start tag into se: the bounds checked, its name, its attributes (namespace
// bindings taken first), the names resolved.
func (l *lexer) start(se *xml.StartElement) error {
	if err := l.admit(); err != nil {
		return err
	}
	l.pos++ // <
	raw, err := l.name()
	if err != nil {
		return err
	}
	nsLen := len(l.ns)
	empty, err := l.attributes()
	if err != nil {
		return err
	}
	if *se, err = l.resolved(raw); err != nil {
		return err
	}
	l.root = true
	l.stack = append(l.stack, frame{raw: l.intern(raw), nsLen: nsLen})
	l.pendingEnd = empty
	return nil
}

// admit checks that one more element may start here: the only root, not too deep, not too many.
func (l *lexer) admit() error {
	if len(l.stack) == 0 && l.root {
		return l.errorf("a second root element")
	}
	if len(l.stack) >= MaxDepth {
		return l.limitf("elements nested deeper than %d", MaxDepth)
	}
	if l.elements++; l.elements > MaxElements {
		return l.limitf("more than %d elements", MaxElements)
	}
	return nil
}

// rawAttr is an attribute as written: its name's prefix and local part (interned), its value
// normalised.
type rawAttr struct {
	prefix, local string
	value         string
}

// attributes reads the attributes of a start tag into l.attrs, up to and past its end, and
// reports whether the tag was empty (<x/>). Namespace declarations are bound as they come.
func (l *lexer) attributes() (empty bool, err error) {
	l.attrs = l.attrs[:0]
	for {
		sp := l.space()
		if l.pos >= len(l.src) {
			return false, l.errorf("the file ends inside a tag")
		}
		if c := l.src[l.pos]; c == '>' || c == '/' {
			if c == '/' {
				if l.pos+1 >= len(l.src) || l.src[l.pos+1] != '>' {
					return false, l.errorf("expected /> to end the tag")
				}
				empty = true
				l.pos++
			}
			l.pos++
			return empty, nil
		}
		if !sp {
			return false, l.errorf("expected a space before an attribute")
		}
		an, a, err := l.attribute()
		if err != nil {
			return false, err
		}
		if len(l.attrs) >= archixml.MaxAttributes {
			return false, l.limitf("more than %d attributes on one element", archixml.MaxAttributes)
		}
		if l.given(a) {
			return false, l.errorf("attribute %s given twice", an)
		}
		switch {
		case a.prefix == "" && a.local == "xmlns":
			l.ns = append(l.ns, binding{"", a.value})
		case a.prefix == "xmlns":
			l.ns = append(l.ns, binding{a.local, a.value})
		}
		l.attrs = append(l.attrs, a)
	}
}

// attribute reads name="value" at pos: the name as written, and the attribute.
func (l *lexer) attribute() ([]byte, rawAttr, error) {
	an, err := l.name()
	if err != nil {
		return nil, rawAttr{}, err
	}
	l.space()
	if l.pos >= len(l.src) || l.src[l.pos] != '=' {
		return nil, rawAttr{}, l.errorf("attribute %s has no value", an)
	}
	l.pos++
	l.space()
	if l.pos >= len(l.src) || l.src[l.pos] != '"' && l.src[l.pos] != '\'' {
		return nil, rawAttr{}, l.errorf("attribute %s's value is not quoted", an)
	}
	q := l.src[l.pos]
	l.pos++
	end := bytes.IndexByte(l.src[l.pos:], q)
	if end < 0 {
		return nil, rawAttr{}, l.errorf("unterminated attribute value")
	}
	vb := l.src[l.pos : l.pos+end]
	if bytes.IndexByte(vb, '<') >= 0 {
		return nil, rawAttr{}, l.errorf("< in an attribute value")
	}
	if err := l.chars(vb); err != nil {
		return nil, rawAttr{}, err
	}
	l.pos += end + 1
	var value string
	if bytes.IndexByte(vb, '&') >= 0 || bytes.ContainsAny(vb, "\r\n\t") {
		u, err := l.unescape(vb, true)
		if err != nil {
			return nil, rawAttr{}, err
		}
		value = string(u)
	} else {
		// the bytes of src as they are, not a copy: a string each was a quarter of an import's
		// allocations. src outlives them: ImportData keeps nothing of src past its return, and
		// prepare's buffer is kept by the strings themselves.
		value = unsafe.String(unsafe.SliceData(vb), len(vb))
	}
	p, loc := split(an)
	return an, rawAttr{l.intern(p), l.intern(loc), value}, nil
}

// given reports whether the tag being read has a's name already. The check is linear: a scan of
// the first few, then a set.
func (l *lexer) given(a rawAttr) bool {
	if len(l.attrs) < smallTag {
		for _, b := range l.attrs {
			if b.prefix == a.prefix && b.local == a.local {
				return true
			}
		}
		return false
	}
	if len(l.attrs) == smallTag {
		if l.keys == nil {
			l.keys = map[string]struct{}{}
		}
		clear(l.keys)
		for _, b := range l.attrs {
			l.keys[b.prefix+":"+b.local] = struct{}{}
		}
	}
	_, twice := l.keys[a.prefix+":"+a.local]
	l.keys[a.prefix+":"+a.local] = struct{}{}
	return twice
}

// attrBlock is how many attributes the lexer allocates at once for the start tags it returns.
const attrBlock = 1024

// resolved is the start tag named raw with the attributes read, its namespaces resolved.
func (l *lexer) resolved(raw []byte) (xml.StartElement, error) {
	p, loc := split(raw)
	space, ok := l.resolve(l.intern(p), true)
	if !ok {
		return xml.StartElement{}, l.errorf("prefix %s is not bound to a namespace", p)
	}
	se := xml.StartElement{Name: xml.Name{Space: space, Local: l.intern(loc)}}
	n := len(l.attrs)
	if n == 0 {
		return se, nil
	}
	// cut from a block: one allocation a start tag was a tenth of the lexer's time
	if len(l.block) < n {
		l.block = make([]xml.Attr, max(attrBlock, n))
	}
	se.Attr, l.block = l.block[:n:n], l.block[n:]
	for i, a := range l.attrs {
		s := a.prefix
		if a.prefix != "xmlns" {
			if s, ok = l.resolve(a.prefix, false); !ok {
				return xml.StartElement{}, l.errorf("prefix %s is not bound to a namespace", a.prefix)
			}
		}
		se.Attr[i] = xml.Attr{Name: xml.Name{Space: s, Local: a.local}, Value: a.value}
	}
	return se, nil
}

func (l *lexer) end() error {
	l.pos += 2
	raw, err := l.name()
	if err != nil {
		return err
	}
	l.space()
	if l.pos >= len(l.src) || l.src[l.pos] != '>' {
		return l.errorf("expected > to end </%s", raw)
	}
	l.pos++
	if len(l.stack) == 0 {
		return l.errorf("</%s> closes nothing", raw)
	}
	top := l.stack[len(l.stack)-1]
	if string(raw) != top.raw {
		return l.errorf("element <%s> closed by </%s>", top.raw, raw)
	}
	l.pop()
	return nil
}

func (l *lexer) pop() {
	top := l.stack[len(l.stack)-1]
	l.stack = l.stack[:len(l.stack)-1]
	l.ns = l.ns[:top.nsLen]
}
