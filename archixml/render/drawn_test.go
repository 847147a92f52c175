package render

import "testing"

// Drawn lets through what this package draws and nothing that can run, load or link: each
// hostile case is a way an SVG opened as a document runs a script or reaches elsewhere.
func TestDrawn_OnlyWhatIsDrawn(t *testing.T) {
	const open = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">`
	for _, c := range []struct {
		name, svg string
		ok        bool
	}{
		{"plain", `<?xml version="1.0" encoding="UTF-8"?>` + open + `<g class="x" data-id="id-1"><rect x="1" y="1" width="5" height="5" fill="#fff"/><text font-style="italic"><tspan>a &lt;b&gt;</tspan></text><!-- c --></g></svg>`, true},
		{"empty", ``, false},
		{"script", open + `<script>alert(1)</script></svg>`, false},
		{"prefixed script", `<s:svg xmlns:s="http://www.w3.org/2000/svg"><s:script>alert(1)</s:script></s:svg>`, false},
		{"handler", open + `<rect onload="alert(1)"/></svg>`, false},
		{"handler in capitals", open + `<rect ONLOAD="alert(1)"/></svg>`, false},
		{"link", open + `<a href="javascript:alert(1)"><rect/></a></svg>`, false},
		{"href on a drawn element", open + `<g href="javascript:alert(1)"><rect/></g></svg>`, false},
		{"xlink", open + `<g xmlns:xlink="http://www.w3.org/1999/xlink"><rect xlink:href="x"/></g></svg>`, false},
		{"style sheet", open + `<style>@import url(//example.com/x.css)</style></svg>`, false},
		{"style attribute", open + `<rect style="fill:url(//example.com/x)"/></svg>`, false},
		{"foreign object", open + `<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></body></foreignObject></svg>`, false},
		{"another namespace", open + `<g xmlns="http://www.w3.org/1999/xhtml"><rect/></g></svg>`, false},
		{"animation", open + `<set attributeName="href" to="javascript:alert(1)"/></svg>`, false},
		{"use", open + `<use href="data:image/svg+xml,x"/></svg>`, false},
		{"doctype", `<!DOCTYPE svg [<!ENTITY x "y">]>` + open + `</svg>`, false},
		{"processing instruction", `<?xml-stylesheet href="x.xsl"?>` + open + `</svg>`, false},
		{"not closed", open + `<g>`, false},
	} {
		if got := Drawn([]byte(c.svg)); got != c.ok {
			t.Errorf("%s: Drawn = %v, want %v", c.name, got, c.ok)
		}
	}
}
