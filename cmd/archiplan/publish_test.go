package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
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
			round := 0
			mean := againstXmllint(b, "publish", model, func() (time.Duration, int64) {
				// a new folder each time: over its own site of the same commit, publish writes nothing
				round++
				return proc(b, ws, bin, "publish", "-o", site+strconv.Itoa(round))
			})
			b.ReportMetric(float64(mean.Microseconds())/1000/(float64(n)/1000), "ms_per_1k_elements")
		})
	}
}

// BenchmarkPublishUpdate: `archiplan publish` over the site of the previous commit after `archiplan
// apply` of a one-element rename (the pages that differ written, the others as they were), on
// models of 10k and 100k elements (`archiplan synth`), next to the apply and to the whole site
// written by the same program in the same run: x_apply and x_whole are the update's time over
// theirs, pages_written the pages it wrote; the _cpu ratios are of CPU time (user and system),
// steadier than wall time on a loaded machine.
func BenchmarkPublishUpdate(b *testing.B) {
	need(b)
	bin := built(b)
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			model := filepath.Join(dir, "m.archimate")
			proc(b, dir, bin, "synth", "--elements", strconv.Itoa(n), "-o", model)
			proc(b, dir, bin, "init", "ws", "--model", model)
			data, err := os.ReadFile(model)
			if err != nil {
				b.Fatal(err)
			}
			m, err := archixml.Load(data)
			if err != nil {
				b.Fatal(err)
			}
			ws, site := filepath.Join(dir, "ws"), filepath.Join(dir, "site")
			whole, wholeCPU, _ := procCPU(b, ws, bin, "publish", "-o", site)
			id, _ := json.Marshal(m.Elements()[n/2].ID())
			var apply, update, applyCPU, updateCPU time.Duration
			written := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				plan := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
				os.WriteFile(plan, []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"rename %d","actions":[{"op":"rename_element","element_id":%s,"new_name":"Renamed %d"}]}`, i, id, i)), 0o644)
				t, cpu, _ := procCPU(b, ws, bin, "apply", plan)
				apply, applyCPU = apply+t, applyCPU+cpu
				b.StartTimer()
				start := time.Now()
				cmd := exec.Command(bin, "publish", "-o", site)
				cmd.Dir = ws
				out, err := cmd.CombinedOutput()
				update += time.Since(start)
				if err == nil {
					updateCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
				if err != nil || !strings.Contains(string(out), "pages written") {
					b.Fatalf("publish: %v\n%s", err, out)
				}
				var pages int
				if _, err := fmt.Sscanf(string(out[strings.LastIndex(string(out), ": ")+2:]), "%d pages written", &pages); err == nil {
					written += pages
				}
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(update)/float64(b.N), "update-ms")
			b.ReportMetric(ms(apply)/float64(b.N), "apply-ms")
			b.ReportMetric(ms(whole), "whole-ms")
			b.ReportMetric(float64(update)/float64(apply), "x_apply")
			b.ReportMetric(float64(update)/float64(b.N)/float64(whole), "x_whole")
			b.ReportMetric(float64(updateCPU)/float64(applyCPU), "x_apply_cpu")
			b.ReportMetric(float64(updateCPU)/float64(b.N)/float64(wholeCPU), "x_whole_cpu")
			b.ReportMetric(float64(written)/float64(b.N), "pages_written")
		})
	}
}
