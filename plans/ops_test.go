package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/schemas"
)

// Every op of the vocabulary has a handler, and every handler an op.
func TestHandlers_MatchOps(t *testing.T) {
	ops := map[schemas.OpName]bool{}
	for _, op := range schemas.Ops {
		ops[op.Name] = true
		if handlers[op.Name] == nil {
			t.Errorf("op %s has no handler", op.Name)
		}
	}
	for name := range handlers {
		if !ops[name] {
			t.Errorf("handler %s has no op", name)
		}
	}
}

// plan3 wraps actions in a ready 3.0 plan.
func plan3(actions ...string) string {
	return `{"schema_version":"3.0","status":"ready","summary":"test plan","actions":[` + strings.Join(actions, ",") + `]}`
}

// everyOp3 is a 3.0 plan for a model using every op 3.0 adds and every field it adds to the
// older ones, on objects the model has where it can.
func everyOp3(m *archixml.Model) []string {
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	biz, _ := m.TopFolder("business")
	var views []archixml.Object
	for _, v := range m.Views() {
		if v.Class() == "ArchimateDiagramModel" {
			views = append(views, v)
		}
	}
	acts := []string{
		`{"op":"create_folder","folder_path":` + j(biz.Name()+"/Planned folder") + `,"documentation":"made by a plan","ref_id":"f"}`,
		`{"op":"set_property","element_id":` + j(biz.ID()) + `,"key":"owner","value":"archiplan"}`,
		`{"op":"create_element","type":"Business Actor","name":"Planned actor","ref_id":"a","documentation":"doc","properties":[{"key":"k1","value":"v1"},{"key":"k2","value":""}],"folder_path":` + j(biz.Name()+"/Planned folder") + `,"specialization":"Planned profile","on_duplicate":"create"}`,
		`{"op":"create_element","type":"Business Actor","name":"Planned actor","ref_id":"a2","on_duplicate":"reuse"}`,
		`{"op":"create_element","type":"Business Actor","name":"Second actor","ref_id":"b"}`,
		`{"op":"create_element","type":"Business Role","name":"Merged role","ref_id":"c"}`,
		`{"op":"create_view","name":"Planned view","ref_id":"v","viewpoint":"layered","documentation":"a view","properties":[{"key":"k","value":"v"}]}`,
		`{"op":"add_to_view","view_id":"v","element_id":"a","ref_id":"oa"}`,
		`{"op":"create_group","view_id":"v","name":"Planned group","x":-20,"y":200,"ref_id":"g"}`,
		`{"op":"add_to_view","view_id":"v","element_id":"b","parent_id":"g","x":10,"y":30,"ref_id":"ob"}`,
		`{"op":"add_to_view","view_id":"v","element_id":"c","ref_id":"oc"}`,
		`{"op":"create_relationship","source_id":"a","target_id":"b","relationship_type":"Association","directed":true,"documentation":"drawn after the last action","ref_id":"r"}`,
		`{"op":"create_relationship","source_id":"c","target_id":"a","relationship_type":"Association","ref_id":"r2"}`,
		`{"op":"update_relationship","relationship_id":"r2","directed":true}`,
		`{"op":"create_note","view_id":"v","text":"A note\nwith two lines","ref_id":"n"}`,
		`{"op":"add_connection_to_view","view_id":"v","source_object_id":"n","target_object_id":"g","ref_id":"nc"}`,
		`{"op":"move_view_object","object_id":"oa","x":300,"y":20,"width":150}`,
		`{"op":"style_view_object","object_id":"oa","fill_color":"#FFCC00","font_color":"#112233","line_color":"#445566","text_alignment":"left","text_position":"bottom","font":"1|Arial|10.0|1|GTK|1|"}`,
		`{"op":"style_view_object","object_id":"nc","line_color":"#ff0000"}`,
		`{"op":"set_specialization","element_id":"b","specialization":"Planned profile"}`,
		`{"op":"change_type","element_id":"b","type":"Business Role"}`,
		`{"op":"merge_elements","element_id":"b","merged_id":"c"}`,
		`{"op":"create_view","name":"Doomed view","ref_id":"dv"}`,
		`{"op":"delete_view","view_id":"dv"}`,
	}
	for _, rel := range m.Relationships() {
		if rel.Class() == "AccessRelationship" {
			at := "read"
			if rel.Attr("accessType") == "1" {
				at = "readwrite"
			}
			acts = append(acts, `{"op":"update_relationship","relationship_id":`+j(rel.ID())+`,"access_type":`+j(at)+`}`)
			break
		}
	}
	if len(views) > 0 {
		for _, d := range views[0].DiagramObjects() {
			if _, ok := d.Concept(); ok {
				acts = append(acts,
					`{"op":"move_view_object","object_id":`+j(d.ID())+`,"x":-40}`,
					`{"op":"style_view_object","object_id":`+j(d.ID())+`,"fill_color":"#abcdef"}`,
					`{"op":"create_note","view_id":`+j(views[0].ID())+`,"text":"see this","ref_id":"n0"}`,
					`{"op":"add_connection_to_view","view_id":`+j(views[0].ID())+`,"source_object_id":"n0","target_object_id":`+j(d.ID())+`}`,
					`{"op":"add_to_view","view_id":`+j(views[0].ID())+`,"element_id":"a"}`,
				)
				break
			}
		}
		for _, c := range views[0].Connections() {
			if _, ok := c.Concept(); ok {
				acts = append(acts, `{"op":"remove_from_view","object_id":`+j(c.ID())+`}`)
				break
			}
		}
	}
	acts = append(acts, `{"op":"create_element","type":"Business Actor","name":"Planned actor","ref_id":"a3"}`)
	if len(views) > 1 {
		acts = append(acts, `{"op":"delete_element","element_id":`+j(views[len(views)-1].ID())+`}`)
	}
	return acts
}

// corpusAndExample lists the corpus models Archi opens as they are, and the example model.
func corpusAndExample(t *testing.T) []string {
	files := []string{filepath.Join("..", "testdata", "models", "example.archimate")}
	for _, f := range testenv.CorpusModelsIfSet(t) {
		if !strings.Contains(f, "-2.6") && !strings.Contains(f, "zipped") {
			files = append(files, f)
		}
	}
	return files
}

// Every 3.0 op, on every corpus model: the plan applies, the file loads and saves to itself, the
// inverse (through JSON, on a fresh load) gives back the original bytes, and Archi's EMF reads the
// result and writes it as we did.
func TestOps3_CorpusApplyRevert(t *testing.T) {
	dir := t.TempDir()
	var written []string
	for _, f := range corpusAndExample(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			must(t, err)
			m, err := archixml.Load(in)
			must(t, err)
			if len(m.Elements()) < 2 {
				t.Skip("fewer than two elements")
			}
			raw := []byte(plan3(everyOp3(m)...))
			o, inv, err := Apply(raw, m, Options{})
			if err != nil {
				t.Fatalf("%v %v", err, o.Errors())
			}
			if !hasFinding(o.Warnings(), DuplicateName) {
				t.Errorf("no DUPLICATE_NAME warning for the second Planned actor: %v", codes(o.Findings))
			}
			if len(o.Results[11].Created) < 2 {
				t.Errorf("the relationship created after both ends were on the view was not drawn: %+v", o.Results[11])
			}
			if o.Results[3].Created != nil || !strings.HasPrefix(o.Results[3].Description, "Reuse") {
				t.Errorf("on_duplicate reuse created something: %+v", o.Results[3])
			}
			applied, err := m.Save()
			must(t, err)
			again, err := archixml.Load(applied)
			must(t, err)
			if out, _ := again.Save(); !bytes.Equal(out, applied) {
				t.Fatalf("reload changed the applied model: %s", firstLineDiff(applied, out))
			}
			js, _ := json.Marshal(inv)
			var back Inverse
			must(t, json.Unmarshal(js, &back))
			must(t, Revert(again, &back))
			if reverted, _ := again.Save(); !bytes.Equal(reverted, in) {
				t.Fatalf("revert did not restore the bytes: %s", firstLineDiff(in, reverted))
			}
			// the same plan gives the same file
			m2, _ := archixml.Load(in)
			if _, _, err := Apply(raw, m2, Options{}); err != nil {
				t.Fatal(err)
			}
			if out2, _ := m2.Save(); !bytes.Equal(out2, applied) {
				t.Fatal("the same plan on the same model gave another file")
			}
			name := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".archimate")+".ops3.archimate")
			must(t, os.WriteFile(name, applied, 0o644))
			written = append(written, name)
		})
	}
	archiEMF(t, written)
}

// archiEMF has Archi's EMF load the files and write them back byte for byte (archi-emf check and
// canonical), when ARCHI_EMF is set.
func archiEMF(t *testing.T, files []string) {
	t.Helper()
	tool := testenv.EMF(t)
	if tool == "" || len(files) == 0 {
		t.Log("ARCHI_EMF not set: the models were not checked with Archi's EMF")
		return
	}
	for _, mode := range []string{"check", "canonical"} {
		if out, err := exec.Command(tool, append([]string{mode}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("archi-emf %s: %v\n%s", mode, err, out)
		}
	}
}

// One bad input per 3.0 code, and 3.0 meanings of the other codes.
func TestOps3_BadInputs(t *testing.T) {
	cases := []struct {
		name, plan string
		code       Code
	}{
		{"on_duplicate error", plan3(`{"op":"create_element","type":"Business Actor","name":"Customer","on_duplicate":"error"}`), DuplicateRefused},
		{"access type on serving", plan3(`{"op":"update_relationship","relationship_id":"{Rel}","access_type":"read"}`), FieldNotForType},
		{"directed on a new serving", plan3(`{"op":"create_relationship","source_id":"{BookingService}","target_id":"{BookingApp}","relationship_type":"Association","access_type":"read"}`), FieldNotForType},
		{"plain connection between elements", plan3(`{"op":"create_element","type":"Goal","name":"G","ref_id":"g"}`, `{"op":"add_to_view","view_id":"{View}","element_id":"g","ref_id":"og"}`, `{"op":"add_to_view","view_id":"{View}","element_id":"{Customer}","ref_id":"oc"}`, `{"op":"add_connection_to_view","view_id":"{View}","source_object_id":"og","target_object_id":"oc"}`), ConnectionNotAllowed},
		{"bad colour", plan3(`{"op":"create_note","view_id":"{View}","text":"t","ref_id":"n"}`, `{"op":"style_view_object","object_id":"n","fill_color":"red"}`), StyleInvalid},
		{"merge different types", plan3(`{"op":"merge_elements","element_id":"{Customer}","merged_id":"{RentalDesk}"}`), MergeNotAllowed},
		{"merge into itself", plan3(`{"op":"merge_elements","element_id":"{Customer}","merged_id":"{Customer}"}`), MergeNotAllowed},
		{"change type breaks a relationship", plan3(`{"op":"change_type","element_id":"{BookingServer}","type":"Goal"}`), RelNotAllowed},
		{"folder outside a top folder", plan3(`{"op":"create_folder","folder_path":"Nowhere/x"}`), FolderWrongLayer},
		{"create folder in the wrong layer", plan3(`{"op":"create_element","type":"Node","name":"N","folder_path":"Business/Nodes"}`), FolderWrongLayer},
		{"nest in a note", plan3(`{"op":"create_note","view_id":"{View}","text":"t","ref_id":"n"}`, `{"op":"add_to_view","view_id":"{View}","element_id":"{Customer}","parent_id":"n"}`), RefWrongKind},
		{"remove an element id from a view", plan3(`{"op":"remove_from_view","object_id":"{Customer}"}`), RefWrongKind},
		{"use a removed object", plan3(`{"op":"create_note","view_id":"{View}","text":"t","ref_id":"n"}`, `{"op":"remove_from_view","object_id":"n"}`, `{"op":"move_view_object","object_id":"n","x":1}`), RefDeleted},
		{"delete_view on an element", plan3(`{"op":"delete_view","view_id":"{Customer}"}`), RefWrongKind},
		{"unknown viewpoint", plan3(`{"op":"create_view","name":"V","viewpoint":"everything"}`), SchemaBadValue},
		{"two different moves", plan3(`{"op":"create_note","view_id":"{View}","text":"t","ref_id":"n"}`, `{"op":"move_view_object","object_id":"n","x":1}`, `{"op":"move_view_object","object_id":"n","x":2}`), Conflict},
		{"property listed twice", plan3(`{"op":"create_element","type":"Goal","name":"G","properties":[{"key":"k","value":"1"},{"key":"k","value":"2"}]}`), Conflict},
		{"3.0 op in a 1.0 plan", `{"schema_version":"1.0","status":"ready","summary":"s","actions":[{"op":"create_folder","folder_path":"Business/x"}]}`, SchemaOpNotInVersion},
	}
	original := exampleBytes(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			o := Check([]byte(ids(t, m, c.plan)), m, Options{})
			if !hasFinding(o.Errors(), c.code) {
				t.Fatalf("want %s, got %v", c.code, o.Findings)
			}
			if after, _ := m.Save(); !bytes.Equal(after, original) {
				t.Fatal("checking changed the model")
			}
		})
	}
}

// The peer's conventions, each accepted as written: by Check, and by Apply, whose inverse restores.
func TestPeerConventions_Accepted(t *testing.T) {
	cases := []struct {
		name, plan string
		warn       Code
	}{
		{"1.0 plan with a 2.0 op", `{"schema_version":"1.0","status":"ready","summary":"s","actions":[{"op":"remove_property","element_id":"{Customer}","key":"segment"},{"op":"rename_element","element_id":"{Customer}","new_name":"Client"}]}`, SchemaOpLaterVersion},
		{"negative coordinates", plan(`{"op":"add_to_view","view_id":"{View}","element_id":"{ShorterQueues}","x":-100,"y":-5}`), ""},
		{"delete_element on a view", plan(`{"op":"delete_element","element_id":"{View}"}`), ""},
		{"set_property on a folder", plan(`{"op":"set_property","element_id":"{Folder}","key":"owner","value":"me"}`), ""},
		{"create_element duplicating a name", plan(`{"op":"create_element","type":"Business Actor","name":"Customer"}`), DuplicateName},
		{"create_view duplicating a name", plan(`{"op":"create_view","name":"Main view"}`), DuplicateName},
		{"flat form with questions null", `{"schema_version":"2.0","status":"ready","summary":"s","questions":null,"warnings":null,"actions":[
			{"op":"rename_element","element_id":"{Customer}","new_name":"Client","key":null,"value":null,"source_id":null,"target_id":null,"relationship_type":null,"relationship_id":null,"name":null,"ref_id":null,"type":null,"documentation":null,"view_id":null,"folder_path":null,"x":null,"y":null,"width":null,"height":null}]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			biz, _ := m.TopFolder("business")
			raw := []byte(strings.ReplaceAll(ids(t, m, c.plan), "{Folder}", biz.ID()))
			o, inv, err := Apply(raw, m, Options{})
			if err != nil {
				t.Fatalf("%v %v", err, o.Findings)
			}
			if c.warn != "" && !hasFinding(o.Warnings(), c.warn) {
				t.Errorf("want warning %s, got %v", c.warn, codes(o.Findings))
			}
			must(t, Revert(m, inv))
			if after, _ := m.Save(); !bytes.Equal(after, exampleBytes(t)) {
				t.Fatal("revert did not restore the model")
			}
		})
	}
}

// The flat form of every op of every version is accepted by Check, and says how many nulls it
// dropped; the report is the same as for the canonical plan but for that count.
func TestFlatForm_EveryOp(t *testing.T) {
	for _, version := range schemas.Versions {
		var fields []string
		seen := map[string]bool{}
		for _, op := range schemas.OpsOf(version) {
			for _, f := range op.FieldsOf(version) {
				if !seen[f.Name] {
					seen[f.Name] = true
					fields = append(fields, f.Name)
				}
			}
		}
		for _, op := range schemas.OpsOf(version) {
			t.Run(version+"/"+string(op.Name), func(t *testing.T) {
				act := map[string]any{"op": op.Name}
				for _, f := range op.FieldsOf(version) {
					if f.Required {
						act[f.Name] = sampleValue(f)
					}
				}
				canon := &Plan{SchemaVersion: version, Status: StatusReady, Summary: "s"}
				b, _ := json.Marshal(act)
				var a Action
				must(t, json.Unmarshal(b, &a))
				canon.Actions = []Action{a}
				flat, err := ToStrict(canon, fields)
				must(t, err)
				m := exampleModel(t)
				o := Check(flat, m, Options{})
				if o.Plan == nil {
					t.Fatalf("the flat form does not pass the schema: %v\n%s", o.Findings, flat)
				}
				if want := len(fields) - len(act) + 3; o.NullsDropped != want {
					t.Errorf("dropped %d nulls, want %d", o.NullsDropped, want)
				}
				cb, _ := json.Marshal(canon)
				oc := Check(cb, exampleModel(t), Options{})
				if got, want := codes(o.Findings), codes(oc.Findings); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("flat %v, canonical %v", got, want)
				}
			})
		}
	}
}

func sampleValue(f schemas.Field) any {
	switch f.Kind {
	case schemas.ElementType:
		return "Goal"
	case schemas.RelationshipType:
		return "Association"
	case schemas.Integer, schemas.Coordinate:
		return 1
	case schemas.Enum:
		return f.Values[0]
	case schemas.Boolean:
		return true
	}
	return "x"
}

// Unknown fields are reported in one order, whatever the schema library's map order.
func TestFindings_Sorted(t *testing.T) {
	raw := []byte(plan(`{"op":"rename_element","element_id":"a","new_name":"b","zeta":1,"alpha":2,"mid":3,"beta":4}`))
	var first string
	for k := 0; k < 20; k++ {
		o := Check(raw, exampleModel(t), Options{})
		var ps []string
		for _, f := range o.Findings {
			ps = append(ps, f.Pointer)
		}
		if !sort.StringsAreSorted(ps) || len(ps) != 4 {
			t.Fatalf("pointers %v", ps)
		}
		if got := fmt.Sprint(ps); k == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d: %s, first %s", k, got, first)
		}
	}
}

// The plans the README shows are valid on the example model.
func TestREADME_PlansValid(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "plans.md"))
	must(t, err)
	n := 0
	for _, block := range strings.Split(string(readme), "```json\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		if !strings.Contains(body, `"schema_version"`) || !strings.Contains(body, `"actions"`) {
			continue
		}
		n++
		if o := Check([]byte(body), exampleModel(t), Options{}); o.Verdict != VerdictValid {
			t.Errorf("README plan %d: %s %v\n%s", n, o.Verdict, o.Errors(), body)
		}
	}
	if n < 2 {
		t.Fatalf("found %d plans in docs/plans.md", n)
	}
}

// A ready plan that changes nothing cannot be approved into a commit that changes nothing: each
// of its actions a NOOP, only reuses, or no action at all, it is refused with NOTHING_TO_APPLY
// (the NOOP warnings still say why), and a plan with one real change beside NOOPs is valid.
func TestCheck_NothingToApply(t *testing.T) {
	cases := []struct {
		name, plan string
		refused    bool
	}{
		{"rename to the same name", plan3(`{"op":"rename_element","element_id":"{Customer}","new_name":"Customer"}`), true},
		{"two NOOPs", plan3(`{"op":"rename_element","element_id":"{Customer}","new_name":"Customer"}`,
			`{"op":"remove_property","element_id":"{Customer}","key":"no such key"}`), true},
		{"only a reuse", plan3(`{"op":"create_element","type":"Business Actor","name":"Customer","on_duplicate":"reuse"}`), true},
		{"no action", `{"schema_version":"3.0","status":"ready","summary":"s","actions":[]}`, true},
		{"a NOOP beside a change", plan3(`{"op":"rename_element","element_id":"{Customer}","new_name":"Customer"}`,
			`{"op":"rename_element","element_id":"{ShorterQueues}","new_name":"Short queues"}`), false},
		{"needs clarification", `{"schema_version":"3.0","status":"needs_clarification","summary":"s","questions":["which one?"],"actions":[]}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			o := Check([]byte(ids(t, m, c.plan)), m, Options{})
			if got := hasFinding(o.Errors(), NothingToApply); got != c.refused {
				t.Fatalf("NOTHING_TO_APPLY %v, want %v: %v", got, c.refused, o.Findings)
			}
			if c.refused && o.Verdict != VerdictInvalid {
				t.Fatalf("verdict %s, want invalid", o.Verdict)
			}
			if _, _, err := Apply([]byte(ids(t, m, c.plan)), m, Options{}); c.refused && err == nil {
				t.Fatal("Apply applied a plan that changes nothing")
			}
		})
	}
}
