package plans

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// What the schema lets through but a plan cannot mean is refused with its own code, and the check
// changes nothing in the model; the right form of each passes.
func TestCheck_SmallFindings(t *testing.T) {
	base := exampleBytes(t)
	for _, c := range []struct {
		name string
		raw  string
		want Code // "" : no error at all
	}{
		{"invalid UTF-8 in a name", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Cli` + "\xff" + `ent"}`), ExtractInvalidUTF8},
		{"Latin-1 plan", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Caf` + "\xe9" + `"}`), ExtractInvalidUTF8},
		{"escaped lone surrogate", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"a\ud800b"}`), ExtractInvalidUTF8},
		{"escaped low surrogate first", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"a\udc00\ud800b"}`), ExtractInvalidUTF8},
		{"escaped surrogate pair", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"smile \ud83d\ude00"}`), ""},
		{"escaped backslash before u", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"C:\\ud800"}`), ""},
		{"UTF-8 accents", plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Café Ünïcode"}`), ""},
		{"double BOM", "\xef\xbb\xbf\xef\xbb\xbf" + plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Client"}`), ExtractDoubleBOM},
		{"one BOM", "\xef\xbb\xbf" + plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Client"}`), ""},
		{"folder ..", plan(`{"op":"move_to_folder","element_id":"{Customer}","folder_path":"Business/../Application"}`), FolderPathInvalid},
		{"folder .", plan(`{"op":"move_to_folder","element_id":"{Customer}","folder_path":"Business/./Customers"}`), FolderPathInvalid},
		{"folder ok", plan(`{"op":"move_to_folder","element_id":"{Customer}","folder_path":"Business/Customers"}`), ""},
		{"x without y", plan(`{"op":"add_to_view","view_id":"{View}","element_id":"{Goal}","x":40}`), SchemaXYIncomplete},
		{"y without x", plan(`{"op":"add_to_view","view_id":"{View}","element_id":"{Goal}","y":40}`), SchemaXYIncomplete},
		{"x and y", plan(`{"op":"add_to_view","view_id":"{View}","element_id":"{ShorterQueues}","x":40,"y":400}`), ""},
		{"Junction in 1.0", `{"schema_version":"1.0","status":"ready","summary":"j","actions":[{"op":"create_element","type":"Junction","name":"j"}]}`, SchemaTypeNotInVer},
		{"Junction in 2.0", plan(`{"op":"create_element","type":"Junction","name":"j"}`), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := archixml.Load(base)
			must(t, err)
			o := Check([]byte(ids(t, m, c.raw)), m, Options{})
			errs := o.Errors()
			if c.want == "" {
				if len(errs) > 0 {
					t.Fatalf("refused: %v", errs)
				}
			} else if !hasFinding(errs, c.want) || o.Verdict != VerdictInvalid {
				t.Fatalf("verdict %s, errors %v; want %s", o.Verdict, codes(errs), c.want)
			}
			for _, f := range o.Findings {
				if strings.ContainsRune(f.Message+f.Snippet, '\uFFFD') {
					t.Fatalf("a finding carries U+FFFD: %+v", f)
				}
			}
			if o.Plan != nil {
				for _, a := range o.Plan.Actions {
					if strings.ContainsRune(str(a.NewName), '\uFFFD') {
						t.Fatal("a name became U+FFFD")
					}
				}
			}
			after, err := m.Save()
			must(t, err)
			if !bytes.Equal(after, base) {
				t.Fatal("the check changed the model")
			}
		})
	}
}

// Against a model Archi cannot open, every plan is refused with MODEL_INVALID.
func TestRefuseModel(t *testing.T) {
	base := exampleBytes(t)
	m, err := archixml.Load(base)
	must(t, err)
	el := m.Elements()[0].ID()
	broken := bytes.Replace(base, []byte(`id="`+m.Elements()[1].ID()+`"`), []byte(`id="`+el+`"`), 1)
	bm, err := archixml.Load(broken)
	must(t, err)
	cerr := archixml.Check(bm)
	if !errors.Is(cerr, archixml.ErrInvalidModel) {
		t.Fatalf("Check: %v", cerr)
	}
	raw := []byte(ids(t, m, plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Client"}`)))
	o := RefuseModel(raw, cerr)
	if o.Verdict != VerdictInvalid || !hasFinding(o.Errors(), ModelInvalid) || o.SHA256 != SHA256(raw) {
		t.Fatalf("%+v", o)
	}
	if !strings.Contains(o.Errors()[0].Message, "duplicate id") {
		t.Fatalf("the finding does not say what is wrong: %s", o.Errors()[0].Message)
	}
}
