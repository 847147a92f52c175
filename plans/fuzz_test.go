package plans

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// FuzzCheck runs extraction, validation and apply on arbitrary plan text against the example
// model: nothing panics, a check never changes the model, every finding has a code, and an
// applied plan's inverse gives back the model's bytes.
func FuzzCheck(f *testing.F) {
	model := exampleBytes(f)
	m0, _ := archixml.Load(model)
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "plans", "*.json"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	for _, c := range badInputs[:20] {
		f.Add([]byte(ids(f, m0, c.in)))
	}
	f.Add([]byte(ids(f, m0, plan(`{"op":"delete_element","element_id":"{BookingApp}"},{"op":"create_element","type":"Node","name":"N","ref_id":"n"},{"op":"add_to_view","view_id":"{Mainview}","element_id":"n","x":1,"y":2}`))))
	// 3.0: every op once, and the corner cases of the new ones
	f.Add([]byte(plan3(everyOp3(m0)...)))
	f.Add([]byte(ids(f, m0, plan3(`{"op":"create_note","view_id":"{View}","text":"n","ref_id":"n"}`,
		`{"op":"add_connection_to_view","view_id":"{View}","source_object_id":"n","target_object_id":"n"}`,
		`{"op":"remove_from_view","object_id":"n"}`, `{"op":"layout_view","view_id":"{View}"}`))))
	f.Add([]byte(ids(f, m0, plan3(`{"op":"create_view","name":"v","ref_id":"v","select_types":["Node"],"select_folder":"Business","depth":3}`,
		`{"op":"merge_elements","element_id":"{Customer}","merged_id":"{Customer}"}`,
		`{"op":"change_type","element_id":"{BookingApp}","type":"Node"}`,
		`{"op":"set_specialization","element_id":"{Rel}","specialization":"s"}`))))
	f.Add([]byte(ids(f, m0, `{"schema_version":"3.0","status":"ready","summary":"s","questions":null,"warnings":null,"actions":[{"op":"delete_view","view_id":"{View}","x":null,"name":null}]}`)))
	m, err := archixml.Load(model)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o := Check(raw, m, Options{})
		for _, fd := range o.Findings {
			if fd.Code == "" || fd.Message == "" {
				t.Fatalf("finding without code or message: %+v", fd)
			}
		}
		if out, _ := m.Save(); !bytes.Equal(out, model) {
			t.Fatal("a check changed the model")
		}
		if o.Verdict != VerdictValid {
			return
		}
		fresh, _ := archixml.Load(model)
		_, inv, err := Apply(raw, fresh, Options{})
		if err != nil {
			t.Fatalf("checked valid, apply refused: %v", err)
		}
		applied, err := fresh.Save()
		if err != nil {
			t.Fatal(err)
		}
		back, err := archixml.Load(applied)
		if err != nil {
			t.Fatalf("the applied model does not load: %v", err)
		}
		if err := Revert(back, inv); err != nil {
			t.Fatal(err)
		}
		if out, _ := back.Save(); !bytes.Equal(out, model) {
			t.Fatal("revert did not restore the model")
		}
	})
}
