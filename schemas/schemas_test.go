package schemas

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The embedded files are what the vocabulary makes today.
func TestFiles_Fresh(t *testing.T) {
	for _, v := range Versions {
		got, _ := PlanJSON(v)
		if !bytes.Equal(got, BuildPlan(v)) {
			t.Fatalf("plan-%s.json is stale: run go generate ./schemas", v)
		}
		disk, err := os.ReadFile("plan-" + v + ".json")
		if err != nil || !bytes.Equal(disk, got) {
			t.Fatalf("plan-%s.json differs from the embedded copy", v)
		}
	}
	if !bytes.Equal(ReportJSON(), BuildReport()) {
		t.Fatal("report.json is stale: run go generate ./schemas")
	}
}

func validate(t *testing.T, version, plan string) error {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(plan), &v); err != nil {
		t.Fatal(err)
	}
	return Plan(version).Validate(v)
}

func TestPlan_AcceptsJArchiV2(t *testing.T) {
	plan := `{"schema_version":"2.0","status":"ready","summary":"s","questions":[],"actions":[
		{"op":"create_element","type":"Course Of Action","name":"Go digital","ref_id":"coa"},
		{"op":"create_element","type":"BusinessActor","name":"Clerk"},
		{"op":"create_element","type":"Junction","name":"j"},
		{"op":"create_relationship","source_id":"coa","target_id":"id-1","relationship_type":"Serving","name":null},
		{"op":"add_to_view","view_id":"v","element_id":"coa","x":10,"y":20,"width":null,"height":null},
		{"op":"move_to_folder","element_id":"coa","folder_path":"Strategy/Plans"},
		{"op":"delete_relationship","relationship_id":"r"}]}`
	// jArchi writes null for the optional fields it does not use
	if err := validate(t, "2.0", plan); err != nil {
		t.Fatal(err)
	}
	plan = strings.NewReplacer(`,"name":null`, "", `,"width":null,"height":null`, "").Replace(plan)
	if err := validate(t, "2.0", plan); err != nil {
		t.Fatal(err)
	}
	if err := validate(t, "2.0", strings.Replace(plan, `"name":"Clerk"`, `"name":null`, 1)); err == nil {
		t.Fatal("a required field may not be null")
	}
}

func TestPlan_Refuses(t *testing.T) {
	cases := map[string]string{
		"unknown field in action": `{"schema_version":"2.0","status":"ready","summary":"s","actions":[{"op":"rename_element","element_id":"a","new_name":"b","extra":1}]}`,
		"v2 op in v1":             `{"schema_version":"1.0","status":"ready","summary":"s","actions":[{"op":"delete_element","element_id":"a"}]}`,
		"unknown type":            `{"schema_version":"2.0","status":"ready","summary":"s","actions":[{"op":"create_element","type":"Bussiness Actor","name":"b"}]}`,
		"wrong version":           `{"schema_version":"1.0","status":"ready","summary":"s","actions":[],"x":1}`,
		"bad status":              `{"schema_version":"2.0","status":"done","summary":"s","actions":[]}`,
	}
	for name, plan := range cases {
		t.Run(name, func(t *testing.T) {
			if err := validate(t, "2.0", plan); err == nil && name != "v2 op in v1" {
				t.Fatal("accepted")
			}
			if name == "v2 op in v1" {
				if err := validate(t, "1.0", plan); err == nil {
					t.Fatal("accepted")
				}
			}
		})
	}
}

// Every embedded schema compiles (each is compiled only when first asked for, so a file no other
// test reads would otherwise panic first in a user's hands), with a schema for each of its ops.
func TestFiles_EachCompiles(t *testing.T) {
	if Report() == nil {
		t.Fatal("report.json compiles to nothing")
	}
	for _, v := range Versions {
		if Plan(v) == nil {
			t.Fatalf("plan-%s.json compiles to nothing", v)
		}
		for _, op := range OpsOf(v) {
			if Action(v, op.Name) == nil {
				t.Errorf("plan-%s.json has no schema for %s", v, op.Name)
			}
		}
	}
	if Plan("9.9") != nil {
		t.Error("an unknown version has a schema")
	}
}

// Every embedded schema is valid against the 2020-12 meta-schema: a process compiles them
// without validating them so (compileFile), this test does it once for all.
func TestFiles_MetaValid(t *testing.T) {
	compile := func(name string, data []byte) error {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource(url(name), bytes.NewReader(data)); err != nil {
			return err
		}
		_, err := c.Compile(url(name))
		return err
	}
	if compile("bad.json", []byte(`{"type": 5}`)) == nil {
		t.Fatal(`{"type": 5} compiles: the test does not validate against the meta-schema`)
	}
	names, err := fs.Glob(files, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded schemas (%v)", err)
	}
	for _, name := range names {
		data, _ := files.ReadFile(name)
		if err := compile(name, data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
