package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// A static site cannot send the header that keeps an SVG opened on its own from running a
// script (the review page sends Content-Security-Policy: sandbox), and a picture it copies from
// an apply's archive is anyone's who can push a commit: an apply the models prove may archive any
// file beside its plan. So publish writes such a picture only when Drawn says it holds nothing
// but what this package draws pictures with: no script, no handler, no link, no style sheet, no
// other document's elements.

const svgNS = "http://www.w3.org/2000/svg"

// drawnElements are the SVG elements this package draws pictures with (a view's links aside).
var drawnElements = map[string]bool{"svg": true, "g": true, "rect": true, "path": true, "text": true, "tspan": true,
	"title": true, "desc": true, "circle": true, "ellipse": true, "line": true, "polyline": true, "polygon": true}

// Drawn says whether an SVG holds only what this package draws a plan's pictures with: SVG elements of
// drawnElements, attributes without a namespace that are neither a handler (on...), a link (href) nor a
// style, no DOCTYPE or entity, no processing instruction but the XML declaration.
func Drawn(data []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	seen := false
	for {
		tok, err := d.Token() // names resolved, tags matched
		if errors.Is(err, io.EOF) {
			return seen
		}
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !drawnElements[t.Name.Local] || t.Name.Space != svgNS {
				return false
			}
			for _, a := range t.Attr {
				if !plainAttr(a) {
					return false
				}
			}
			seen = true
		case xml.ProcInst:
			if t.Target != "xml" {
				return false
			}
		case xml.Directive:
			return false
		}
	}
}

// plainAttr says whether an attribute is one a picture may hold: without a prefix (the default
// namespace's declaration included: the element's namespace says it is SVG's), and running,
// loading or linking nothing.
func plainAttr(a xml.Attr) bool {
	if a.Name.Space != "" {
		return false // xlink:href, xml:base, xmlns:x, ...
	}
	n := strings.ToLower(a.Name.Local)
	return !strings.HasPrefix(n, "on") && n != "href" && n != "style" && n != "src"
}
