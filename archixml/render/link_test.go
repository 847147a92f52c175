package render

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// With Options.Link, every drawn object and connection that shows a concept is inside a link to
// the address Link gives (escaped), and nothing else is; without it, no link is drawn.
func TestViewWith_Link(t *testing.T) {
	m := archixml.Example()
	view := m.Views()[0]
	want := map[string]int{} // concept id -> objects and connections showing it
	for _, list := range [][]archixml.Object{view.DiagramObjects(), view.Connections()} {
		for _, d := range list {
			if c, ok := d.Concept(); ok {
				want[c.ID()]++
			}
		}
	}
	if len(want) < 3 {
		t.Fatalf("the example's first view shows %d concepts", len(want))
	}
	skip := ""
	for id := range want {
		skip = id // one concept without an address: drawn without a link
		break
	}
	svg, err := ViewWith(m, view.ID(), Options{Link: func(id string) string {
		if id == skip {
			return ""
		}
		return `page/"` + id + `"<x>.html`
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(svg))
	depth := 0 // links are never nested
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local != "a" {
				continue
			}
			if depth++; depth > 1 {
				t.Fatal("a link inside a link")
			}
			for _, a := range tok.Attr {
				if a.Name.Local == "href" {
					id, ok := strings.CutPrefix(a.Value, `page/"`)
					id, ok2 := strings.CutSuffix(id, `"<x>.html`)
					if !ok || !ok2 {
						t.Fatalf("href %q", a.Value)
					}
					got[id]++
				}
			}
		case xml.EndElement:
			if tok.Name.Local == "a" {
				depth--
			}
		}
	}
	for id, n := range want {
		if id == skip {
			n = 0
		}
		if got[id] != n {
			t.Errorf("%s: %d links, want %d", id, got[id], n)
		}
	}
	if !bytes.Contains(svg, []byte(`&quot;&lt;x&gt;`)) {
		t.Error("the address is not escaped")
	}
	plain, err := View(m, view.ID())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte("<a ")) {
		t.Error("a link without Options.Link")
	}
}
