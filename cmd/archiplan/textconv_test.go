package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/internal/testenv"
)

// treeWords is textconv as it was before it streamed: the loaded model walked from its root,
// each object's line from archixml's Object. It is the reference the streaming textconv is held
// to, so that `git log -p` shows the same words.
func treeWords(w io.Writer, m *archixml.Model) {
	fmt.Fprintf(w, "model %s\n", hidden.Quote(m.Name()))
	var walk func(o archixml.Object, view string)
	name := func(id string) string {
		o, ok := m.Object(id)
		if !ok {
			return id
		}
		label := o.Class()
		if t := o.Type(); t != nil && t.Label != "" {
			label = t.Label
		}
		return label + " " + hidden.Quote(o.Name())
	}
	walk = func(o archixml.Object, view string) {
		label := o.Class()
		if t := o.Type(); t != nil && t.Label != "" {
			label = t.Label
		}
		line := ""
		switch o.Kind() {
		case archixml.KindFolder:
			line = fmt.Sprintf("folder %s", o.FolderPath())
		case archixml.KindElement:
			line = fmt.Sprintf("%s %s in %s", label, hidden.Quote(o.Name()), o.FolderPath())
		case archixml.KindRelationship:
			line = fmt.Sprintf("%s %s from %s to %s", label, hidden.Quote(o.Name()), name(o.SourceID()), name(o.TargetID()))
		case archixml.KindView:
			line = fmt.Sprintf("view %s in %s", hidden.Quote(o.Name()), o.FolderPath())
			view = o.Name()
		case archixml.KindDiagramObject:
			what := label + " " + hidden.Quote(o.Name())
			if c, ok := o.Concept(); ok {
				what = name(c.ID())
			}
			b, _ := o.Bounds()
			line = fmt.Sprintf("  on view %s: %s at %d,%d size %dx%d", hidden.Quote(view), what, b.X, b.Y, b.Width, b.Height)
		case archixml.KindConnection:
			what := "connection"
			if c, ok := o.Concept(); ok {
				what = name(c.ID())
			}
			line = fmt.Sprintf("  on view %s: %s", hidden.Quote(view), what)
		default:
			line = o.Class()
		}
		if doc := o.Documentation(); doc != "" && o.Kind() != archixml.KindDiagramObject {
			line += "; documentation " + hidden.Quote(doc)
		}
		var props []string
		for _, p := range o.Properties() {
			props = append(props, hidden.Quote(p.Key)+"="+hidden.Quote(p.Value))
		}
		sort.Strings(props)
		if len(props) > 0 {
			line += "; properties " + strings.Join(props, ", ")
		}
		var settings []string
		for _, p := range o.Settings() {
			settings = append(settings, p.Key+"="+hidden.Quote(p.Value))
		}
		if len(settings) > 0 {
			line += "; " + strings.Join(settings, ", ")
		}
		fmt.Fprintf(w, "%s (%s)\n", line, o.ID())
		for _, c := range o.Children() {
			walk(c, view)
		}
	}
	for _, o := range m.Root().Children() {
		walk(o, "")
	}
}

// textconv writes, for the crafted model of objects out of Archi's order, the example, a
// synthetic model and every corpus model, the lines the loaded model gives.
func TestTextconv_SameWordsAsTheTree(t *testing.T) {
	dir := t.TempDir()
	files := []string{"../../testdata/models/out-of-order.archimate", "../../testdata/models/example.archimate"}
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 2000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	synth := filepath.Join(dir, "synth.archimate")
	if err := os.WriteFile(synth, data, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, synth)
	if corpus := testenv.Path("ARCHIPLAN_CORPUS"); corpus != "" {
		for _, sub := range []string{"archi", "realworld"} {
			more, _ := filepath.Glob(filepath.Join(corpus, sub, "*.archimate"))
			files = append(files, more...)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := archixml.Load(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var want, got, stderr bytes.Buffer
		treeWords(&want, m)
		if code := run([]string{"textconv", f}, &got, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", f, code, stderr.String())
		}
		if got.String() != want.String() {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Errorf("%s: line %d is\n%s\nnot\n%s", f, i+1, g[i], w[i])
					break
				}
			}
			t.Errorf("%s: %d lines, want %d", f, len(g), len(w))
		}
	}
}

// A model that is not one, or breaks off, exits with exitNoUsable and says why.
func TestTextconv_Refuses(t *testing.T) {
	dir := t.TempDir()
	data, _ := archixml.Example().Save()
	for name, content := range map[string][]byte{
		"cut.archimate":   data[:len(data)*2/3],
		"other.archimate": []byte(`<model/>`),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, stderr bytes.Buffer
		if code := run([]string{"textconv", p}, &out, &stderr); code != exitNoUsable || !strings.Contains(stderr.String(), name) {
			t.Errorf("%s: exit %d, %q", name, code, stderr.String())
		}
	}
}
