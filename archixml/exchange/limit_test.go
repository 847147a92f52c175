package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// deepExchange is an exchange file of n actors in organizations nested depth levels: small, but
// every actor is written indented at that depth.
func deepExchange(depth, n int) string {
	var s strings.Builder
	s.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<model xmlns="http://www.opengroup.org/xsd/archimate/3.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" identifier="id-m">
<name>deep</name>
<elements>
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "<element identifier=\"id-e%d\" xsi:type=\"BusinessActor\"><name>Actor %d</name><documentation>d &amp; é</documentation></element>\n", i, i)
	}
	s.WriteString("</elements>\n<organizations>\n")
	for d := 0; d < depth; d++ {
		fmt.Fprintf(&s, "<item><label>L%d</label>", d)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "<item identifierRef=\"id-e%d\"/>\n", i)
	}
	s.WriteString(strings.Repeat("</item>", depth) + "\n</organizations>\n</model>\n")
	return s.String()
}

// estimate is the bound the import checks, counted whole, for the file's model.
func estimate(t *testing.T, src []byte, o Options) int {
	t.Helper()
	f, probs := parse(src)
	b := &builder{f: f, opts: o}
	if probs = append(probs, b.check()...); len(probs) > 0 {
		t.Fatal(probs)
	}
	n, _ := writtenAtLeast(b.nodes(), 1, math.MaxInt)
	return n
}

// A file under the size limit whose folders nest deep makes a model over it, written ~1,000 bytes
// an actor at 500 levels (issue 35: a 262 MB file made a 1.7 GB model, 5.7 GB of memory, before
// the limit refused it). The import refuses it before the model is made, from its lower bound
// of the written size, with the error of a model over the limit.
func TestImport_WrittenTooLarge(t *testing.T) {
	src := deepExchange(200, 300)
	m, err := Import(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	data, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	est := estimate(t, []byte(src), Options{})
	if est > len(data) || est < len(data)*99/100 { // less: the root tag, "&amp;" counted one byte, "é" none
		t.Fatalf("estimate %d bytes, written %d: not a close lower bound", est, len(data))
	}
	if len(data) < 3*len(src) {
		t.Fatalf("the file (%d bytes) does not make a model (%d bytes) much bigger", len(src), len(data))
	}

	old := archixml.MaxModelBytes
	defer func() { archixml.MaxModelBytes = old }()
	archixml.MaxModelBytes = 2 * len(src) // the file is under it, its model is over
	m, err = Import(strings.NewReader(src))
	if m != nil || !errors.Is(err, archixml.ErrTooLarge) || !strings.Contains(err.Error(), "the model would be at least") {
		t.Fatalf("a model of %d bytes under a limit of %d: %v", len(data), archixml.MaxModelBytes, err)
	}
	if b, err := ImportBytes(strings.NewReader(src), Options{}); b != nil || !errors.Is(err, archixml.ErrTooLarge) {
		t.Fatalf("ImportBytes, a model of %d bytes under a limit of %d: %v", len(data), archixml.MaxModelBytes, err)
	}
	archixml.MaxModelBytes = len(data) // exactly its size: made
	if _, err := Import(strings.NewReader(src)); err != nil {
		t.Fatalf("a model at the limit: %v", err)
	}
	if b, err := ImportBytes(strings.NewReader(src), Options{}); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("ImportBytes, a model at the limit: %v", err)
	}
}

// The bound never passes what is written: every corpus model, exported, imports into a model
// whose written bytes are at least the bound.
func TestImport_WrittenBoundCorpus(t *testing.T) {
	for _, f := range corpus(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			orig, xml := exportFile(t, f)
			o := Options{AllowForbidden: forbidden(orig) > 0}
			m, err := ImportWith(bytes.NewReader(xml.Bytes()), o)
			if err != nil {
				t.Fatal(err)
			}
			data, err := m.Save()
			if err != nil {
				t.Fatal(err)
			}
			if est := estimate(t, xml.Bytes(), o); est > len(data) {
				t.Fatalf("estimate %d bytes, written %d", est, len(data))
			}
		})
	}
}
