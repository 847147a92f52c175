package archixml

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/beevik/etree"
)

// readWhole is read without its pieces.
func readWhole(src string) (*etree.Document, map[*etree.Element]span, error) {
	t := &tree{doc: etree.NewDocument(), spans: map[*etree.Element]span{}}
	t.cur = &t.doc.Element
	err := readInto(src, t)
	return t.doc, t.spans, err
}

// sameTokens compares two trees token by token (elements, attributes, text, comments and
// processing instructions, in order), each element's span, parent and place among its parent's
// children.
func sameTokens(a, b *etree.Element, sa, sb map[*etree.Element]span, path string) string {
	if a.FullTag() != b.FullTag() || len(a.Attr) != len(b.Attr) || len(a.Child) != len(b.Child) {
		return fmt.Sprintf("%s/%s: tag, attributes or tokens differ", path, a.FullTag())
	}
	path += "/" + a.FullTag()
	if sa[a] != sb[b] {
		return fmt.Sprintf("%s: span %v vs %v", path, sa[a], sb[b])
	}
	for i := range a.Attr {
		if a.Attr[i].FullKey() != b.Attr[i].FullKey() || a.Attr[i].Value != b.Attr[i].Value || a.Attr[i].Element() != a {
			return path + ": attribute " + a.Attr[i].FullKey()
		}
	}
	for i := range a.Child {
		switch x := a.Child[i].(type) {
		case *etree.Element:
			y, ok := b.Child[i].(*etree.Element)
			if !ok || x.Parent() != a || x.Index() != i || y.Index() != i {
				return fmt.Sprintf("%s: child %d", path, i)
			}
			if d := sameTokens(x, y, sa, sb, path); d != "" {
				return d
			}
		case *etree.CharData:
			y, ok := b.Child[i].(*etree.CharData)
			if !ok || x.Data != y.Data || x.IsWhitespace() != y.IsWhitespace() {
				return fmt.Sprintf("%s: text %d", path, i)
			}
		case *etree.Comment:
			if y, ok := b.Child[i].(*etree.Comment); !ok || x.Data != y.Data {
				return fmt.Sprintf("%s: comment %d", path, i)
			}
		case *etree.ProcInst:
			if y, ok := b.Child[i].(*etree.ProcInst); !ok || x.Target != y.Target || x.Inst != y.Inst {
				return fmt.Sprintf("%s: processing instruction %d", path, i)
			}
		}
	}
	return ""
}

// A model read in pieces on every core is the model read whole: the same tokens, spans, parents
// and places, on generated models and every corpus model (read in pieces whatever their size),
// with LF or CRLF lines; a file laid out otherwise is read whole, and an error is reported as
// when reading whole.
func TestReadPieces_IsRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	defer func(n int) { piecesFrom = n }(piecesFrom)
	piecesFrom = 0
	inputs := map[string]string{}
	for _, n := range []int{300, 3000} {
		m, err := Synthesize(SynthOptions{Elements: n, Seed: 5})
		must(t, err)
		data, _ := m.Save()
		inputs[fmt.Sprintf("synth-%d", n)] = string(data)
		inputs[fmt.Sprintf("synth-%d-crlf", n)] = strings.ReplaceAll(string(data), "\n", "\r\n")
	}
	for _, f := range testenv.CorpusModelsIfSet(t) {
		if strings.Contains(f, "zipped") {
			continue
		}
		data, err := os.ReadFile(f)
		must(t, err)
		inputs[filepath.Base(f)] = string(data)
	}
	pieced := 0
	for name, src := range inputs {
		doc, spans, pending, ok := readPieces(src)
		addSpans(spans, pending)
		wdoc, wspans, err := readWhole(src)
		must(t, err)
		if !ok {
			if strings.HasPrefix(name, "synth") {
				t.Errorf("%s: not read in pieces", name)
			}
			continue
		}
		pieced++
		if len(doc.Child) != len(wdoc.Child) {
			t.Fatalf("%s: %d tokens in the document, whole %d", name, len(doc.Child), len(wdoc.Child))
		}
		if d := sameTokens(doc.Root(), wdoc.Root(), spans, wspans, ""); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
		if len(spans) != len(wspans) {
			t.Fatalf("%s: %d spans, whole %d", name, len(spans), len(wspans))
		}
	}
	t.Logf("%d of %d read in pieces", pieced, len(inputs))
	if pieced < 2 {
		t.Fatalf("only %d inputs read in pieces", pieced)
	}
	m, _ := Synthesize(SynthOptions{Elements: 300, Seed: 5})
	data, _ := m.Save()
	src := string(data)
	second := strings.Index(src[strings.Index(src, "\n  <folder")+1:], "\n  <folder") + strings.Index(src, "\n  <folder") + 1
	for what, other := range map[string]string{
		"a comment between folders": src[:second] + "\n  <!-- c -->" + src[second:],
		"text between folders":      src[:second] + "\n  text" + src[second:],
		"a folder cut short":        src[:second-len("</folder>")] + src[second:],
	} {
		if _, _, _, ok := readPieces(other); ok {
			t.Errorf("%s: read in pieces", what)
		}
		doc, spans, err := read(other)
		wdoc, wspans, werr := readWhole(other)
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("%s: %v, whole %v", what, err, werr)
		}
		if err == nil {
			if d := sameTokens(doc.Root(), wdoc.Root(), spans, wspans, ""); d != "" {
				t.Fatalf("%s: %s", what, d)
			}
		}
	}
}

// The nesting limit counts from the document's root when a folder is read on its own core: a
// model whose folder nests to exactly maxDepth is read, in pieces and whole; one level more is
// refused both ways.
func TestReadPieces_DepthLimit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	defer func(n int) { piecesFrom = n }(piecesFrom)
	piecesFrom = 0
	model := func(inner int) string { // the model, a folder, inner levels below it
		return "<?xml version=\"1.0\"?>\n<archimate:model name=\"m\">\n  <folder name=\"a\">" +
			strings.Repeat("<a>", inner) + strings.Repeat("</a>", inner) + "</folder>\n  <folder name=\"b\"/>\n</archimate:model>\n"
	}
	if _, _, _, ok := readPieces(model(maxDepth - 2)); !ok {
		t.Fatalf("%d levels: not read in pieces", maxDepth)
	}
	if _, _, err := read(model(maxDepth - 2)); err != nil {
		t.Fatalf("%d levels: %v", maxDepth, err)
	}
	if _, _, _, ok := readPieces(model(maxDepth - 1)); ok {
		t.Fatalf("%d levels read in pieces", maxDepth+1)
	}
	if _, _, err := read(model(maxDepth - 1)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("%d levels: %v", maxDepth+1, err)
	}
}

// The index built on two cores (the ids apart from the references) is the index built in one
// walk: the same maps, the same lists in the same (document) order, the same duplicate ids, on
// synthetic models (one with duplicate ids and dangling references) and every corpus model.
func TestReindex_ApartIsWhole(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	defer func(n int) { indexApartFrom = n }(indexApartFrom)
	inputs := map[string]string{}
	for _, n := range []int{300, 3000} {
		m, err := Synthesize(SynthOptions{Elements: n, Seed: 7})
		must(t, err)
		data, _ := m.Save()
		inputs[fmt.Sprintf("synth-%d", n)] = string(data)
	}
	// every third id given twice, a relationship's ends and a diagram object's concept renamed
	dup, n := inputs["synth-300"], 0
	dup = regexp.MustCompile(`id="[^"]+"`).ReplaceAllStringFunc(dup, func(s string) string {
		n++
		if n%3 == 0 {
			return `id="twice-` + fmt.Sprint(n%7) + `"`
		}
		return s
	})
	inputs["synth-300-dups"] = dup
	for _, f := range testenv.CorpusModelsIfSet(t) {
		data, err := os.ReadFile(f)
		must(t, err)
		inputs[filepath.Base(f)] = string(data)
	}
	for name, src := range inputs {
		indexApartFrom = 1 << 30
		whole, err := Load([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		indexApartFrom = 0
		apart, err := Load([]byte(src))
		must(t, err)
		// the same tree, so the same elements by their place in it
		path := func(m *Model) map[*etree.Element]string {
			out := map[*etree.Element]string{}
			var walk func(e *etree.Element, p string)
			walk = func(e *etree.Element, p string) {
				out[e] = p
				for i, c := range e.ChildElements() {
					walk(c, fmt.Sprintf("%s/%d", p, i))
				}
			}
			walk(m.root, "")
			return out
		}
		pw, pa := path(whole), path(apart)
		ids := func(m *Model, p map[*etree.Element]string) string {
			keys := make([]string, 0, len(m.byID))
			for k, e := range m.byID {
				keys = append(keys, k+"="+p[e])
			}
			sort.Strings(keys)
			return strings.Join(keys, "\n")
		}
		lists := func(idx map[string][]*etree.Element, p map[*etree.Element]string) string {
			keys := make([]string, 0, len(idx))
			for k, l := range idx {
				s := k + ":"
				for _, e := range l {
					s += " " + p[e]
				}
				keys = append(keys, s)
			}
			sort.Strings(keys)
			return strings.Join(keys, "\n")
		}
		if ids(whole, pw) != ids(apart, pa) {
			t.Errorf("%s: byID differs", name)
		}
		if lists(whole.relsByEnd, pw) != lists(apart.relsByEnd, pa) {
			t.Errorf("%s: relsByEnd differs", name)
		}
		if lists(whole.refsTo, pw) != lists(apart.refsTo, pa) {
			t.Errorf("%s: refsTo differs", name)
		}
		if fmt.Sprint(whole.dupIDs) != fmt.Sprint(apart.dupIDs) {
			t.Errorf("%s: duplicate ids %v, apart %v", name, whole.dupIDs, apart.dupIDs)
		}
		if name == "synth-300-dups" && len(apart.dupIDs) == 0 {
			t.Errorf("%s: no duplicate id found", name)
		}
		if strings.HasPrefix(name, "synth") && (len(whole.byID) == 0 || len(whole.relsByEnd) == 0 || len(whole.refsTo) == 0) {
			t.Errorf("%s: nothing indexed", name)
		}
	}
}
