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
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/schemas"
)

// corpusAll lists the example model and every corpus model archiplan reads (the 2.6 files too:
// undo is exact on them).
func corpusAll(t *testing.T) []string {
	files := []string{filepath.Join("..", "testdata", "models", "example.archimate")}
	for _, f := range testenv.CorpusModelsIfSet(t) {
		if !strings.Contains(f, "zipped") {
			files = append(files, f)
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

// The field walk (issue 18): every field of every op of the newest schema, given a value unique to the
// op and field where it is text, is found in the preview (escaped as the preview escapes) and in
// the report, unless the table says it never reaches the model (ShowNone: ref_id, on_duplicate).
func TestOpTable_FieldWalk(t *testing.T) {
	m := exampleModel(t)
	version := schemas.Newest
	walked := map[string]bool{}
	for _, s := range opsamples.For(m) {
		t.Run(s.Name(), func(t *testing.T) {
			o := Check(s.Plan(), exampleModel(t), Options{})
			if o.Verdict != VerdictValid {
				t.Fatalf("%s: %v", o.Verdict, o.Errors())
			}
			md := string(o.Preview("p.json", ModelInfo{}))
			rep := string(o.Report("p.json", ModelInfo{}).JSON())
			refs := map[string]string{} // ref_id -> what its action created
			for i, a := range s.Actions {
				if ref, ok := a["ref_id"].(string); ok && len(o.Results[i].Created) > 0 {
					refs[ref] = o.Results[i].Created[0]
				}
			}
			op, _ := schemas.OpByName(version, s.Op)
			act := s.Action()
			for _, f := range op.FieldsOf(version) {
				v, set := act[f.Name]
				if !set {
					continue
				}
				walked[string(s.Op)+"."+f.Name] = true
				if f.Show == schemas.ShowNone {
					if f.Name != "ref_id" && f.Name != "on_duplicate" {
						t.Errorf("%s is not shown: say why in the table, or show it", f.Name)
					}
					continue
				}
				for _, want := range shownValues(f, v, refs) {
					if !strings.Contains(md, MDEscape(want)) {
						t.Errorf("%s: %q is not in the preview:\n%s", f.Name, want, md)
					}
					js, _ := json.Marshal(want)
					if !strings.Contains(rep, strings.Trim(string(js), `"`)) {
						t.Errorf("%s: %q is not in the report:\n%s", f.Name, want, rep)
					}
				}
			}
		})
	}
	for _, op := range schemas.OpsOf(version) {
		for _, f := range op.FieldsOf(version) {
			if !walked[string(op.Name)+"."+f.Name] {
				t.Errorf("no sample gives %s.%s: add it to internal/opsamples", op.Name, f.Name)
			}
		}
	}
}

// shownValues is what a preview must show of a field's value: the text, each property's key and
// value, the id a ref_id stands for, a type's label.
func shownValues(f schemas.Field, v any, refs map[string]string) []string {
	id := func(s string) string {
		if c, ok := refs[s]; ok {
			return c
		}
		return s
	}
	switch f.Kind {
	case schemas.Properties:
		var out []string
		for _, p := range v.([]map[string]any) {
			out = append(out, p["key"].(string))
			if val := p["value"].(string); val != "" {
				out = append(out, val)
			}
		}
		return out
	case schemas.ID:
		return []string{id(v.(string))}
	case schemas.IDList:
		return append([]string(nil), v.([]string)...)
	case schemas.TypeList:
		var out []string
		for _, s := range v.([]string) {
			out = append(out, archixml.LookupType(s).Label)
		}
		return out
	case schemas.ElementType, schemas.RelationshipType:
		return []string{archixml.LookupType(v.(string)).Label}
	}
	return []string{fmt.Sprint(v)}
}

// The reference's op table (docs/reference/ops.md, generated from schemas.Ops) names every field
// of every op, as the table has them.
func TestOpTable_READMEFields(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "reference", "ops.md"))
	must(t, err)
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| `") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			if _, seen := rows[name]; !seen { // the op tables come first
				rows[name] = line
			}
		}
	}
	for _, op := range schemas.Ops {
		row, ok := rows[string(op.Name)]
		if !ok {
			t.Errorf("the README has no row for %s", op.Name)
			continue
		}
		for _, f := range op.Fields {
			if !strings.Contains(row, "`"+f.Name+"`") {
				t.Errorf("the README's row of %s does not name %s", op.Name, f.Name)
			}
		}
	}
}
