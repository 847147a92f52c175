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
			var pub, parse time.Duration
			var rssPub, rssParse int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t, rss := proc(b, ws, bin, "publish", "-o", site)
				pub, rssPub = pub+t, max(rssPub, rss)
				b.StopTimer()
				t, rss = proc(b, dir, "xmllint", "--noout", model)
				parse, rssParse = parse+t, max(rssParse, rss)
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(pub.Microseconds())/1000/float64(b.N), "publish-ms")
			b.ReportMetric(float64(parse.Microseconds())/1000/float64(b.N), "xmllint-ms")
			b.ReportMetric(float64(pub)/float64(parse), "x_xmllint")
			b.ReportMetric(float64(rssPub)/float64(rssParse), "x_mem")
			b.ReportMetric(float64(pub.Microseconds())/1000/float64(b.N)/(float64(n)/1000), "ms_per_1k_elements")
		})
	}
}
