package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkPublish: `archiplan publish` of synthesized models of 1k, 10k and 100k elements (one
// relationship per element, a view per 100 elements showing 20, as archixml.Synthesize makes
// them), next to `xmllint --noout` of the same model file in the same run: x_xmllint the time
// ratio, x_mem the ratio of peak memory, ms_per_1k_elements to see that it stays linear.
func BenchmarkPublish(b *testing.B) {
	need(b, "xmllint")
	bin := built(b)
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			model := filepath.Join(dir, "m.archimate")
			proc(b, dir, bin, "synth", "--elements", strconv.Itoa(n), "-o", model)
			proc(b, dir, bin, "init", "ws", "--model", model)
			ws, site := filepath.Join(dir, "ws"), filepath.Join(dir, "site")
			mean := againstXmllint(b, "publish", model, func() (time.Duration, int64) {
				return proc(b, ws, bin, "publish", "-o", site)
			})
			b.ReportMetric(float64(mean.Microseconds())/1000/(float64(n)/1000), "ms_per_1k_elements")
		})
	}
}
