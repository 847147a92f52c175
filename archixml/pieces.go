package archixml

import (
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/beevik/etree"
)

// piecesFrom is the size from which read parses a model's top-level folders on every core.
var piecesFrom = 1 << 20

// placeholder stands for the folders cut out of the document while the rest of it is read: the
// model element keeps a child there, so the whitespace around it is read as around children.
const placeholder = "<archiplan-pieces/>"

// readPieces reads a large model as read does, its top-level folders (where nearly all of a
// model is) on every core: each folder on its own, starting where a line holds nothing before
// "<folder" but the two spaces of the first level (as Archi and archiplan write), the rest of the
// document with a placeholder in their place; then the folders take the placeholder's place. It
// is the same tree and spans as reading the whole, because a piece is taken only when it reads as
// one whole element with nothing but whitespace to the next piece, and the text around the cut is
// whitespace; anything else (a file laid out otherwise, an error to report) reports false, and
// the caller reads the document whole. TestReadPieces_IsRead holds the two to each other.
func readPieces(src string) (*etree.Document, map[*etree.Element]span, [][]spanOf, bool) {
	n := runtime.GOMAXPROCS(0)
	if len(src) < piecesFrom || n < 2 {
		return nil, nil, nil, false
	}
	starts := pieceStarts(src)
	if len(starts) < 2 || !utf8.ValidString(src) {
		return nil, nil, nil, false
	}
	// the text before the first piece, back to the last tag, is whitespace
	if gt := strings.LastIndexByte(src[:starts[0]], '>'); gt < 0 || strings.TrimLeft(src[gt+1:starts[0]], " \t\r\n") != "" {
		return nil, nil, nil, false
	}
	pieces := readEachPiece(src, starts, n)
	total := 0
	for _, p := range pieces {
		if !p.ok {
			return nil, nil, nil, false
		}
		total += len(p.spans)
	}
	cut, end := starts[0], pieces[len(pieces)-1].end
	// the text after the last piece, up to the next tag, is whitespace
	if lt := strings.IndexByte(src[end:], '<'); lt < 0 || strings.TrimLeft(src[end:end+lt], " \t\r\n") != "" {
		return nil, nil, nil, false
	}
	t, at, ok := readRest(src, cut, end, total)
	if !ok {
		return nil, nil, nil, false
	}
	root := t.doc.Root()
	pending := make([][]spanOf, len(pieces))
	for i, p := range pieces {
		root.InsertChildAt(at+i, p.e)
		pending[i] = p.spans
	}
	return t.doc, t.spans, pending, true
}

// piece is one top-level folder read on its own: the element, where it ends in the document, its
// spans in order, and whether it read as one whole element.
type piece struct {
	e     *etree.Element
	end   int
	spans []spanOf
	ok    bool
}

// pieceStarts is where the top-level folders start: at "<folder" after a line's two spaces.
func pieceStarts(src string) []int {
	var starts []int
	for at := 0; ; {
		i := strings.Index(src[at:], "\n  <folder")
		if i < 0 {
			break
		}
		p := at + i + 3
		if p+len("<folder") < len(src) {
			if c := src[p+len("<folder")]; c == ' ' || c == '>' || c == '/' || c == '\t' || c == '\r' || c == '\n' {
				starts = append(starts, p)
			}
		}
		at = p
	}
	return starts
}

// readEachPiece reads each piece of src that starts at starts on its own, on n cores, the largest
// first, so that no core is left with a large one at the end.
func readEachPiece(src string, starts []int, n int) []piece {
	pieces := make([]piece, len(starts))
	order := make([]int, len(starts))
	for i := range order {
		order[i] = i
	}
	size := func(i int) int {
		if i+1 < len(starts) {
			return starts[i+1] - starts[i]
		}
		return len(src) - starts[i]
	}
	sort.SliceStable(order, func(a, b int) bool { return size(order[a]) > size(order[b]) })
	work := make(chan int, len(starts))
	for _, i := range order {
		work <- i
	}
	close(work)
	var wg sync.WaitGroup
	for w := 0; w < min(n, len(starts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				limit := len(src)
				if i+1 < len(starts) {
					limit = starts[i+1]
				}
				body := src[starts[i]:limit]
				parent := &etree.Element{}
				t := &tree{cur: parent, list: make([]spanOf, 0, strings.Count(body, "<")-strings.Count(body, "</")+1)}
				r := &Reader{src: src, pos: starts[i], opts: ReaderOptions{MaxDepth: maxDepth}, depth: 1, line: 1}
				if r.push(t, true) != nil || r.pos > limit || len(parent.Child) != 1 {
					continue
				}
				if i+1 < len(starts) && strings.TrimLeft(src[r.pos:limit], " \t\r\n") != "" {
					continue
				}
				e, _ := parent.Child[0].(*etree.Element)
				pieces[i] = piece{e: e, end: r.pos, spans: t.list, ok: e != nil}
			}
		}()
	}
	wg.Wait()
	return pieces
}

// readRest reads src with the pieces from cut to end replaced by the placeholder, takes the
// placeholder out, and moves the spans after it to where they are in src. at is where the
// placeholder was among the root's children.
func readRest(src string, cut, end, total int) (*tree, int, bool) {
	rest := src[:cut] + placeholder + src[end:]
	t := &tree{doc: etree.NewDocument(), spans: make(map[*etree.Element]span, total+strings.Count(rest, "<"))}
	t.cur = &t.doc.Element
	if err := readInto(rest, t); err != nil {
		return nil, 0, false
	}
	root := t.doc.Root()
	if root == nil {
		return nil, 0, false
	}
	// the placeholder: a child of the root element, with the span of its text in rest
	at := -1
	for i, c := range root.Child {
		if e, ok := c.(*etree.Element); ok && e.Tag == placeholder[1:len(placeholder)-2] && e.Space == "" {
			if sp := t.spans[e]; sp.start == cut && sp.end == cut+len(placeholder) {
				at = i
			}
		}
	}
	if at < 0 {
		return nil, 0, false
	}
	ph := root.Child[at].(*etree.Element)
	delete(t.spans, ph)
	root.RemoveChildAt(at)
	shift := end - cut - len(placeholder)
	for e, sp := range t.spans {
		if sp.start >= cut {
			sp.start += shift
		}
		if sp.tagEnd > cut {
			sp.tagEnd += shift
		}
		if sp.end > cut {
			sp.end += shift
		}
		t.spans[e] = sp
	}
	return t, at, true
}
