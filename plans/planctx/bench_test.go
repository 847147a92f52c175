package planctx

import (
	"fmt"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// synth is a synthetic model of n elements, saved.
func synth(b *testing.B, n int) []byte {
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data, _ := m.Save()
	return data
}

// BenchmarkContextPrompt: the planning context and the prompt for a request naming one element,
// with the default budget, the model already loaded; reports the context's and the prompt's
// size in characters. The baseline in the same run is BenchmarkCheckPreview.
func BenchmarkContextPrompt(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := archixml.Load(synth(b, n))
			if err != nil {
				b.Fatal(err)
			}
			e := m.Elements()[n/2]
			intent := "Document what " + e.Name() + " is for and put it on the relevant view."
			var ctxLen, promptLen int
			b.ReportAllocs()
			for b.Loop() {
				c, err := BuildContext(m, ContextOptions{Intent: intent}, plans.Policy{})
				if err != nil {
					b.Fatal(err)
				}
				ctxLen = len(c.JSON())
				promptLen = len(plans.BuildPrompt(intent, c))
			}
			b.ReportMetric(float64(ctxLen), "context-chars")
			b.ReportMetric(float64(promptLen), "prompt-chars")
		})
	}
}

// BenchmarkContextCold: what `archiplan context --max-chars 2000000` does after reading the
// model's bytes: the model parsed, the context built and written as JSON. Its floor is
// `xmllint --noout` of the same bytes (docs/benchmarks.md).
func BenchmarkContextCold(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synth(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m, err := archixml.Load(data)
				if err != nil {
					b.Fatal(err)
				}
				c, err := BuildContext(m, ContextOptions{MaxChars: 2_000_000}, plans.Policy{})
				if err != nil {
					b.Fatal(err)
				}
				_ = c.JSON()
			}
		})
	}
}
