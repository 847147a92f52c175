package plans

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// exampleBytes is the built-in example model as committed in testdata.
func exampleBytes(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "models", "example.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func exampleModel(t testing.TB) *archixml.Model {
	t.Helper()
	m, err := archixml.Load(exampleBytes(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ids replaces {Name} placeholders in a plan with the ids of the example model's objects:
// element names without spaces ({Customer}, {BookingApp}), {View} for the view, {Rel} for the
// first relationship.
func ids(t testing.TB, m *archixml.Model, plan string) string {
	t.Helper()
	var pairs []string
	for _, o := range append(m.Elements(), m.Views()...) {
		pairs = append(pairs, "{"+strings.ReplaceAll(o.Name(), " ", "")+"}", o.ID())
	}
	pairs = append(pairs, "{View}", m.Views()[0].ID(), "{Rel}", m.Relationships()[0].ID())
	return strings.NewReplacer(pairs...).Replace(plan)
}

// plan wraps actions in a ready 2.0 plan.
func plan(actions string) string {
	return `{"schema_version":"2.0","status":"ready","summary":"test plan","actions":[` + actions + `]}`
}

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Code))
	}
	return out
}

func hasFinding(fs []Finding, c Code) bool {
	for _, f := range fs {
		if f.Code == c {
			return true
		}
	}
	return false
}

// validateReport checks a report against the report schema.
func validateReport(data []byte) error {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return err
	}
	return schemas.Report().Validate(v)
}
