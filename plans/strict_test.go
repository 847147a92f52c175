package plans

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/archiplan/archiplan/schemas"
)

// canonical -> strict answer -> normalised plan is lossless, for every op.
func TestStrict_RoundTrip(t *testing.T) {
	strict, _ := schemas.StrictJSON(schemas.Latest)
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
	for _, op := range schemas.OpsOf(schemas.Latest) {
		for _, f := range op.Fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f.Name)
			}
		}
	}
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
	if len(examples) != len(schemas.OpsOf(schemas.Latest)) {
		t.Fatalf("%d examples for %d ops", len(examples), len(schemas.OpsOf(schemas.Latest)))
	}
	for op, action := range examples {
		t.Run(op, func(t *testing.T) {
			raw := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","questions":["q"],"actions":[` + action + `]}`)
			var canon Plan
			if err := json.Unmarshal(raw, &canon); err != nil {
				t.Fatal(err)
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
			back := NormalizeStrict(answer)
			if _, fs := checkSchema(back); len(fs) > 0 {
				t.Fatalf("the normalised plan does not follow the plan schema: %v\n%s", codes(fs), back)
			}
			var got Plan
			if err := json.Unmarshal(back, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, canon) {
				t.Fatalf("round trip lost something:\n%s\n%s", raw, back)
			}
		})
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
