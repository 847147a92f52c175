package plans

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
)

// A name carrying invisible characters (the tag block spelling "AI", a right-to-left override, a
// zero-width joiner) reads the same in every sentence of the preview and of the report: each
// character as its code, \u{e0041}, the one way (hidden.Show); quoted names never in Go's
// \U000e0041 beside it. report.json holds no such character raw, and its values decode exactly.
func TestPreviewAndReport_HiddenCharactersOneWay(t *testing.T) {
	const payload = "\U000e0041\U000e0049\u202eevil\u200d"
	m := archixml.Example()
	var id string
	for _, o := range m.Elements() {
		if o.Name() == "Customer" {
			id = o.ID()
		}
	}
	if err := m.Rename(id, "Cust"+payload); err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(map[string]any{"schema_version": "3.1", "status": "ready", "summary": "s" + payload, "actions": []any{
		map[string]any{"op": "rename_element", "element_id": id, "new_name": "New" + payload},
		map[string]any{"op": "set_property", "element_id": id, "key": "k" + payload, "value": "v"},
		map[string]any{"op": "rename_element", "element_id": "missing" + payload, "new_name": "x"},
	}})
	o := CheckModel(plan, m, Options{})
	shown := hidden.Show(payload)
	preview := string(PlainText(o.Preview("p.json", ModelInfo{})))
	for _, want := range []string{`"Cust` + shown + `"`, `"New` + shown + `"`, `"k` + shown + `"`} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview does not quote %s:\n%s", want, preview)
		}
	}
	report := o.Report("p.json", ModelInfo{})
	data := string(report.JSON())
	for _, text := range []string{preview, data} {
		if strings.Contains(text, `\U000e`) || strings.Contains(text, `\u202e"`) {
			t.Errorf("a second way to show a hidden character:\n%s", text)
		}
		if i := strings.IndexFunc(text, func(r rune) bool { return hidden.Is(r) && r != '\n' }); i >= 0 {
			t.Errorf("a hidden character raw at %d:\n%s", i, text)
		}
	}
	if !strings.Contains(report.Actions[0].Description, `"New`+shown+`"`) {
		t.Errorf("report description: %s", report.Actions[0].Description)
	}
	if len(report.Errors) == 0 || !strings.Contains(report.Errors[0].Message, `"missing`+shown+`"`) {
		t.Errorf("report message: %+v", report.Errors)
	}
	var back Report
	if err := json.Unmarshal(report.JSON(), &back); err != nil || back.Plan.Summary != "s"+payload {
		t.Errorf("report.json's values do not decode exactly: %q %v", back.Plan.Summary, err)
	}
}
