//go:build !windows

// (the benchmarks measure with getrusage(2), which Windows has not)

package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// benchPlan is a valid 100-action plan on a synthetic model: renames, properties, new elements
// related to old ones, deletes.
func benchPlan(m *archixml.Model) []byte {
	els := m.Elements()
	pick := func(i int) string { b, _ := json.Marshal(els[(i*7919+13)%len(els)].ID()); return string(b) }
	var acts []string
	for i := 0; i < 50; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d"}`, pick(i), i))
	}
	for i := 50; i < 75; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"set_property","element_id":%s,"key":"reviewed","value":"yes"}`, pick(i)))
	}
	for i := 0; i < 10; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"create_element","type":"Business Role","name":"Role %d","ref_id":"r%d"}`, i, i),
			fmt.Sprintf(`{"op":"create_relationship","source_id":"r%d","target_id":%s,"relationship_type":"Association"}`, i, pick(100+i)))
	}
	for i := 0; i < 5; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"delete_element","element_id":%s}`, pick(200+i)))
	}
	return []byte(`{"schema_version":"2.0","status":"ready","summary":"bench","actions":[` + strings.Join(acts, ",") + `]}`)
}

// BenchmarkPreviewRules: a preview (check, preview and report) of a 100-action plan on a model of
// 10,000 and 100,000 elements, with the example rules of testdata/policy and without; the
// x-without metric is the ratio of the two, x-cpu-without the ratio of their CPU times.
func BenchmarkPreviewRules(b *testing.B) {
	rules := Load(workspace(&testing.T{}, nil))
	if rules == nil || rules.Err() != nil {
		b.Fatal("the example rules do not load")
	}
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			raw := benchPlan(m)
			// wall time and CPU time (user and system, this process: the machine is shared, and
			// a loaded machine stretches the wall time of both alike but not their CPU time)
			preview := func(o plans.Options) (time.Duration, time.Duration, *plans.Outcome) {
				start, cpu := time.Now(), cpuTime()
				out := plans.Check(raw, m, o)
				_ = out.Preview("p.json", plans.ModelInfo{})
				_ = out.Report("p.json", plans.ModelInfo{}).JSON()
				return time.Since(start), cpuTime() - cpu, out
			}
			if _, _, o := preview(plans.Options{Rules: rules}); o.Verdict != plans.VerdictValid {
				b.Fatalf("the benchmark plan is %s: %+v", o.Verdict, o.Errors())
			}
			var with, without, cpuWith, cpuWithout time.Duration
			i := 0
			for b.Loop() {
				// in turns, first without and then with, then the other way round: the garbage of
				// one is not always collected during the other
				for k := range 2 {
					if (i+k)%2 == 0 {
						d, c, _ := preview(plans.Options{})
						without, cpuWithout = without+d, cpuWithout+c
					} else {
						d, c, _ := preview(plans.Options{Rules: rules})
						with, cpuWith = with+d, cpuWith+c
					}
				}
				i++
			}
			b.ReportMetric(float64(without.Microseconds())/float64(b.N)/1000, "ms-without")
			b.ReportMetric(float64(with.Microseconds())/float64(b.N)/1000, "ms-with")
			b.ReportMetric(float64(with)/float64(without), "x-without")
			b.ReportMetric(float64(cpuWithout.Microseconds())/float64(b.N)/1000, "cpu-ms-without")
			b.ReportMetric(float64(cpuWith.Microseconds())/float64(b.N)/1000, "cpu-ms-with")
			b.ReportMetric(float64(cpuWith)/float64(cpuWithout), "x-cpu-without")
		})
	}
}

// cpuTime is the CPU time, user and system, of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
