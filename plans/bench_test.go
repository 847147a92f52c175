package plans

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

var benchSizes = []int{1000, 10000, 100000}

var benchModels sync.Map // elements -> []byte

func benchModel(b *testing.B, n int) []byte {
	if v, ok := benchModels.Load(n); ok {
		return v.([]byte)
	}
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data, _ := m.Save()
	benchModels.Store(n, data)
	return data
}

// hundredActions builds a 100-action plan for a model: renames and properties spread over the
// model, new elements related and put on a view, deletes and moves.
func hundredActions(m *archixml.Model) []byte {
	els := m.Elements()
	view := m.Views()[0].ID()
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var acts []string
	pick := func(i int) archixml.Object { return els[(i*7919+13)%len(els)] }
	for i := 0; i < 40; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d"}`, j(pick(i).ID()), i))
	}
	for i := 40; i < 60; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"set_property","element_id":%s,"key":"reviewed","value":"2026-11-%02d"}`, j(pick(i).ID()), i%28+1))
	}
	for i := 0; i < 10; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"create_element","type":"Application Component","name":"New component %d","ref_id":"c%d"}`, i, i))
		acts = append(acts, fmt.Sprintf(`{"op":"create_relationship","source_id":"c%d","target_id":%s,"relationship_type":"Association"}`, i, j(pick(100+i).ID())))
		acts = append(acts, fmt.Sprintf(`{"op":"add_to_view","view_id":%s,"element_id":"c%d"}`, j(view), i))
	}
	for i := 0; i < 5; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"delete_element","element_id":%s}`, j(pick(200+i).ID())))
	}
	for i := 0; i < 5; i++ {
		e := pick(300 + i)
		top, _ := m.TopFolder(archixml.FolderFor(e.Class()))
		acts = append(acts, fmt.Sprintf(`{"op":"move_to_folder","element_id":%s,"folder_path":%s}`, j(e.ID()), j(top.Name()+"/Reviewed")))
	}
	return []byte(plan(strings.Join(acts, ",\n")))
}

// BenchmarkCheckPreview: validate and preview a 100-action plan with the model already loaded
// (the daemon's case).
func BenchmarkCheckPreview(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := archixml.Load(benchModel(b, n))
			if err != nil {
				b.Fatal(err)
			}
			raw := hundredActions(m)
			if o := Check(raw, m, Options{}); o.Verdict != VerdictValid {
				b.Fatalf("the benchmark plan is %s: %v", o.Verdict, codes(o.Findings))
			}
			b.ReportAllocs()
			for b.Loop() {
				o := Check(raw, m, Options{})
				_ = o.Preview("p.json", ModelInfo{})
				_ = o.Report("p.json", ModelInfo{}).JSON()
			}
		})
	}
}

// BenchmarkCheckPreviewCold: the same from the model's bytes (the command line's case).
func BenchmarkCheckPreviewCold(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := benchModel(b, n)
			m, _ := archixml.Load(data)
			raw := hundredActions(m)
			b.ReportAllocs()
			for b.Loop() {
				m, err := archixml.Load(data)
				if err != nil {
					b.Fatal(err)
				}
				o := Check(raw, m, Options{})
				_ = o.Preview("p.json", ModelInfo{})
			}
		})
	}
}

// BenchmarkApply: apply a 100-action plan and write the model (no git).
func BenchmarkApply(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := benchModel(b, n)
			m, _ := archixml.Load(data)
			raw := hundredActions(m)
			b.ReportAllocs()
			for b.Loop() {
				m, _ := archixml.Load(data)
				if _, _, err := Apply(raw, m, Options{}); err != nil {
					b.Fatal(err)
				}
				if _, err := m.Save(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkContextPrompt: the planning context and the prompt for a request naming one element,
// with the default budget, the model already loaded; reports the context's and the prompt's
// size in characters. The baseline in the same run is BenchmarkCheckPreview.
func BenchmarkContextPrompt(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := archixml.Load(benchModel(b, n))
			if err != nil {
				b.Fatal(err)
			}
			e := m.Elements()[n/2]
			intent := "Document what " + e.Name() + " is for and put it on the relevant view."
			var ctxLen, promptLen int
			b.ReportAllocs()
			for b.Loop() {
				c, err := BuildContext(m, ContextOptions{Intent: intent}, Policy{})
				if err != nil {
					b.Fatal(err)
				}
				ctxLen = len(c.JSON())
				promptLen = len(BuildPrompt(intent, c))
			}
			b.ReportMetric(float64(ctxLen), "context-chars")
			b.ReportMetric(float64(promptLen), "prompt-chars")
		})
	}
}
