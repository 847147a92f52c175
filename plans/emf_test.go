package plans

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/schemas"
)

// newIn says whether a sample uses what a version adds: its op, or a field or value of it.
func newIn(version string, s opsamples.Sample) bool {
	op, _ := schemas.OpByName(schemas.Newest, s.Op)
	if op.Since == version {
		return true
	}
	for k, v := range s.Action() {
		f, ok := op.Field(k)
		if !ok {
			continue
		}
		if f.Since == version {
			return true
		}
		if str, isStr := v.(string); isStr && f.ValueSince[str] == version {
			return true
		}
	}
	return false
}

// What vocabulary 3.1 adds, on every corpus model: every sample that uses it applied one after
// another, and the result read by Archi's EMF and written back as we wrote it (archi-emf check
// and canonical, when ARCHI_EMF is set). The op table's own test proves each inverse.
func TestOps31_ArchiEMF(t *testing.T) {
	dir := t.TempDir()
	var written []string
	for _, f := range corpusAll(t) {
		in, err := os.ReadFile(f)
		must(t, err)
		m, err := archixml.Load(in)
		must(t, err)
		n := 0
		for _, s := range opsamples.For(m) {
			// a group's documentation is new in 3.1 by meaning, not by a field
			if !newIn("3.1", s) && !(s.Op == schemas.SetDocumentation && s.Variant == "group") {
				continue
			}
			if o, _, err := Apply(s.Plan(), m, Options{}); err != nil {
				t.Fatalf("%s: %s: %v %v", filepath.Base(f), s.Name(), err, o.Errors())
			}
			n++
		}
		if n < 13 {
			t.Fatalf("%s: only %d samples use 3.1", filepath.Base(f), n)
		}
		out, err := m.Save()
		must(t, err)
		again, err := archixml.Load(out)
		must(t, err)
		if back, _ := again.Save(); string(back) != string(out) {
			t.Fatalf("%s: reload changed the model: %s", filepath.Base(f), firstLineDiff(out, back))
		}
		name := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".archimate")+".ops31.archimate")
		must(t, os.WriteFile(name, out, 0o644))
		if !strings.Contains(f, "-2.6") { // Archi 2.6 files: Archi of today reads them only through its converter
			written = append(written, name)
		}
	}
	archiEMF(t, written)
}
