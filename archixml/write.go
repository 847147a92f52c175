package archixml

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/beevik/etree"
)

// Save returns the model as the bytes of a .archimate file: the same form it was read in (plain
// XML, or the zipped archive with its other entries unchanged).
func (m *Model) Save() ([]byte, error) {
	o := &output{}
	size := len(m.src)
	if size == 0 {
		// a model built, not read (an import): about 256 bytes an object, rather than growing
		// the buffer from nothing by copies (a tenth of an import's time at 10,000 elements)
		size = 256 * len(m.byID)
	}
	o.buf.Grow(size + size/16 + 1<<16) // room for edits without a copy
	m.saved = nil
	if m.archive == nil {
		o.rec = &saveSpans{gen: m.gen}
	}
	m.writeXML(o)
	if m.archive == nil {
		o.rec.out = o.buf.Bytes()
		m.saved = o.rec
		return o.buf.Bytes(), nil
	}
	return m.writeArchive(o.buf.Bytes())
}

// SavesAs reports whether Save would return exactly want, comparing as it writes instead of
// building the file (a model's size in memory, twice in an apply's proof). For Archi's zipped
// form it compares what the archive holds: the same entries in the same order, each one but
// model.xml as Save copies it, and model.xml the same XML however it was compressed (Archi's
// deflater and Go's make other bytes of the same text, so a model.xml written anew and then
// changed back is the same model in other bytes).
func (m *Model) SavesAs(want []byte) bool {
	if m.archive != nil {
		return m.archiveSavesAs(want)
	}
	o := &output{want: want}
	o.buf.Grow(comparePiece) // the most it holds
	m.writeXML(o)
	o.flush()
	return !o.diff && o.off == len(want)
}

// output is what the writer writes into: a buffer, or, with want set, a comparison with want
// that keeps no more than a piece at a time. rec, when set, notes where each element went.
type output struct {
	buf  bytes.Buffer
	want []byte
	off  int // bytes compared with want and dropped
	diff bool
	rec  *saveSpans
}

// comparing keeps the buffer small while comparing: a write that would take it past a piece
// compares what it holds first, and a write of a piece or more (a subtree copied whole: a folder
// of a large model is megabytes) is compared where it lies, never buffered.
const comparePiece = 64 << 10

func (o *output) WriteString(s string) {
	if o.room(len(s)) && len(s) >= comparePiece {
		if n := len(s); o.off+n > len(o.want) || string(o.want[o.off:o.off+n]) != s {
			o.diff = true
		}
		o.off += len(s)
		return
	}
	o.buf.WriteString(s)
}

func (o *output) WriteByte(c byte) error {
	o.room(1)
	return o.buf.WriteByte(c)
}

func (o *output) WriteRune(r rune) {
	o.room(utf8.UTFMax)
	o.buf.WriteRune(r)
}

// room makes room for n bytes while comparing (its buffer compared and emptied when they would
// take it past a piece), and says whether it is comparing.
func (o *output) room(n int) bool {
	if o.want == nil {
		return false
	}
	if o.buf.Len()+n > comparePiece {
		o.flush()
	}
	return true
}

// Len is how many bytes have been written.
func (o *output) Len() int { return o.off + o.buf.Len() }

func (o *output) flush() {
	n := o.buf.Len()
	if o.off+n > len(o.want) || !bytes.Equal(o.buf.Bytes(), o.want[o.off:o.off+n]) {
		o.diff = true
	}
	o.off += n
	o.buf.Reset()
}

// saveSpans is where a Save put each element of the tree in what it wrote (out), so that Rebase
// can take out as the model's source without reading it again: the elements whose tags it copied
// or wrote anew (at), the subtrees it copied whole (moved: every element below shifts by the same
// amount), and, of those written anew, the outermost ones (fresh), which Rebase reads back.
type saveSpans struct {
	out   []byte
	gen   int
	at    []spanOf
	moved []shifted
	fresh []spanOf
}

type shifted struct {
	e     *etree.Element
	delta int
}

// CheckSize refuses (ErrTooLarge) the bytes of a .archimate file that Load would refuse for
// their size: a plain file over MaxModelBytes, or a zipped one whose model.xml inflates to more.
// An apply checks what Save wrote before committing it, so that archiplan never commits a model
// it could not read back.
func CheckSize(data []byte) error {
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		if len(data) > MaxModelBytes {
			return fmt.Errorf("the model would be %d bytes, over the limit of %d: %w", len(data), MaxModelBytes, ErrTooLarge)
		}
		return nil
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("read archive: %v: %w", err, ErrMalformed)
	}
	for _, f := range zr.File {
		if f.Name == "model.xml" && f.UncompressedSize64 > uint64(MaxModelBytes) {
			return fmt.Errorf("model.xml would inflate to %d bytes, over the limit of %d: %w", f.UncompressedSize64, MaxModelBytes, ErrTooLarge)
		}
	}
	return nil
}

// WriteTo writes the model as Save does.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	data, err := m.Save()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// Changed reports whether any edit has been made since the model was loaded.
func (m *Model) Changed() bool { return len(m.state) > 0 }

func (m *Model) writeXML(b *output) {
	rs, ok := m.spans[m.root]
	if !ok { // a model built from nothing
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + m.nl)
		m.writeElement(b, m.root, 0)
		b.WriteString(m.nl)
		return
	}
	b.WriteString(m.src[:rs.start])
	m.writeElement(b, m.root, 0)
	b.WriteString(m.src[rs.end:])
}

func (m *Model) writeElement(b *output, e *etree.Element, depth int) {
	sp, had := m.spans[e]
	st := m.state[e]
	at := b.Len()
	switch {
	case had && st == 0:
		b.WriteString(m.src[sp.start:sp.end])
		if b.rec != nil {
			b.rec.moved = append(b.rec.moved, shifted{e, at - sp.start})
		}
	case had && st&stateDirty == 0:
		// touched: the tags and the text between the children are as they were
		prev := sp.start
		for _, t := range e.Child {
			c, ok := t.(*etree.Element)
			if !ok {
				continue
			}
			cs := m.spans[c]
			b.WriteString(m.src[prev:cs.start])
			m.writeElement(b, c, depth+1)
			prev = cs.end
		}
		b.WriteString(m.src[prev:sp.end])
		if b.rec != nil {
			b.rec.at = append(b.rec.at, spanOf{e, span{start: at, tagEnd: at + sp.tagEnd - sp.start, end: b.Len()}})
		}
	default:
		fresh := b.rec != nil && len(b.rec.fresh) > 0 && b.rec.fresh[len(b.rec.fresh)-1].end < 0
		if b.rec != nil && !fresh {
			b.rec.fresh = append(b.rec.fresh, spanOf{e, span{start: at, end: -1}})
		}
		tagEnd := m.writeCanonical(b, e, depth)
		if b.rec != nil {
			b.rec.at = append(b.rec.at, spanOf{e, span{start: at, tagEnd: tagEnd, end: b.Len()}})
			if !fresh {
				b.rec.fresh[len(b.rec.fresh)-1].end = b.Len()
			}
		}
	}
}

// writeCanonical writes e as EMF does: attributes in the order held (edits keep Archi's order),
// escaped as EMF escapes them, children one a line indented by two spaces a level, text inline.
func (m *Model) writeCanonical(b *output, e *etree.Element, depth int) (tagEnd int) {
	b.WriteByte('<')
	writeName(b, e.Space, e.Tag)
	for _, a := range e.Attr {
		b.WriteByte(' ')
		writeName(b, a.Space, a.Key)
		b.WriteString(`="`)
		escape(b, a.Value, true)
		b.WriteByte('"')
	}
	hasChild := false
	var text strings.Builder
	for _, t := range e.Child {
		switch t := t.(type) {
		case *etree.Element:
			hasChild = true
		case *etree.CharData:
			text.WriteString(t.Data)
		}
	}
	if !hasChild {
		if text.Len() == 0 {
			b.WriteString("/>")
			return b.Len()
		}
		b.WriteByte('>')
		tagEnd = b.Len()
		escape(b, text.String(), false)
		writeEnd(b, e)
		return tagEnd
	}
	b.WriteByte('>')
	tagEnd = b.Len()
	for _, t := range e.Child {
		switch t := t.(type) {
		case *etree.Element:
			b.WriteString(m.nl)
			indent(b, depth+1)
			m.writeElement(b, t, depth+1)
		case *etree.Comment:
			b.WriteString(m.nl)
			indent(b, depth+1)
			b.WriteString("<!--")
			b.WriteString(strings.ReplaceAll(t.Data, "--", "- -"))
			b.WriteString("-->")
		}
	}
	b.WriteString(m.nl)
	indent(b, depth)
	writeEnd(b, e)
	return tagEnd
}

func writeName(b *output, space, local string) {
	if space != "" {
		b.WriteString(space)
		b.WriteByte(':')
	}
	b.WriteString(local)
}

func writeEnd(b *output, e *etree.Element) {
	b.WriteString("</")
	writeName(b, e.Space, e.Tag)
	b.WriteByte('>')
}

func indent(b *output, depth int) {
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
}

// escape writes s as EMF's XMLSaveImpl.Escape does: &, < and " always; in attributes also line
// feeds, carriage returns and tabs as character references; in text only carriage returns.
// In text, the '>' of "]]>" becomes &gt;, which XML requires and EMF does. Characters XML 1.0
// cannot carry are dropped (edits refuse them; this is the last guard).
func escape(b *output, s string, attr bool) {
	if plainXML(s) {
		b.WriteString(s) // most names and ids: written whole, not rune by rune
		return
	}
	for i, r := range s {
		switch r {
		case '>':
			if !attr && i >= 2 && s[i-2:i] == "]]" {
				b.WriteString("&gt;")
			} else {
				b.WriteByte('>')
			}
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '"':
			b.WriteString("&quot;")
		case '\r':
			b.WriteString("&#xD;")
		case '\n':
			if attr {
				b.WriteString("&#xA;")
			} else {
				b.WriteByte('\n')
			}
		case '\t':
			if attr {
				b.WriteString("&#x9;")
			} else {
				b.WriteByte('\t')
			}
		default:
			if validXMLChar(r) {
				b.WriteRune(r)
			}
		}
	}
}

// plainXML says whether s is printable ASCII that escape writes as it is.
func plainXML(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '&', c == '<', c == '>', c == '"':
			return false
		}
	}
	return true
}

func validXMLChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return false
	case r == utf8.RuneError:
		return true // U+FFFD itself is a valid character; invalid UTF-8 is caught by checkText
	}
	return r <= 0x10FFFF
}

// checkText refuses text that XML cannot carry: invalid UTF-8 or control characters.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("invalid UTF-8: %w", ErrInvalidText)
	}
	for i, r := range s {
		if !validXMLChar(r) {
			return fmt.Errorf("character %U at byte %d: %w", r, i, ErrInvalidText)
		}
	}
	return nil
}

// writeArchive writes the zipped form: entries in their order, each one but model.xml copied
// raw (compressed bytes, times and names as they were), model.xml written anew only if it changed.
func (m *Model) writeArchive(modelXML []byte) ([]byte, error) {
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for i, f := range m.archive.files {
		if i == m.archive.modelAt && string(modelXML) != m.src {
			h := f.FileHeader
			h.Method = zip.Deflate
			// the writer adds its extended timestamp (from Modified, kept); one read back from an
			// earlier save goes, or each save would add one more and the same model would save
			// to other bytes after each reload (a commit's proof replays a plan on the reloaded
			// parent; a daemon keeps the model in memory)
			h.Extra = withoutExtTime(h.Extra)
			w, err := zw.CreateHeader(&h)
			if err != nil {
				return nil, fmt.Errorf("write model.xml: %w", err)
			}
			if _, err := w.Write(modelXML); err != nil {
				return nil, fmt.Errorf("write model.xml: %w", err)
			}
			continue
		}
		r, err := f.OpenRaw()
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", f.Name, err)
		}
		h := f.FileHeader
		w, err := zw.CreateRaw(&h)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", f.Name, err)
		}
		if _, err := io.Copy(w, r); err != nil {
			return nil, fmt.Errorf("copy %s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("close archive: %w", err)
	}
	return out.Bytes(), nil
}

// withoutExtTime is a zip entry's extra fields without its extended timestamps (id 0x5455);
// fields that do not parse are kept as they are.
func withoutExtTime(extra []byte) []byte {
	const extTime = 0x5455
	var out []byte
	for rest := extra; len(rest) > 0; {
		if len(rest) < 4 {
			return append(out, rest...)
		}
		id, size := int(rest[0])|int(rest[1])<<8, int(rest[2])|int(rest[3])<<8
		if len(rest) < 4+size {
			return append(out, rest...)
		}
		if id != extTime {
			out = append(out, rest[:4+size]...)
		}
		rest = rest[4+size:]
	}
	return out
}

// archiveSavesAs is SavesAs for the zipped form.
func (m *Model) archiveSavesAs(want []byte) bool {
	if !zipped(want) {
		return false
	}
	got, err := m.Save()
	if err != nil {
		return false
	}
	if bytes.Equal(got, want) {
		return true
	}
	gotXML, gz, gat, err := inflate(got)
	if err != nil {
		return false
	}
	wantXML, wz, wat, err := inflate(want)
	if err != nil || gat != wat || len(gz.File) != len(wz.File) || gotXML != wantXML {
		return false
	}
	for i, g := range gz.File {
		w := wz.File[i]
		if g.Name != w.Name {
			return false
		}
		if i == gat {
			continue
		}
		if g.CRC32 != w.CRC32 || g.Method != w.Method || !sameRaw(g, w) {
			return false
		}
	}
	return true
}

// sameRaw reports whether two entries hold the same compressed bytes.
func sameRaw(a, b *zip.File) bool {
	if a.CompressedSize64 != b.CompressedSize64 {
		return false
	}
	ra, err := a.OpenRaw()
	if err != nil {
		return false
	}
	rb, err := b.OpenRaw()
	if err != nil {
		return false
	}
	x, err := io.ReadAll(ra)
	if err != nil {
		return false
	}
	y, err := io.ReadAll(rb)
	return err == nil && bytes.Equal(x, y)
}
