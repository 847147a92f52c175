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
	if !utf8.ValidString(src) {
		return nil, nil, fmt.Errorf("invalid UTF-8: %w", ErrMalformed)
	}
	r := &reader{src: src, spans: make(map[*etree.Element]span, strings.Count(src, "<")/2+1)}
	r.doc = etree.NewDocument()
	if err := r.document(); err != nil {
		return nil, nil, err
	}
	return r.doc, r.spans, nil
}

// maxDepth bounds element nesting; Archi's deepest real diagrams nest a few dozen levels.
const maxDepth = 1000

type reader struct {
	src   string
	pos   int
	doc   *etree.Document
	spans map[*etree.Element]span
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
			if err := r.procInst(&r.doc.Element); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "<!--"):
			if err := r.comment(&r.doc.Element); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "<!"):
			return fmt.Errorf("declaration at byte %d: %w", r.pos, ErrDoctype)
		default:
			if root {
				return r.errorf("a second root element")
			}
			root = true
			if err := r.element(&r.doc.Element); err != nil {
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

func (r *reader) procInst(parent *etree.Element) error {
	end := strings.Index(r.src[r.pos+2:], "?>")
	if end < 0 {
		return r.errorf("unterminated processing instruction")
	}
	body := r.src[r.pos+2 : r.pos+2+end]
	target, inst, _ := strings.Cut(body, " ")
	if target == "" {
		return r.errorf("processing instruction without a target")
	}
	parent.CreateProcInst(target, strings.TrimLeft(inst, " \t\r\n"))
	r.pos += 2 + end + 2
	return nil
}

func (r *reader) comment(parent *etree.Element) error {
	end := strings.Index(r.src[r.pos+4:], "-->")
	if end < 0 {
		return r.errorf("unterminated comment")
	}
	parent.CreateComment(r.src[r.pos+4 : r.pos+4+end])
	r.pos += 4 + end + 3
	return nil
}

// element reads one element, from its '<' to the end of its end tag, and everything inside.
func (r *reader) element(parent *etree.Element) error {
	// iterative, with an explicit stack, so that depth costs no Go stack
	type open struct {
		e        *etree.Element
		name     string
		start    int
		tagEnd   int
		children bool
		text     []string // pending text pieces
		blank    bool     // all pending text is whitespace
	}
	var stack []open
	for {
		if r.pos >= len(r.src) {
			return r.errorf("%d elements never closed", len(stack))
		}
		if r.src[r.pos] != '<' {
			// text up to the next markup
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
			top := &stack[len(stack)-1]
			top.text = append(top.text, text)
			top.blank = top.blank && blank
			r.pos += next
			continue
		}
		rest := r.src[r.pos:]
		switch {
		case strings.HasPrefix(rest, "</"):
			if len(stack) == 0 {
				return r.errorf("stray end tag")
			}
			top := &stack[len(stack)-1]
			n := r.pos + 2
			if !strings.HasPrefix(r.src[n:], top.name) {
				return r.errorf("end tag does not match <%s>", top.name)
			}
			n += len(top.name)
			for n < len(r.src) && isSpace(r.src[n]) {
				n++
			}
			if n >= len(r.src) || r.src[n] != '>' {
				return r.errorf("end tag does not match <%s>", top.name)
			}
			r.flushText(top.e, top.text, top.blank, top.children)
			r.pos = n + 1
			r.spans[top.e] = span{start: top.start, tagEnd: top.tagEnd, end: r.pos}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil
			}
		case strings.HasPrefix(rest, "<!--"):
			if len(stack) == 0 {
				return r.errorf("comment outside an element")
			}
			top := &stack[len(stack)-1]
			r.flushText(top.e, top.text, top.blank, true)
			top.text, top.blank = nil, true
			if err := r.comment(top.e); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "<![CDATA["):
			end := strings.Index(rest[9:], "]]>")
			if end < 0 || len(stack) == 0 {
				return r.errorf("unterminated CDATA section")
			}
			top := &stack[len(stack)-1]
			text := normalizeNewlines(rest[9 : 9+end])
			top.text = append(top.text, text)
			top.blank = top.blank && strings.TrimLeft(text, " \t\n") == ""
			r.pos += 9 + end + 3
		case strings.HasPrefix(rest, "<!"):
			return fmt.Errorf("declaration at byte %d: %w", r.pos, ErrDoctype)
		case strings.HasPrefix(rest, "<?"):
			if len(stack) == 0 {
				return r.errorf("processing instruction outside an element")
			}
			if err := r.procInst(stack[len(stack)-1].e); err != nil {
				return err
			}
		default:
			if len(stack) >= maxDepth {
				return r.errorf("elements nested deeper than %d", maxDepth)
			}
			p := parent
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				// whitespace between elements is layout, not content: the writer makes its own
				if !top.blank {
					r.flushText(top.e, top.text, false, true)
				}
				top.text, top.blank, top.children = nil, true, true
				p = top.e
			}
			start := r.pos
			e, name, empty, err := r.startTag(p)
			if err != nil {
				return err
			}
			if empty {
				r.spans[e] = span{start: start, tagEnd: r.pos, end: r.pos}
				if len(stack) == 0 {
					return nil
				}
				continue
			}
			stack = append(stack, open{e: e, name: name, start: start, tagEnd: r.pos, blank: true})
		}
	}
}

// flushText adds the pending text to e. Whitespace-only text around child elements is layout and
// dropped; the text of an element without children is kept whatever it is.
func (r *reader) flushText(e *etree.Element, text []string, blank, children bool) {
	if len(text) == 0 || (blank && children) {
		return
	}
	if len(text) == 1 {
		e.CreateText(text[0])
		return
	}
	e.CreateText(strings.Join(text, ""))
}

// startTag reads a start tag and creates its element under parent.
func (r *reader) startTag(parent *etree.Element) (*etree.Element, string, bool, error) {
	r.pos++ // '<'
	name, err := r.name()
	if err != nil {
		return nil, "", false, err
	}
	e := parent.CreateElement(name)
	e.Attr = make([]etree.Attr, 0, 6) // one allocation for the attributes of nearly every element
	for {
		sp := r.pos
		r.skipSpace()
		if r.pos >= len(r.src) {
			return nil, "", false, r.errorf("unterminated tag <%s>", name)
		}
		switch c := r.src[r.pos]; {
		case c == '>':
			r.pos++
			return e, name, false, nil
		case c == '/':
			if r.pos+1 >= len(r.src) || r.src[r.pos+1] != '>' {
				return nil, "", false, r.errorf("'/' not followed by '>' in <%s>", name)
			}
			r.pos += 2
			return e, name, true, nil
		case sp == r.pos:
			return nil, "", false, r.errorf("no space before an attribute of <%s>", name)
		}
		key, err := r.name()
		if err != nil {
			return nil, "", false, err
		}
		r.skipSpace()
		if r.pos >= len(r.src) || r.src[r.pos] != '=' {
			return nil, "", false, r.errorf("attribute %s of <%s> has no value", key, name)
		}
		r.pos++
		r.skipSpace()
		if r.pos >= len(r.src) || (r.src[r.pos] != '"' && r.src[r.pos] != '\'') {
			return nil, "", false, r.errorf("attribute %s of <%s> is not quoted", key, name)
		}
		q := r.src[r.pos]
		end := strings.IndexByte(r.src[r.pos+1:], q)
		if end < 0 {
			return nil, "", false, r.errorf("unterminated value of %s", key)
		}
		raw := r.src[r.pos+1 : r.pos+1+end]
		if strings.IndexByte(raw, '<') >= 0 {
			return nil, "", false, r.errorf("'<' in the value of %s", key)
		}
		value, _, err := r.decode(raw, true)
		if err != nil {
			return nil, "", false, err
		}
		r.pos += end + 2
		n := len(e.Attr)
		e.CreateAttr(key, value)
		if len(e.Attr) == n {
			return nil, "", false, r.errorf("attribute %s twice in <%s>", key, name)
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

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// decode resolves references and normalizes line ends (and, in attributes, whitespace) as XML
// 1.0 says a parser must. It returns s itself when there is nothing to change, and whether the
// text is all whitespace.
func (r *reader) decode(s string, attr bool) (string, bool, error) {
	blank := true
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&' || c == '\r':
			clean = false
		case attr && (c == '\n' || c == '\t'):
			clean = false
		case c < 0x20 && c != '\n' && c != '\t':
			return "", false, r.errorf("control character %#x", c)
		}
		if !isSpace(c) {
			blank = false
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
				return "", false, r.errorf("'&' without ';'")
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
					return "", false, r.errorf("%v", err)
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
