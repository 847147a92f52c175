package plans

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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

// hundredActions3 builds a 100-action 3.0 plan mixing every op, spread over the model.
func hundredActions3(m *archixml.Model) []byte {
	els := m.Elements()
	var views []archixml.Object // the views that show something
	for _, v := range m.Views() {
		if len(v.DiagramObjects()) >= 10 {
			views = append(views, v)
		}
	}
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	pick := func(i int) archixml.Object { return els[(i*7919+13)%len(els)] }
	app, _ := m.TopFolder("application")
	v0 := views[0]
	dos := v0.DiagramObjects()
	conns := views[1].Connections()
	var acts []string
	add := func(format string, args ...any) { acts = append(acts, fmt.Sprintf(format, args...)) }
	for i := 0; i < 3; i++ {
		add(`{"op":"create_folder","folder_path":%s,"ref_id":"f%d"}`, j(fmt.Sprintf("%s/Planned %d", app.Name(), i)), i)
	}
	for i := 0; i < 10; i++ {
		add(`{"op":"create_element","type":"Application Component","name":"Planned %d","ref_id":"c%d","documentation":"new","properties":[{"key":"k","value":"v"}],"folder_path":%s,"specialization":"Planned"}`, i, i, j(app.Name()+"/Planned 0"))
	}
	for i := 0; i < 10; i++ {
		add(`{"op":"create_relationship","source_id":"c%d","target_id":%s,"relationship_type":"Association","directed":true,"ref_id":"r%d"}`, i, j(pick(100+i).ID()), i)
	}
	for i := 0; i < 5; i++ {
		add(`{"op":"update_relationship","relationship_id":"r%d","directed":false}`, i)
	}
	for i := 0; i < 10; i++ {
		add(`{"op":"add_to_view","view_id":%s,"element_id":"c%d","ref_id":"o%d"}`, j(v0.ID()), i, i)
	}
	add(`{"op":"create_view","name":"Around","ref_id":"nv","viewpoint":"layered","select_ids":[%s],"depth":1}`, j(pick(7).ID()))
	add(`{"op":"create_view","name":"Empty","ref_id":"ev"}`)
	for i := 0; i < 3; i++ {
		add(`{"op":"create_group","view_id":"nv","name":"Group %d","x":%d,"y":600,"ref_id":"g%d"}`, i, i*420, i)
		add(`{"op":"create_note","view_id":"nv","text":"Note %d","parent_id":"g%d","ref_id":"n%d"}`, i, i, i)
		add(`{"op":"add_connection_to_view","view_id":"nv","source_object_id":"n%d","target_object_id":"g%d"}`, i, i)
	}
	for i := 0; i < 5; i++ {
		add(`{"op":"move_view_object","object_id":%s,"x":%d,"y":%d}`, j(dos[i].ID()), 1000+i*10, 900)
		add(`{"op":"style_view_object","object_id":%s,"fill_color":"#c0e0ff","text_alignment":"left"}`, j(dos[5+i].ID()))
	}
	for i := 0; i < 3 && i < len(conns); i++ {
		add(`{"op":"remove_from_view","object_id":%s}`, j(conns[i].ID()))
	}
	for i := 0; i < 5; i++ {
		add(`{"op":"set_specialization","element_id":%s,"specialization":"Reviewed"}`, j(pick(400+i).ID()))
	}
	for i := 5; i < 8; i++ {
		add(`{"op":"change_type","element_id":"c%d","type":"Application Collaboration"}`, i)
	}
	add(`{"op":"merge_elements","element_id":"c9","merged_id":"c8"}`)
	add(`{"op":"layout_view","view_id":%s}`, j(views[2].ID()))
	add(`{"op":"delete_view","view_id":%s}`, j(views[3].ID()))
	add(`{"op":"delete_element","element_id":%s}`, j(pick(200).ID()))
	add(`{"op":"delete_relationship","relationship_id":%s}`, j(m.Relationships()[len(m.Relationships())/2].ID()))
	add(`{"op":"move_to_folder","element_id":%s,"folder_path":%s}`, j(pick(300).ID()), j(func() string {
		top, _ := m.TopFolder(archixml.FolderFor(pick(300).Class()))
		return top.Name() + "/Reviewed"
	}()))
	add(`{"op":"set_documentation","element_id":%s,"documentation":"reviewed"}`, j(pick(301).ID()))
	add(`{"op":"create_element","type":"Goal","name":"Planned goal","ref_id":"goal"}`)
	for i := 0; len(acts) < 100; i++ {
		if i%2 == 0 {
			add(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d"}`, j(pick(500+i).ID()), i)
		} else {
			add(`{"op":"set_property","element_id":%s,"key":"reviewed","value":"yes"}`, j(pick(500+i).ID()))
		}
	}
	return []byte(plan3(acts...))
}

// BenchmarkCheckPreview3: validate and preview a 100-action 3.0 plan mixing every op, the model
// already loaded; compare with BenchmarkCheckPreview in the same run.
func BenchmarkCheckPreview3(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := archixml.Load(benchModel(b, n))
			if err != nil {
				b.Fatal(err)
			}
			raw := hundredActions3(m)
			if o := Check(raw, m, Options{}); o.Verdict != VerdictValid {
				b.Fatalf("the benchmark plan is %s: %v", o.Verdict, o.Errors())
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

// versionActions is a 100-action plan of a vocabulary version: the mix of hundredActions, and in
// 3.1 a part of it done with what 3.1 adds (values added to a multi-valued property, objects put
// on the view without automatic connections, a translucent style, a router).
func versionActions(m *archixml.Model, version string) []byte {
	els := m.Elements()
	view := m.Views()[0].ID()
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var acts []string
	pick := func(i int) archixml.Object { return els[(i*7919+13)%len(els)] }
	for i := 0; i < 40; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d"}`, j(pick(i).ID()), i))
	}
	for i := 40; i < 60; i++ {
		op := "set_property"
		if version == "3.1" && i >= 50 {
			op = "add_property_value"
		}
		acts = append(acts, fmt.Sprintf(`{"op":%q,"element_id":%s,"key":"reviewed","value":"2026-11-%02d"}`, op, j(pick(i).ID()), i%28+1))
	}
	connect := ""
	if version == "3.1" {
		connect = `,"connect":false`
	}
	for i := 0; i < 10; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"create_element","type":"Application Component","name":"New component %d","ref_id":"c%d"}`, i, i))
		acts = append(acts, fmt.Sprintf(`{"op":"create_relationship","source_id":"c%d","target_id":%s,"relationship_type":"Association"}`, i, j(pick(100+i).ID())))
		acts = append(acts, fmt.Sprintf(`{"op":"add_to_view","view_id":%s,"element_id":"c%d","ref_id":"o%d"%s}`, j(view), i, i, connect))
	}
	for i := 0; i < 5; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"delete_element","element_id":%s}`, j(pick(200+i).ID())))
	}
	moves := 5
	if version == "3.1" {
		moves = 3
		acts = append(acts, `{"op":"style_view_object","object_id":"o0","fill_color":"#ffd700","opacity":100,"line_width":2}`,
			fmt.Sprintf(`{"op":"set_connection_router","view_id":%s,"router":"manhattan"}`, j(view)))
	}
	for i := 0; i < moves; i++ {
		e := pick(300 + i)
		top, _ := m.TopFolder(archixml.FolderFor(e.Class()))
		acts = append(acts, fmt.Sprintf(`{"op":"move_to_folder","element_id":%s,"folder_path":%s}`, j(e.ID()), j(top.Name()+"/Reviewed")))
	}
	return []byte(`{"schema_version":"` + version + `","status":"ready","summary":"bench","actions":[` + strings.Join(acts, ",\n") + `]}`)
}

// BenchmarkVersionRatio: the 3.0 and the 3.1 plan of versionActions, validated and previewed in
// turns within each iteration, so that the load of a shared machine falls on both alike; it
// reports each one's time per plan and the ratio 3.1/3.0.
func BenchmarkVersionRatio(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := archixml.Load(benchModel(b, n))
			if err != nil {
				b.Fatal(err)
			}
			raws := [2][]byte{versionActions(m, "3.0"), versionActions(m, "3.1")}
			var spent [2]time.Duration
			run := func(k int) {
				start := time.Now()
				o := Check(raws[k], m, Options{})
				_ = o.Preview("p.json", ModelInfo{})
				_ = o.Report("p.json", ModelInfo{}).JSON()
				spent[k] += time.Since(start)
			}
			i := 0
			for b.Loop() {
				run(i % 2) // which goes first alternates too
				run(1 - i%2)
				i++
			}
			b.ReportMetric(float64(spent[0].Nanoseconds())/float64(i), "ns-3.0/plan")
			b.ReportMetric(float64(spent[1].Nanoseconds())/float64(i), "ns-3.1/plan")
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "ratio-3.1/3.0")
		})
	}
}

// BenchmarkCheckPreviewVersion: validate and preview a 100-action plan of 3.0 and of 3.1 on the
// same models, in one run: 3.1's figures are read as a ratio to 3.0's.
func BenchmarkCheckPreviewVersion(b *testing.B) {
	for _, n := range benchSizes {
		for _, version := range []string{"3.0", "3.1"} {
			b.Run(fmt.Sprintf("elements=%d/version=%s", n, version), func(b *testing.B) {
				m, err := archixml.Load(benchModel(b, n))
				if err != nil {
					b.Fatal(err)
				}
				raw := versionActions(m, version)
				if o := Check(raw, m, Options{}); o.Verdict != VerdictValid || len(o.Results) != 100 {
					b.Fatalf("the %s benchmark plan is %s (%d actions): %v", version, o.Verdict, len(o.Results), codes(o.Findings))
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
}
