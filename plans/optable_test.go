package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/schemas"
)

// corpusAll lists the example model and every corpus model archiplan reads (the 2.6 files too:
// undo is exact on them).
func corpusAll(t *testing.T) []string {
	files := []string{filepath.Join("..", "testdata", "models", "example.archimate")}
	if dir := os.Getenv("ARCHIPLAN_CORPUS"); dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join("..", dir)
		}
		more, _ := filepath.Glob(filepath.Join(dir, "*", "*.archimate"))
		for _, f := range more {
			if !strings.Contains(f, "zipped") {
				files = append(files, f)
			}
		}
	}
	return files
}

// Every op of the vocabulary has a sample, and every sample is a valid plan whose op's action
// does what it says.
func TestOpTable_EveryOpHasASample(t *testing.T) {
	m := exampleModel(t)
	has := map[schemas.OpName]bool{}
	for _, s := range opsamples.For(m) {
		has[s.Op] = true
		o := Check(s.Plan(), exampleModel(t), Options{})
		if o.Verdict != VerdictValid {
			t.Errorf("%s: %s: %v", s.Name(), o.Verdict, o.Errors())
		}
	}
	for _, op := range schemas.Ops {
		if !has[op.Name] {
			t.Errorf("op %s has no sample in internal/opsamples", op.Name)
		}
	}
}

// What each op's edit records is what its Effect declares, and the inverse, read back through
// JSON onto a fresh load of the result, checks against the plan's ops and gives back the
// original bytes, on every corpus model.
func TestOpTable_EffectsAndInverse(t *testing.T) {
	for _, f := range corpusAll(t) {
		in, err := os.ReadFile(f)
		must(t, err)
		base, err := archixml.Load(in)
		must(t, err)
		canon, err := base.Save() // what the model is, written as archiplan writes it
		must(t, err)
		for _, s := range opsamples.For(base) {
			t.Run(filepath.Base(f)+"/"+s.Name(), func(t *testing.T) {
				m, err := archixml.Load(in)
				must(t, err)
				o, inv, err := Apply(s.Plan(), m, Options{})
				if err != nil {
					t.Fatalf("%v\n%s", err, s.Plan())
				}
				out, err := m.Save()
				must(t, err)
				after, err := archixml.Load(out)
				must(t, err)
				js, err := json.Marshal(inv)
				must(t, err)
				var back Inverse
				must(t, json.Unmarshal(js, &back))
				tags, err := after.UndoTags(back.Steps)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range o.Results {
					op, _ := schemas.OpByName(schemas.Newest, r.Op)
					for _, rg := range r.steps {
						for i := rg[0]; i < rg[1]; i++ {
							if err := declared(op, back.Steps[i], tags[i]); err != nil {
								t.Errorf("action %d (%s), step %d: %v", r.Index, r.Op, i, err)
							}
						}
					}
				}
				if err := CheckInverse(s.Plan(), back.Steps, tags); err != nil {
					t.Errorf("CheckInverse: %v", err)
				}
				undone, err := after.Save()
				must(t, err)
				if !bytes.Equal(undone, in) && !bytes.Equal(undone, canon) {
					t.Fatalf("the inverse does not give back the model: %s", firstDiff(undone, in))
				}
			})
		}
	}
}

// declared says whether an op's Effect declares a step its edit recorded.
func declared(op schemas.Op, s archixml.Step, tag string) error {
	in := func(list []string, v string) bool {
		for _, x := range list {
			if x == v {
				return true
			}
		}
		return false
	}
	switch s.Op {
	case "attr":
		if !in(op.Effect.Attrs, s.Key) {
			return errorf("attribute %q (on <%s>) is not in Effect.Attrs %v", s.Key, tag, op.Effect.Attrs)
		}
	case "insert", "remove":
		if !in(op.Effect.Nodes, tag) {
			return errorf("%s of <%s> is not in Effect.Nodes %v", s.Op, tag, op.Effect.Nodes)
		}
	case "text":
		if !in(op.Effect.Texts, tag) {
			return errorf("text of <%s> is not in Effect.Texts %v", tag, op.Effect.Texts)
		}
	}
	return nil
}

type stringError string

func (e stringError) Error() string { return string(e) }

func errorf(format string, args ...any) error {
	return stringError(strings.TrimSpace(sprintf(format, args...)))
}

func firstDiff(a, b []byte) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	lo := n - 80
	if lo < 0 {
		lo = 0
	}
	end := func(x []byte) int {
		if n+80 < len(x) {
			return n + 80
		}
		return len(x)
	}
	return sprintf("at byte %d:\n got: %q\nwant: %q", n, a[lo:end(a)], b[lo:end(b)])
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
