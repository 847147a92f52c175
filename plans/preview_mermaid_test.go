package plans

import (
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// The preview's Mermaid block escapes bidirectional and control characters as every other text
// of the preview does (issue 18: it carried a raw U+202E that the action lines escaped).
func TestPreview_MermaidEscaped(t *testing.T) {
	m := archixml.Example()
	raw := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[` +
		`{"op":"create_element","type":"Business Actor","name":"Evil\u202eredaeR\u202c \u2066x\u2069","ref_id":"a"}]}`)
	o := Check(raw, m, Options{})
	if o.Verdict != VerdictValid {
		t.Fatalf("%s %v", o.Verdict, codes(o.Findings))
	}
	p := string(o.Preview("p.json", ModelInfo{}))
	if !strings.Contains(p, "```mermaid") {
		t.Fatalf("no diagram: %s", p)
	}
	for _, r := range []rune{0x202e, 0x202c, 0x2066, 0x2069} {
		if strings.ContainsRune(p, r) {
			t.Errorf("the preview carries a raw U+%04X", r)
		}
	}
	_, diagram, _ := strings.Cut(p, "```mermaid")
	if !strings.Contains(diagram, `\u{202e}`) {
		t.Errorf("the diagram does not show the override: %s", diagram)
	}
}
