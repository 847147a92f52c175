package plans

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/archiplan/archiplan/schemas"
)

// canonical -> strict answer -> normalised plan is lossless, for every op of every version.
func TestStrict_RoundTrip(t *testing.T) {
	examples := map[string]string{
		"rename_element":      `{"op":"rename_element","element_id":"id-1","new_name":"A \"quoted\" name"}`,
		"set_property":        `{"op":"set_property","element_id":"r","key":"k","value":"v"}`,
		"create_relationship": `{"op":"create_relationship","source_id":"a","target_id":"b","relationship_type":"Serving","name":"uses","ref_id":"rel"}`,
		"create_element":      `{"op":"create_element","type":"Course Of Action","name":"Go","ref_id":"g"}`,
		"set_documentation":   `{"op":"set_documentation","element_id":"g","documentation":"line 1\nline 2"}`,
		"add_to_view":         `{"op":"add_to_view","view_id":"v","element_id":"g","x":10,"y":20,"width":140,"height":60}`,
		"delete_element":      `{"op":"delete_element","element_id":"id-2"}`,
		"delete_relationship": `{"op":"delete_relationship","relationship_id":"id-3"}`,
		"remove_property":     `{"op":"remove_property","element_id":"id-1","key":"k"}`,
		"create_view":         `{"op":"create_view","name":"V","ref_id":"v"}`,
		"move_to_folder":      `{"op":"move_to_folder","element_id":"id-1","folder_path":"Business/Actors"}`,
	}
	// 3.0: every field 3.0 adds, and its ops
	examples3 := map[string]string{
		"create_element":         `{"op":"create_element","type":"Goal","name":"G","ref_id":"g","documentation":"d","properties":[{"key":"k","value":""}],"folder_path":"Motivation/Goals","on_duplicate":"reuse","specialization":"KPI"}`,
		"create_relationship":    `{"op":"create_relationship","source_id":"a","target_id":"b","relationship_type":"Access","documentation":"d","properties":[],"on_duplicate":"error","access_type":"readwrite","influence_strength":"+","directed":false}`,
		"create_view":            `{"op":"create_view","name":"V","ref_id":"v","documentation":"d","properties":[{"key":"a","value":"b"}],"folder_path":"Views/Mine","viewpoint":"layered","on_duplicate":"create","select_ids":["a","b"],"select_types":["Goal","BusinessActor"],"select_folder":"Business","depth":2}`,
		"add_to_view":            `{"op":"add_to_view","view_id":"v","element_id":"g","x":-10,"y":20,"parent_id":"grp","ref_id":"o"}`,
		"create_folder":          `{"op":"create_folder","folder_path":"Business/New","documentation":"d","ref_id":"f"}`,
		"update_relationship":    `{"op":"update_relationship","relationship_id":"r","access_type":"read","influence_strength":"","directed":true}`,
		"delete_view":            `{"op":"delete_view","view_id":"v"}`,
		"add_connection_to_view": `{"op":"add_connection_to_view","view_id":"v","relationship_id":"r","source_object_id":"a","target_object_id":"b","ref_id":"c"}`,
		"remove_from_view":       `{"op":"remove_from_view","object_id":"o"}`,
		"move_view_object":       `{"op":"move_view_object","object_id":"o","x":1,"y":2,"width":3,"height":4}`,
		"style_view_object":      `{"op":"style_view_object","object_id":"o","fill_color":"#ffffff","line_color":"","font_color":"#000000","font":"1|Arial|9.0|0|GTK|1|","text_alignment":"right","text_position":"middle"}`,
		"create_note":            `{"op":"create_note","view_id":"v","text":"t","parent_id":"g","x":1,"y":2,"width":3,"height":4,"ref_id":"n"}`,
		"create_group":           `{"op":"create_group","view_id":"v","name":"G","parent_id":"g","x":1,"y":2,"width":3,"height":4,"ref_id":"gg"}`,
		"set_specialization":     `{"op":"set_specialization","element_id":"e","specialization":""}`,
		"change_type":            `{"op":"change_type","element_id":"e","type":"Business Role"}`,
		"merge_elements":         `{"op":"merge_elements","element_id":"e","merged_id":"f"}`,
		"layout_view":            `{"op":"layout_view","view_id":"v"}`,
	}
	for _, version := range []string{"2.0", "3.0"} {
		strict, _ := schemas.StrictJSON(version)
		c := jsonschema.NewCompiler()
		if err := c.AddResource("strict.json", bytes.NewReader(strict)); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("strict.json")
		if err != nil {
			t.Fatal(err)
		}
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
			action, ok := examples[string(op.Name)]
			if version == "3.0" && examples3[string(op.Name)] != "" {
				action, ok = examples3[string(op.Name)], true
			}
			if !ok {
				t.Fatalf("no example for %s", op.Name)
			}
			t.Run(version+"/"+string(op.Name), func(t *testing.T) {
				raw := []byte(`{"schema_version":"` + version + `","status":"ready","summary":"s","questions":["q"],"actions":[` + action + `]}`)
				var canon Plan
				if err := json.Unmarshal(raw, &canon); err != nil {
					t.Fatal(err)
				}
				if _, fs := checkSchema(raw); len(fs) > 0 {
					t.Fatalf("the example does not follow the plan schema: %v", fs)
				}
				answer, err := ToStrict(&canon, fields)
				if err != nil {
					t.Fatal(err)
				}
				var inst any
				d := json.NewDecoder(bytes.NewReader(answer))
				d.UseNumber()
				if err := d.Decode(&inst); err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Fatalf("the strict answer does not follow the strict schema: %v\n%s", err, answer)
				}
				// read as it is (the flat form) and normalised, the plan is the same
				for _, form := range [][]byte{answer, NormalizeStrict(answer)} {
					got, _, fs := decodePlan(form)
					if got == nil {
						t.Fatalf("the plan does not follow the plan schema: %v\n%s", codes(fs), form)
					}
					got.acts = nil // the actions as written, kept for the preview
					if !reflect.DeepEqual(*got, canon) {
						t.Fatalf("round trip lost something:\n%s\n%s", raw, form)
					}
				}
			})
		}
	}
}

// A field of another op that holds a value is kept, and the schema refuses it: never dropped.
func TestStrict_NormalizeKeepsValues(t *testing.T) {
	answer := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","questions":null,"warnings":null,
		"actions":[{"op":"rename_element","element_id":"a","new_name":"b","type":"Node","view_id":null}]}`)
	back := NormalizeStrict(answer)
	_, fs := checkSchema(back)
	if !hasFinding(fs, SchemaUnknownField) {
		t.Fatalf("got %v\n%s", codes(fs), back)
	}
}

// Warm reads only the version of whatever it is given (a planner wrote it): never a panic, and
// a known version's schema compiled as Check would compile it.
func TestWarm_TakesAnything(t *testing.T) {
	for _, raw := range []string{"", "{", "null", `{"schema_version": 5}`, `{"schema_version": "9.9"}`,
		`{"schema_version": "../../etc/passwd"}`, `{"schema_version": "` + schemas.Latest + `"}`} {
		Warm([]byte(raw))
	}
	if schemas.Plan(schemas.Latest) == nil {
		t.Fatal("the latest version's schema does not compile")
	}
}
