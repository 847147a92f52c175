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
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/store"
)

// proc runs a command and returns its wall time and peak memory (kB), as /usr/bin/time reports
// it: a child of this process would carry this process's own peak in its rusage (the memory it
// shared until its exec counts), a grandchild forked from time's small process does not. A
// failure fails b.
func proc(b *testing.B, dir string, name string, args ...string) (time.Duration, int64) {
	b.Helper()
	took, _, kb := procCPU(b, dir, name, args...)
	return took, kb
}

// procCPU is proc with the command's CPU time too (user and system, its children's included:
// time's own rusage, which the kernel sums over the children it waited for), which a loaded
// machine disturbs less than the wall time.
func procCPU(b *testing.B, dir string, name string, args ...string) (time.Duration, time.Duration, int64) {
	b.Helper()
	rss := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", rss, name}, args...)...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	data, _ := os.ReadFile(rss)
	kb, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		b.Fatalf("peak memory of %s: %q", name, data)
	}
	return took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), kb
}

// built is the archiplan command, built once for the benchmarks that run it as a person does.
func built(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "archiplan")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func need(b *testing.B, tools ...string) {
	tools = append(tools, "/usr/bin/time")
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			b.Skipf("%s not installed", t)
		}
	}
}

// renames100 is a plan of 100 renames spread over the model; round makes each plan different.
func renames100(m *archixml.Model, round int) []byte {
	els := m.Elements()
	var acts []string
	for i := 0; i < 100; i++ {
		id, _ := json.Marshal(els[(i*7919)%len(els)].ID())
		acts = append(acts, fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d.%d"}`, id, round, i))
	}
	return []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"round %d","actions":[%s]}`, round, strings.Join(acts, ",")))
}

// BenchmarkColdApply: `archiplan apply` of a 100-rename plan, the command run as a person runs
// it (a process of its own: read and parse the model, validate, edit, write, commit), on models
// of 1k, 10k and 100k elements (`archiplan synth`), next to its floors in the same run: parsing
// the same file with `xmllint --noout` plus `git commit -a` of the same change in a repository of
// its own (x_floor), and Archi's own EMF load and save, `archi-emf resave`, when ARCHI_EMF is set
// (x_emf). x_mem is the apply's peak memory over xmllint's; the _cpu ratios are of CPU time (user
// and system), steadier than wall time on a loaded machine.
func BenchmarkColdApply(b *testing.B) {
	need(b, "git", "xmllint")
	bin := built(b)
	emf := testenv.EMF(b) // Archi's own EMF load and save (../shared/tools/archi-emf); "" when unset
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			model := filepath.Join(dir, "synth.archimate")
			proc(b, dir, bin, "synth", "--elements", fmt.Sprint(n), "-o", model)
			data, err := os.ReadFile(model)
			if err != nil {
				b.Fatal(err)
			}
			m, err := archixml.Load(data)
			if err != nil {
				b.Fatal(err)
			}
			ws, floor := filepath.Join(dir, "ws"), filepath.Join(dir, "floor")
			proc(b, dir, bin, "init", ws, "--model", model)
			os.MkdirAll(floor, 0o755)
			os.WriteFile(filepath.Join(floor, "model.archimate"), data, 0o644)
			for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "seed"}} {
				proc(b, floor, "git", args...)
			}
			var apply, parse, commit, resave time.Duration
			var applyCPU, parseCPU, commitCPU, resaveCPU time.Duration
			var rssApply, rssParse int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				plan := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
				os.WriteFile(plan, renames100(m, i), 0o644)
				// the floor's change: the same 100 names changed, written as the next commit
				fm, _ := archixml.Load(data)
				for k, e := range fm.Elements()[:100] {
					_ = fm.Rename(e.ID(), fmt.Sprintf("Floor %d.%d", i, k))
				}
				next, _ := fm.Save()
				b.StartTimer()
				t, cpu, rss := procCPU(b, ws, bin, "apply", plan)
				apply, applyCPU, rssApply = apply+t, applyCPU+cpu, max(rssApply, rss)
				b.StopTimer()
				t, cpu, rss = procCPU(b, floor, "xmllint", "--noout", "model.archimate")
				parse, parseCPU, rssParse = parse+t, parseCPU+cpu, max(rssParse, rss)
				os.WriteFile(filepath.Join(floor, "model.archimate"), next, 0o644)
				t, cpu, _ = procCPU(b, floor, "git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-a", "-m", "change")
				commit, commitCPU = commit+t, commitCPU+cpu
				if emf != "" {
					t, cpu, _ = procCPU(b, dir, emf, "resave", model, filepath.Join(dir, "resaved.archimate"))
					resave, resaveCPU = resave+t, resaveCPU+cpu
				}
				b.StartTimer()
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			b.ReportMetric(ms(apply), "apply-ms")
			b.ReportMetric(ms(parse+commit), "floor-ms")
			b.ReportMetric(float64(apply)/float64(parse+commit), "x_floor")
			b.ReportMetric(float64(applyCPU)/float64(parseCPU+commitCPU), "x_floor_cpu")
			b.ReportMetric(float64(rssApply)/float64(rssParse), "x_mem")
			if emf != "" {
				b.ReportMetric(ms(resave), "emf-ms")
				b.ReportMetric(float64(apply)/float64(resave), "x_emf")
				b.ReportMetric(float64(applyCPU)/float64(resaveCPU), "x_emf_cpu")
			}
		})
	}
}

// BenchmarkTextconv: `archiplan textconv` of models of 1k, 10k and 100k elements (what git diff
// runs twice per commit), next to `xmllint --noout` of the same file in the same run:
// x_xmllint_cpu the ratio of CPU times (user and system), x_xmllint of wall times, x_mem of peak
// memory.
func BenchmarkTextconv(b *testing.B) {
	need(b, "xmllint")
	bin := built(b)
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			model := filepath.Join(dir, "m.archimate")
			proc(b, dir, bin, "synth", "--elements", fmt.Sprint(n), "-o", model)
			againstXmllintCPU(b, "textconv", model, func() (time.Duration, time.Duration, int64) {
				return procCPU(b, dir, "sh", "-c", `exec "$0" textconv "$1" >/dev/null`, bin, model)
			})
		})
	}
}

// BenchmarkExportCLI: `archiplan export -o FILE` of a workspace whose model has 1k, 10k and 100k
// elements (the model read at HEAD, the Exchange Format file written), next to `xmllint --noout`
// of the model it reads in the same run: x_xmllint_cpu the ratio of CPU times, x_mem of peak
// memory.
func BenchmarkExportCLI(b *testing.B) {
	need(b, "xmllint")
	bin := built(b)
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			model := filepath.Join(dir, "synth.archimate")
			proc(b, dir, bin, "synth", "--elements", fmt.Sprint(n), "-o", model)
			ws := filepath.Join(dir, "ws")
			proc(b, dir, bin, "init", ws, "--model", model)
			out := filepath.Join(dir, "exported.xml")
			againstXmllintCPU(b, "export", filepath.Join(ws, "model.archimate"), func() (time.Duration, time.Duration, int64) {
				return procCPU(b, ws, bin, "export", "-o", out)
			})
		})
	}
}

// againstXmllint runs a command b.N times, each beside `xmllint --noout` of model (timed apart),
// and reports both times (NAME-ms, xmllint-ms), their ratio (x_xmllint) and the ratio of peak
// memory (x_mem); it returns the command's mean time.
func againstXmllint(b *testing.B, name, model string, run func() (time.Duration, int64)) time.Duration {
	b.Helper()
	return againstXmllintCPU(b, name, model, func() (time.Duration, time.Duration, int64) {
		t, kb := run()
		return t, 0, kb
	})
}

// againstXmllintCPU is againstXmllint for a run that also says its CPU time (procCPU): it reports
// x_xmllint_cpu too, the ratio of CPU times, which a loaded machine disturbs less than the wall
// time's.
func againstXmllintCPU(b *testing.B, name, model string, run func() (time.Duration, time.Duration, int64)) time.Duration {
	b.Helper()
	var took, parse, cpuRun, cpuParse time.Duration
	var rssRun, rssParse int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, cpu, rss := run()
		took, cpuRun, rssRun = took+t, cpuRun+cpu, max(rssRun, rss)
		b.StopTimer()
		t, cpu, rss = procCPU(b, filepath.Dir(model), "xmllint", "--noout", model)
		parse, cpuParse, rssParse = parse+t, cpuParse+cpu, max(rssParse, rss)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), name+"-ms")
	b.ReportMetric(float64(parse.Microseconds())/1000/float64(b.N), "xmllint-ms")
	b.ReportMetric(float64(took)/float64(parse), "x_xmllint")
	if cpuRun > 0 {
		b.ReportMetric(float64(cpuRun)/float64(cpuParse), "x_xmllint_cpu")
	}
	b.ReportMetric(float64(rssRun)/float64(rssParse), "x_mem")
	return took / time.Duration(b.N)
}

// BenchmarkImportCLI: `archiplan import` of the Exchange Format file of a model of 1k, 10k and
// 100k elements (`archiplan synth`, then `archiplan export`), run as a person runs it (a process
// of its own: start, read, check, write the .archimate), next to `xmllint --noout` of the same
// file in the same run: x_xmllint_cpu is the ratio of CPU times (user and system), x_mem of peak
// memory. BenchmarkImport in archixml/exchange measures the same import inside its process.
func BenchmarkImportCLI(b *testing.B) {
	need(b, "xmllint")
	bin := built(b)
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			model, xml := filepath.Join(dir, "synth.archimate"), filepath.Join(dir, "synth.xml")
			proc(b, dir, bin, "synth", "--elements", fmt.Sprint(n), "-o", model)
			proc(b, dir, bin, "init", "ws", "--model", model)
			proc(b, filepath.Join(dir, "ws"), bin, "export", "-o", xml)
			out := filepath.Join(dir, "imported.archimate")
			againstXmllintCPU(b, "import", xml, func() (time.Duration, time.Duration, int64) {
				return procCPU(b, dir, bin, "import", xml, "-o", out, "--force")
			})
		})
	}
}

// BenchmarkContext: `archiplan context --max-chars 2000000` of a 100k-element workspace, cold
// (a process of its own, the model read at HEAD), next to `xmllint --noout` of the same model in
// the same run (x_xmllint, x_xmllint_cpu, x_mem: the ratios of wall time, of CPU time and of
// peak memory).
func BenchmarkContext(b *testing.B) {
	need(b, "xmllint")
	bin := built(b)
	dir := b.TempDir()
	model := filepath.Join(dir, "m.archimate")
	proc(b, dir, bin, "synth", "--elements", "100000", "-o", model)
	proc(b, dir, bin, "init", "ws", "--model", model)
	ws := filepath.Join(dir, "ws")
	againstXmllintCPU(b, "context", filepath.Join(ws, "model.archimate"), func() (time.Duration, time.Duration, int64) {
		return procCPU(b, ws, "sh", "-c", `exec "$0" context --max-chars 2000000 >/dev/null`, bin)
	})
}

// BenchmarkContextWarm: the MCP context tool of a 100k-element workspace asked again, the server
// warm (its first answer built it): what an agent waits for at its second call, HEAD unmoved.
func BenchmarkContextWarm(b *testing.B) {
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 100000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	seed, _ := m.Save()
	dir := b.TempDir()
	if _, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		b.Fatal(err)
	}
	cs := mcpSession(b, dir)
	args := map[string]any{"intent": "Document what " + m.Elements()[50000].Name() + " is for", "max_chars": 2000000}
	first, isErr := call(b, cs, "context", args)
	if isErr {
		b.Fatal(first)
	}
	before := selfCPU(b)
	for b.Loop() {
		if again, _ := call(b, cs, "context", args); again != first {
			b.Fatal("the warm answer differs from the first")
		}
	}
	// the CPU time of server and client (both in this process): on a loaded machine the wall
	// time per call measures the others' load more than this call
	cpu := selfCPU(b) - before
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}
