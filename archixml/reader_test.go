package archixml

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beevik/etree"
)

// sameTree compares two trees: tags, attributes in order, and text, ignoring whitespace-only text
// between elements (layout, which our reader drops).
func sameTree(a, b *etree.Element, path string) string {
	if a.FullTag() != b.FullTag() {
		return path + ": tag " + a.FullTag() + " vs " + b.FullTag()
	}
	path += "/" + a.FullTag()
	if len(a.Attr) != len(b.Attr) {
		return path + ": attribute count"
	}
	for i := range a.Attr {
		if a.Attr[i].FullKey() != b.Attr[i].FullKey() || a.Attr[i].Value != b.Attr[i].Value {
			return path + ": attribute " + a.Attr[i].FullKey() + "=" + a.Attr[i].Value + " vs " + b.Attr[i].FullKey() + "=" + b.Attr[i].Value
		}
	}
	ac, bc := a.ChildElements(), b.ChildElements()
	if len(ac) != len(bc) {
		return path + ": child count"
	}
	if len(ac) == 0 && a.Text() != b.Text() {
		return path + ": text " + a.Text() + " vs " + b.Text()
	}
	for i := range ac {
		if d := sameTree(ac[i], bc[i], path); d != "" {
			return d
		}
	}
	return ""
}

// Our reader builds the tree encoding/xml (through etree) builds, for every corpus model and
// for the synthetic ones.
func TestRead_AgreesWithEtree(t *testing.T) {
	inputs := map[string][]byte{}
	for _, path := range corpusFiles(t) {
		if strings.Contains(path, "zipped") {
			continue
		}
		data, err := os.ReadFile(path)
		must(t, err)
		inputs[filepath.Base(path)] = data
	}
	m, err := Synthesize(SynthOptions{Elements: 500, Seed: 3})
	must(t, err)
	inputs["synthetic"], _ = m.Save()
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			ours, _, err := read(string(data))
			must(t, err)
			theirs := etree.NewDocument()
			must(t, theirs.ReadFromBytes(data))
			if d := sameTree(ours.Root(), theirs.Root(), ""); d != "" {
				t.Fatal(d)
			}
		})
	}
}

func TestRead_Refuses(t *testing.T) {
	cases := map[string]string{
		"unknown entity":      `<a>&nbsp;</a>`,
		"entity in attribute": `<a b="&e;"/>`,
		"bad char ref":        `<a>&#x1;</a>`,
		"huge char ref":       `<a>&#x110000;</a>`,
		"lt in attribute":     `<a b="<"/>`,
		"duplicate attribute": `<a b="1" b="2"/>`,
		"unquoted":            `<a b=1/>`,
		"mismatch":            `<a></b>`,
		"two roots":           `<a/><b/>`,
		"text after root":     `<a/>x`,
		"unclosed":            `<a><b></b>`,
		"cdata end in text":   `<a>]]></a>`,
		"control character":   "<a>\x01</a>",
		"invalid utf-8":       "<a>\xff</a>",
		"no space":            `<a b="1"c="2"/>`,
		"empty":               ``,
		// as encoding/xml and the exchange importer refuse them (one reader, issue 41)
		"-- in a comment":         `<a><!-- x -- y --></a>`,
		"control in a comment":    "<a><!--\x01--></a>",
		"noncharacter":            "<a>\uFFFE</a>",
		"cdata outside the root":  `<![CDATA[x]]><a/>`,
		"target-less instruction": `<??><a/>`,
		"invalid utf-8 in a name": "<a\xff/>",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, err := read(in); !errors.Is(err, ErrMalformed) {
				t.Fatalf("got %v", err)
			}
		})
	}
	for _, in := range []string{`<!DOCTYPE a><a/>`, `<a><!ENTITY x "y"></a>`} {
		if _, _, err := read(in); !errors.Is(err, ErrDoctype) {
			t.Fatalf("%s: got %v", in, err)
		}
	}
}

func TestRead_Normalizes(t *testing.T) {
	doc, _, err := read("\ufeff<a b=\"x\r\ny\tz&#xA;\">l1\r\nl2\rl3 &lt;&amp;&#65;<![CDATA[<raw>]]></a>")
	must(t, err)
	r := doc.Root()
	if v := r.SelectAttrValue("b", ""); v != "x y z\n" {
		t.Fatalf("attribute %q", v)
	}
	if txt := r.Text(); txt != "l1\nl2\nl3 <&A<raw>" {
		t.Fatalf("text %q", txt)
	}
}

// The nesting limit is exact: maxDepth nested elements are read, one more is refused.
func TestRead_DepthLimit(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("<a>", n) + strings.Repeat("</a>", n) }
	if _, _, err := read(nest(maxDepth)); err != nil {
		t.Fatalf("%d levels: %v", maxDepth, err)
	}
	for _, n := range []int{maxDepth + 1, 10 * maxDepth} {
		if _, _, err := read(nest(n)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "nested deeper") {
			t.Fatalf("%d levels: %v", n, err)
		}
	}
}
