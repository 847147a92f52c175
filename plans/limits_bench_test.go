package plans

import (
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// hostilePlans are plan files up to the inbox's size cap built to cost as much as possible: each
// must be refused or judged in well under a second, allocating well under 64 MB (B/op bounds the
// memory a check takes above the model).
func hostilePlans(m *archixml.Model) map[string][]byte {
	fill := func(prefix, item, suffix string) []byte {
		n := (MaxPlanBytes - len(prefix) - len(suffix)) / (len(item) + 1)
		return []byte(prefix + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + suffix)
	}
	el := m.Elements()[0].ID()
	prop := `{"key":"k","value":"v"}`
	props := "[" + strings.TrimSuffix(strings.Repeat(prop+",", (MaxPlanBytes/schemas.MaxActions-200)/(len(prop)+1)), ",") + "]"
	var keys []string
	for i := 0; len(keys)*13 < MaxPlanBytes-200; i++ {
		keys = append(keys, fmt.Sprintf(`"k%07d":0`, i))
	}
	wide := strings.Join(keys, ",")
	var many []string
	for i := 0; i < schemas.MaxActions; i++ {
		many = append(many, fmt.Sprintf(`{"op":"set_property","element_id":%q,"key":"k%d","value":%q}`, el, i, strings.Repeat("v", 1500)))
	}
	// just under the values budget, and the size cap: 500 new elements with 10 properties each
	var budget []string
	for i := 0; i < schemas.MaxActions; i++ {
		var ps []string
		for k := 0; k < 10; k++ {
			ps = append(ps, fmt.Sprintf(`{"key":"k%d","value":%q}`, k, strings.Repeat("v", 170)))
		}
		budget = append(budget, fmt.Sprintf(`{"op":"create_element","type":"Business Actor","name":"n%d","properties":[%s]}`, i, strings.Join(ps, ",")))
	}
	return map[string][]byte{
		"values-budget": []byte(`{"schema_version":"3.0","status":"ready","summary":"s","actions":[` + strings.Join(budget, ",") + "]}"),
		"zeros":         fill(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[`, "0", "]}"),
		"deep":          []byte(`{"schema_version":"2.0","x":` + strings.Repeat("[", MaxPlanBytes/2-40) + strings.Repeat("]", MaxPlanBytes/2-40) + "}"),
		"string":        []byte(`{"schema_version":"2.0","status":"ready","summary":"` + strings.Repeat("a", MaxPlanBytes-80) + `","actions":[]}`),
		"wide-object":   []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[],"x":{` + wide + "}}"),
		"properties": []byte(`{"schema_version":"3.0","status":"ready","summary":"s","actions":[` + strings.TrimSuffix(strings.Repeat(
			`{"op":"create_element","type":"Business Actor","name":"n","properties":`+props+`},`, schemas.MaxActions), ",") + "]}"),
		"max-valid": []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[` + strings.Join(many, ",") + "]}"),
	}
}

// BenchmarkHostilePlan: check, preview and report a hostile plan file of up to 1 MiB against a
// 10k-element model (the daemon's work for one plan, pictures aside); floor is a real 100-action
// plan, measured in the same run.
func BenchmarkHostilePlan(b *testing.B) {
	m, err := archixml.Load(benchModel(b, 10000))
	if err != nil {
		b.Fatal(err)
	}
	cases := hostilePlans(m)
	cases["floor"] = hundredActions(m)
	for _, name := range []string{"floor", "zeros", "deep", "string", "wide-object", "properties", "max-valid", "values-budget"} {
		raw := cases[name]
		if len(raw) > MaxPlanBytes {
			b.Fatalf("%s: %d bytes, over the cap", name, len(raw))
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o := Check(raw, m, Options{})
				_ = o.Preview("p.json", ModelInfo{})
				_ = o.Report("p.json", ModelInfo{}).JSON()
			}
		})
	}
}

// Each hostile plan is refused by the limit meant for it, before any schema check.
func TestHostilePlans_Refused(t *testing.T) {
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Code{"zeros": ExtractTooManyActions, "deep": ExtractTooDeep, "string": ExtractStringTooLong,
		"wide-object": ExtractTooManyItems, "properties": ExtractTooManyItems, "max-valid": "", "values-budget": ""}
	for name, raw := range hostilePlans(m) {
		o := Check(raw, m, Options{})
		if want[name] == "" {
			if o.Verdict != VerdictValid {
				t.Errorf("%s: %s %v", name, o.Verdict, codes(o.Findings[:min(3, len(o.Findings))]))
			}
			continue
		}
		if !hasCode(o.Findings, want[name]) {
			t.Errorf("%s: want %s, got %v", name, want[name], codes(o.Findings))
		}
	}
}
