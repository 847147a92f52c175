package plans

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The catalogue of bad inputs: what planners and people really write. Each gives its documented
// code, and checking it leaves the model as it was.
var badInputs = []struct {
	name string
	in   string
	code Code
}{
	// extraction
	{"empty", "", ExtractEmpty},
	{"whitespace", "  \n\t ", ExtractEmpty},
	{"prose answer", "I'm sorry, I can't produce a plan for that request.", ExtractNoJSON},
	{"truncated", `{"schema_version":"2.0","status":"ready","summary":"cut`, ExtractTruncated},
	{"truncated in fence", "```json\n{\"schema_version\":\"2.0\",\"actions\":[\n```", ExtractTruncated},
	{"invalid json", `{"schema_version":"2.0",,"status":"ready"}`, ExtractInvalidJSON},
	{"single quotes", `{'schema_version':'2.0'}`, ExtractInvalidJSON},
	{"trailing comma", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[],}`, ExtractInvalidJSON},
	{"array", `[{"op":"rename_element"}]`, ExtractNotObject},
	{"string", `"a plan"`, ExtractNotObject},
	{"duplicate key", `{"schema_version":"2.0","status":"ready","status":"refusal","summary":"s","actions":[]}`, ExtractDuplicateKey},
	{"duplicate key in action", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"A","new_name":"B"}`), ExtractDuplicateKey},
	{"too large", `{"summary":"` + strings.Repeat("x", MaxPlanBytes) + `"}`, ExtractTooLarge},
	{"deep nesting", strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40), ExtractTooDeep},
	// schema
	{"no version", `{"status":"ready","summary":"s","actions":[]}`, SchemaVersionMissing},
	{"wrong version", `{"schema_version":"4.0","status":"ready","summary":"s","actions":[]}`, SchemaVersionUnknown},
	{"version as number", `{"schema_version":2.0,"status":"ready","summary":"s","actions":[]}`, SchemaVersionUnknown},
	{"legacy version field", `{"version":"2.0","status":"ready","summary":"s","actions":[]}`, SchemaLegacyField},
	{"legacy changes", `{"schema_version":"2.0","status":"ready","summary":"s","changes":[]}`, SchemaLegacyField},
	{"legacy action key", plan(`{"action":"rename_element","element_id":"{Customer}","new_name":"A"}`), SchemaLegacyField},
	{"unknown top field", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[],"confidence":0.9}`, SchemaUnknownField},
	{"unknown field in action", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"A","reason":"x"}`), SchemaUnknownField},
	{"wrong case field", plan(`{"op":"rename_element","Element_ID":"{Customer}","new_name":"A"}`), SchemaUnknownField},
	{"missing summary", `{"schema_version":"2.0","status":"ready","actions":[]}`, SchemaMissingField},
	{"missing field in action", plan(`{"op":"rename_element","element_id":"{Customer}"}`), SchemaMissingField},
	{"action without op", plan(`{"element_id":"{Customer}","new_name":"A"}`), SchemaMissingField},
	{"unknown op", plan(`{"op":"merge_everything","element_id":"{Customer}"}`), SchemaUnknownOp},
	{"v3 op in a 2.0 plan", plan(`{"op":"merge_elements","element_id":"{Customer}","merged_id":"{Customer}"}`), SchemaOpNotInVersion},
	{"v3 field in a 2.0 plan", plan(`{"op":"create_view","name":"V","viewpoint":"layered"}`), SchemaUnknownField},
	{"bad status", `{"schema_version":"2.0","status":"done","summary":"s","actions":[]}`, SchemaBadValue},
	{"unknown element type", plan(`{"op":"create_element","type":"Bussiness Actor","name":"A"}`), SchemaBadValue},
	{"relationship type as element", plan(`{"op":"create_element","type":"Serving","name":"A"}`), SchemaBadValue},
	{"name as number", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":42}`), SchemaWrongType},
	{"actions as object", `{"schema_version":"2.0","status":"ready","summary":"s","actions":{}}`, SchemaWrongType},
	{"x as string", plan(`{"op":"add_to_view","view_id":"{View}","element_id":"{Goal}","x":"10","y":5}`), SchemaWrongType},
	{"huge name", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"` + strings.Repeat("n", 1001) + `"}`), SchemaTooLong},
	{"too many actions", plan(strings.TrimSuffix(strings.Repeat(`{"op":"create_view","name":"v"},`, 501), ",")), ExtractTooManyActions},
	{"empty id", plan(`{"op":"rename_element","element_id":"","new_name":"A"}`), SchemaTooShort},
	// meaning
	{"unknown id", plan(`{"op":"rename_element","element_id":"id-0000000000000000000000000000dead","new_name":"A"}`), RefNotFound},
	{"hallucinated id", plan(`{"op":"set_property","element_id":"customer-1","key":"k","value":"v"}`), RefNotFound},
	{"view where element needed", plan(`{"op":"create_relationship","source_id":"{View}","target_id":"{Customer}","relationship_type":"Association"}`), RefWrongKind},
	// the peer's differences archiplan refuses too
	{"empty summary", `{"schema_version":"2.0","status":"ready","summary":"","actions":[]}`, SchemaTooShort},
	{"blank summary", `{"schema_version":"2.0","status":"ready","summary":"  ","actions":[]}`, TextBlank},
	{"empty new_name", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":""}`), SchemaTooShort},
	{"blank name", plan(`{"op":"create_element","type":"Goal","name":" \t"}`), TextBlank},
	{"empty key", plan(`{"op":"set_property","element_id":"{Customer}","key":"","value":"v"}`), SchemaTooShort},
	{"null of an unknown field", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"A","why":null}`), SchemaUnknownField},
	{"non-null field of another op", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"A","type":"Node"}`), SchemaUnknownField},
	{"relationship where element needed", plan(`{"op":"add_to_view","view_id":"{View}","element_id":"{Rel}"}`), RefWrongKind},
	{"use after delete", plan(`{"op":"delete_element","element_id":"{Customer}"},{"op":"rename_element","element_id":"{Customer}","new_name":"A"}`), RefDeleted},
	{"relationship deleted by cascade", plan(`{"op":"delete_element","element_id":"{BikeRental}"},{"op":"rename_element","element_id":"{Rel}","new_name":"x"}`), RefDeleted},
	{"ref before declared", plan(`{"op":"rename_element","element_id":"x","new_name":"A"},{"op":"create_element","type":"Goal","name":"G","ref_id":"x"}`), RefBeforeDeclared},
	{"undeclared ref", plan(`{"op":"create_relationship","source_id":"{Customer}","target_id":"new-role","relationship_type":"Assignment"}`), RefNotFound},
	{"duplicate ref_id", plan(`{"op":"create_element","type":"Goal","name":"A","ref_id":"g"},{"op":"create_element","type":"Goal","name":"B","ref_id":"g"}`), RefIDDuplicate},
	{"ref_id equals a model id", plan(`{"op":"create_element","type":"Goal","name":"A","ref_id":"{Customer}"}`), RefIDDuplicate},
	{"ref to failed action", plan(`{"op":"create_element","type":"Goal","name":"bad\u0007","ref_id":"g"},{"op":"rename_element","element_id":"g","new_name":"A"}`), RefFailed},
	{"illegal relationship", plan(`{"op":"create_relationship","source_id":"{CustomerFile}","target_id":"{Customer}","relationship_type":"Triggering"}`), RelNotAllowed},
	{"illegal relationship to new element", plan(`{"op":"create_element","type":"Data Object","name":"D","ref_id":"d"},{"op":"create_relationship","source_id":"d","target_id":"{BookingServer}","relationship_type":"Assignment"}`), RelNotAllowed},
	{"conflicting renames", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"A"},{"op":"rename_element","element_id":"{Customer}","new_name":"B"}`), Conflict},
	{"conflicting properties", plan(`{"op":"set_property","element_id":"{Customer}","key":"k","value":"1"},{"op":"set_property","element_id":"{Customer}","key":"k","value":"2"}`), Conflict},
	{"folder in the wrong layer", plan(`{"op":"move_to_folder","element_id":"{Customer}","folder_path":"Application/Actors"}`), FolderWrongLayer},
	{"control character in name", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"bell\u0007"}`), TextInvalid},
	// policy (with policyForCatalogue)
	{"op not allowed", plan(`{"op":"delete_relationship","relationship_id":"{Rel}"}`), PolicyOpNotAllowed},
	{"type not allowed", plan(`{"op":"create_element","type":"Node","name":"N"}`), PolicyTypeNotAllowed},
	{"protected folder", plan(`{"op":"move_to_folder","element_id":"{Customer}","folder_path":"Business/Locked"}`), PolicyProtected},
}

var policyForCatalogue = Policy{
	AllowedOps: []string{"rename_element", "set_property", "create_relationship", "create_element",
		"set_documentation", "add_to_view", "delete_element", "remove_property", "create_view", "move_to_folder"},
	AllowedElementTypes: []string{"Goal", "Business Role", "Business Actor", "Data Object"},
	ProtectedFolders:    []string{"Business/Locked"},
}

func TestCatalogue_BadInputs(t *testing.T) {
	if len(badInputs) < 40 {
		t.Fatalf("the catalogue has %d cases, want at least 40", len(badInputs))
	}
	original := exampleBytes(t)
	for _, c := range badInputs {
		t.Run(c.name, func(t *testing.T) {
			m := exampleModel(t)
			o := Check([]byte(ids(t, m, c.in)), m, Options{Policy: policyForCatalogue})
			if o.Verdict != VerdictInvalid {
				t.Fatalf("verdict %s, findings %v", o.Verdict, codes(o.Findings))
			}
			if !hasFinding(o.Errors(), c.code) {
				t.Fatalf("want %s, got %v", c.code, codes(o.Findings))
			}
			for _, f := range o.Findings {
				if f.Message == "" {
					t.Fatalf("%s without a message", f.Code)
				}
			}
			after, err := m.Save()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, original) {
				t.Fatal("checking the plan changed the model")
			}
			// and applying it is refused, leaving the model as it was
			if _, _, err := Apply([]byte(ids(t, m, c.in)), m, Options{Policy: policyForCatalogue}); err == nil {
				t.Fatal("apply accepted it")
			}
			after, _ = m.Save()
			if !bytes.Equal(after, original) {
				t.Fatal("a refused apply changed the model")
			}
		})
	}
}

// Every code is documented, and every documented code is one the catalogue or another test uses.
func TestCodes_Documented(t *testing.T) {
	seen := map[Code]bool{}
	for _, d := range Codes {
		if seen[d.Code] {
			t.Fatalf("%s documented twice", d.Code)
		}
		seen[d.Code] = true
		if d.Meaning == "" {
			t.Fatalf("%s has no meaning", d.Code)
		}
	}
}

// The reference lists every code, with its severity and meaning (docs/reference/codes.md,
// generated from Codes; cmd/archiplan's TestReference_Current keeps it current).
func TestCodes_InREADME(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "reference", "codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Codes {
		row := "| `" + string(d.Code) + "` | " + string(d.Severity) + " | " + strings.ReplaceAll(d.Meaning, "|", `\|`) + " |"
		if !bytes.Contains(page, []byte(row)) {
			t.Errorf("docs/reference/codes.md does not list %s as %q", d.Code, row)
		}
	}
}
