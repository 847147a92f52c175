package archicli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func peer(name string) string { return filepath.Join("testdata", "peer", name+".json") }

// decoded is a converted plan, decoded.
type decoded struct {
	SchemaVersion string           `json:"schema_version"`
	Summary       string           `json:"summary"`
	Actions       []map[string]any `json:"actions"`
}

func convert(t *testing.T, path string, opts Options) decoded {
	t.Helper()
	out, err := Convert(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// includes are flattened depth first, before the including file's own changes; tempIds become
// ref_ids; kebab-case types become labels.
func TestConvert_Includes(t *testing.T) {
	d := convert(t, peer("includes-parent"), Options{})
	var got []string
	for _, a := range d.Actions {
		got = append(got, a["op"].(string)+":"+a["ref_id"].(string))
	}
	want := "create_element:inc-app create_element:inc-data create_element:inc-actor create_relationship:inc-rel"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if d.Actions[3]["relationship_type"] != "Serving" || d.Actions[0]["type"] != "Application Component" {
		t.Fatalf("types: %v", d.Actions)
	}
}

// idFiles: the peer's own file beside the BOM wins; else the ids of the plan of that name applied
// earlier; neither is CONVERT_ID_FILE.
func TestConvert_IDFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(peer("smoke-relationships"))
	write("smoke-relationships.json", string(data))
	asked := ""
	applied := func(name string) (map[string]string, bool, error) {
		asked = name
		return map[string]string{"s-app": "id-app", "s-actor": "id-actor", "s-node": "id-node"}, true, nil
	}
	d := convert(t, filepath.Join(dir, "smoke-relationships.json"), Options{Applied: applied})
	if asked != "smoke-elements" || d.Actions[0]["source_id"] != "id-app" || d.Actions[0]["target_id"] != "id-actor" {
		t.Fatalf("asked %q: %v", asked, d.Actions[0])
	}
	write("smoke-elements.ids.json", `{"s-app":"id-file-app","s-actor":"id-file-actor","s-node":"id-file-node"}`)
	asked = ""
	d = convert(t, filepath.Join(dir, "smoke-relationships.json"), Options{Applied: applied})
	if asked != "" || d.Actions[0]["source_id"] != "id-file-app" {
		t.Fatalf("the file beside the BOM was not read first: asked %q, %v", asked, d.Actions[0])
	}
	_, err := Convert(peer("smoke-relationships"), Options{Applied: func(string) (map[string]string, bool, error) { return nil, false, nil }})
	if e := new(Error); !errors.As(err, &e) || e.Code != CodeIDFile {
		t.Fatalf("want %s, got %v", CodeIDFile, err)
	}
}

// Every BOM that cannot be expressed is an error with a code naming the change and its op.
func TestConvert_Errors(t *testing.T) {
	cases := []struct {
		name, bom string
		code      Code
		op        string
	}{
		{"invalid schema", "@verify-invalid-schema", CodeInvalid, ""},
		{"duplicate tempId", "@verify-duplicate-tempid", CodeTempID, "createElement"},
		{"unknown op", `{"version":"1.0","changes":[{"op":"frobnicate"}]}`, CodeUnknownOp, "frobnicate"},
		{"unknown field", `{"version":"1.0","changes":[{"op":"deleteView","viewId":"v","why":1}]}`, CodeInvalid, "deleteView"},
		{"font style", `{"version":"1.0","changes":[{"op":"styleViewObject","viewObjectId":"o","fontStyle":"bold"}]}`, CodeUnsupported, "styleViewObject"},
		{"folder by id", `{"version":"1.0","changes":[{"op":"moveToFolder","id":"e","folderId":"f"}]}`, CodeUnsupported, "moveToFolder"},
		{"bad type", `{"version":"1.0","changes":[{"op":"createElement","type":"business-actr","name":"A"}]}`, CodeBadValue, "createElement"},
		{"bad access type", `{"version":"1.0","changes":[{"op":"createRelationship","type":"access-relationship","sourceId":"a","targetId":"b","accessType":7}]}`, CodeBadValue, "createRelationship"},
		{"rename a relationship duplicate", `{"version":"1.0","changes":[{"op":"createOrGetRelationship","create":{"type":"serving-relationship","sourceId":"a","targetId":"b"},"match":{"type":"serving-relationship","sourceId":"a","targetId":"b"},"onDuplicate":"rename"}]}`, CodeBadValue, "createOrGetRelationship"},
		{"no cascade", `{"version":"1.0","changes":[{"op":"deleteElement","id":"e","cascade":false}]}`, CodeUnsupported, "deleteElement"},
		{"include cycle", `{"version":"1.0","includes":["bom.json"],"changes":[]}`, CodeInclude, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := peer(strings.TrimPrefix(c.bom, "@"))
			if !strings.HasPrefix(c.bom, "@") {
				path = filepath.Join(t.TempDir(), "bom.json")
				if err := os.WriteFile(path, []byte(c.bom), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Convert(path, Options{})
			e := new(Error)
			if !errors.As(err, &e) || e.Code != c.code || e.Op != c.op || !errors.Is(err, ErrConvert) {
				t.Fatalf("want %s naming %q, got %v", c.code, c.op, err)
			}
		})
	}
}

// Update ops are split, one action per field; the server's defaults are written out.
func TestConvert_SplitAndDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bom.json")
	bom := `{"version":"1.0","changes":[
	 {"op":"updateElement","id":"e","name":"N","documentation":"D","properties":{"b":"2","a":"1"}},
	 {"op":"createView","name":"V","tempId":"v"},
	 {"op":"addToView","viewId":"v","elementId":"e","tempId":"o","width":-1},
	 {"op":"createNote","viewId":"v","content":"hi"},
	 {"op":"createGroup","viewId":"v","name":"G","documentation":"g"},
	 {"op":"nestInView","viewId":"v","visualId":"o","parentVisualId":"g"},
	 {"op":"createOrGetElement","create":{"type":"goal","name":"G"},"match":{"type":"goal","name":"G"}}]}`
	if err := os.WriteFile(path, []byte(bom), 0o644); err != nil {
		t.Fatal(err)
	}
	d := convert(t, path, Options{})
	var got []string
	for _, a := range d.Actions {
		b, _ := json.Marshal(a)
		got = append(got, string(b))
	}
	want := []string{
		`{"element_id":"e","new_name":"N","op":"rename_element"}`,
		`{"documentation":"D","element_id":"e","op":"set_documentation"}`,
		`{"element_id":"e","key":"a","op":"set_property","value":"1"}`,
		`{"element_id":"e","key":"b","op":"set_property","value":"2"}`,
		`{"name":"V","op":"create_view","ref_id":"v"}`,
		`{"connect":false,"element_id":"e","height":55,"op":"add_to_view","ref_id":"o","view_id":"v","width":120,"x":100,"y":100}`,
		`{"height":80,"op":"create_note","text":"hi","view_id":"v","width":185,"x":100,"y":100}`,
		`{"documentation":"g","height":300,"name":"G","op":"create_group","view_id":"v","width":400,"x":100,"y":100}`,
		`{"object_id":"o","op":"move_view_object","parent_id":"g","x":10,"y":10}`,
		`{"name":"G","on_duplicate":"error","op":"create_element","type":"Goal"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The reference lists every conversion code (docs/reference/codes.md, generated from Codes).
func TestCodes_InREADME(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", "codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Codes {
		if !strings.Contains(string(page), "| `"+string(c.Code)+"` | "+c.Meaning+" |") {
			t.Errorf("docs/reference/codes.md does not list %s as %q", c.Code, c.Meaning)
		}
	}
}
