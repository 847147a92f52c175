package plans

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/golden/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plans -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from its golden file (go test ./plans -run Golden -update, then review the diff):\n%s", name, got)
	}
}

func TestGolden_Fixtures(t *testing.T) {
	want := map[string]string{
		"ready": VerdictValid, "needs_clarification": VerdictNotReady, "refusal": VerdictNotReady,
		"schema_invalid": VerdictInvalid, "meaning_invalid": VerdictInvalid,
		"ops3": VerdictValid, "flat": VerdictValid,
	}
	info := ModelInfo{Path: "model.archimate", Commit: "0123456789abcdef0123456789abcdef01234567", Blob: "89abcdef0123456789abcdef0123456789abcdef"}
	for name, verdict := range want {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "testdata", "plans", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			m := exampleModel(t)
			o := Check(raw, m, Options{})
			if o.Verdict != verdict {
				t.Fatalf("verdict %s, want %s: %v", o.Verdict, verdict, codes(o.Findings))
			}
			report := o.Report(name+".json", info)
			if err := validateReport(report.JSON()); err != nil {
				t.Fatalf("the report does not follow the report schema: %v", err)
			}
			golden(t, name+".report.json", report.JSON())
			golden(t, name+".preview.md", o.Preview(name+".json", info))
		})
	}
}

func TestGolden_MeaningInvalidFindsEverything(t *testing.T) {
	raw, _ := os.ReadFile(filepath.Join("..", "testdata", "plans", "meaning_invalid.json"))
	o := Check(raw, exampleModel(t), Options{})
	got := strings.Join(codes(o.Findings), " ")
	for _, c := range []Code{RelNotAllowed, RefNotFound, RefDeleted, NoOp} {
		if !strings.Contains(got, string(c)) {
			t.Errorf("missing %s in %s", c, got)
		}
	}
	for _, f := range o.Errors() {
		if f.Code == RelNotAllowed && !strings.Contains(f.Message, "allowed: ") {
			t.Errorf("the relationship error does not name the allowed types: %s", f.Message)
		}
	}
}

func TestGolden_SchemaInvalidNamesTheKeys(t *testing.T) {
	raw, _ := os.ReadFile(filepath.Join("..", "testdata", "plans", "schema_invalid.json"))
	o := Check(raw, exampleModel(t), Options{})
	pointers := map[string]Code{}
	for _, f := range o.Errors() {
		pointers[f.Pointer] = f.Code
	}
	for p, c := range map[string]Code{
		"/confidence": SchemaUnknownField, "/actions/0/reason": SchemaUnknownField,
		"/actions/1/type": SchemaBadValue, "/actions/2/op": SchemaUnknownOp,
	} {
		if pointers[p] != c {
			t.Errorf("at %s: %q, want %s (all: %v)", p, pointers[p], c, pointers)
		}
	}
}
