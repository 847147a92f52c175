package plans

import (
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// MDEscape: text from a plan shows as text in a preview. Nothing it holds becomes markup, starts a
// line of its own, or reorders what a person reads (bidirectional overrides are shown as codes).
func TestMDEscape(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb":                           `a ↵ b`,
		"a\r\n# Approved":                `a\u{000d} ↵ \# Approved`, // the model keeps &#xD;: shown (issue 35)
		"| x | y |":                      `\| x \| y \|`,
		"<script>&":                      `&lt;script&gt;&amp;`,
		"[link](http://x)":               `\[link\]\(http\://x\)`,
		"abc\u202edcba":                  `abc\u{202e}dcba`,
		"\u202a\u202b\u202c\u202d\u202e": `\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}`,
		"\u2066x\u2069":                  `\u{2066}x\u{2069}`,
		"a\u2028b\u2029c":                `a\u{2028}b\u{2029}c`,
		"bell\a\x1b[31m":                 `bell\u{0007}\u{001b}\[31m`,
		"tab\there":                      `tab here`,
		"plain words, é ✓":               `plain words, é ✓`,
		// issue 35: every character a person cannot see (Cf, Cc, Co, Zl, Zp, the tag block,
		// variation selectors) is its code
		"tag\U000e0041\U000e0049\U000e007f": `tag\u{e0041}\u{e0049}\u{e007f}`,
		"unassigned tag\U000e0002":          `unassigned tag\u{e0002}`, // not Cf: hidden by the block's range
		"alm\u061c lrm\u200e rlm\u200f":     `alm\u{061c} lrm\u{200e} rlm\u{200f}`,
		"zw\u200b\u200c\u200d\ufeff":        `zw\u{200b}\u{200c}\u{200d}\u{feff}`,
		"vs\u2764\ufe0f \U000e0100":         `vs❤\u{fe0f} \u{e0100}`,
		"pua\ue000 shy\u00ad":               `pua\u{e000} shy\u{00ad}`,
	} {
		if got := MDEscape(in); got != want {
			t.Errorf("MDEscape(%q) = %q, want %q", in, got, want)
		}
		if got := MDEscape(in); strings.ContainsAny(got, "\n\r\u202e") {
			t.Errorf("MDEscape(%q) = %q keeps a line break or an override", in, got)
		}
	}
}

// CheckInverse holds an archived inverse to what its plan's ops change: a rename's inverse puts
// back a name, never another attribute, an element or a text.
func TestCheckInverse_RefusesWhatThePlanDoesNotChange(t *testing.T) {
	raw := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[{"op":"rename_element","element_id":"id-1","new_name":"B"}]}`)
	old := "A"
	if err := CheckInverse(raw, []archixml.Step{{Op: "attr", ID: "id-1", Key: "name", Old: &old}}, []string{"element"}); err != nil {
		t.Fatalf("a rename's own inverse: %v", err)
	}
	for name, s := range map[string]archixml.Step{
		"another attribute": {Op: "attr", ID: "id-1", Key: "xsi:type", Old: &old},
		"an element":        {Op: "insert", ID: "id-1", Index: 0},
		"a removal":         {Op: "remove", ID: "id-1", XML: "<element/>"},
		"a text":            {Op: "text", ID: "id-1", Old: &old},
		"an unknown step":   {Op: "chmod", ID: "id-1"},
	} {
		if err := CheckInverse(raw, []archixml.Step{s}, []string{"element"}); err == nil {
			t.Errorf("%s in a rename's inverse was accepted", name)
		}
	}
}

// An apply proves its inverse against the plan it just decoded: CheckInverse reads the ops of the
// same bytes without decoding them again, and judges as a fresh read does (issue 41); bytes
// other than the plan run last (another plan, or the same plan changed) are read.
func TestCheckInverse_AfterApplyDecodesOnce(t *testing.T) {
	m := exampleModel(t)
	raw := []byte(ids(t, m, plan(`{"op":"rename_element","element_id":"{Customer}","new_name":"Client"}`)))
	o, inv, err := Apply(raw, m, Options{})
	if err != nil {
		t.Fatalf("apply: %v (%v)", err, o.Findings)
	}
	tags, err := m.UndoTags(inv.Steps)
	if err != nil {
		t.Fatal(err)
	}
	before := decodes.Load()
	if err := CheckInverse(raw, inv.Steps, tags); err != nil {
		t.Fatalf("the apply's own inverse: %v", err)
	}
	if n := decodes.Load() - before; n != 0 {
		t.Errorf("CheckInverse decoded the plan the apply had just decoded %d more time(s)", n)
	}
	moved := []archixml.Step{{Op: "insert", ID: inv.Steps[0].ID, Index: 0}}
	if err := CheckInverse(raw, moved, []string{"element"}); err == nil {
		t.Error("an insertion in a rename's inverse was accepted from the kept ops")
	}
	// the same plan with another op: read, and judged by its own ops
	other := []byte(strings.Replace(string(raw), "rename_element", "delete_element", 1))
	before = decodes.Load()
	if err := CheckInverse(other, inv.Steps, tags); err == nil {
		t.Error("a rename's inverse was accepted for a delete (the kept ops of another plan?)")
	}
	if decodes.Load() == before {
		t.Error("CheckInverse did not read a plan other than the one kept")
	}
}

// A preview shows a multi-valued property's values as a person reads them (each quoted and
// escaped as one value is, not Go-quoted inside quotes), and an empty value that is overwritten
// as a before that was empty, not as no before at all (issue 33).
func TestPreview_ValuesAsRead(t *testing.T) {
	m := exampleModel(t)
	cust := m.Named("BusinessActor", "Customer")[0].ID()
	desk := m.Named("BusinessRole", "Rental Desk")[0].ID()
	for _, v := range []string{"1", `a "b"`} {
		if err := m.AddPropertyValue(cust, "tier", v); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.SetProperty(desk, "note", ""); err != nil {
		t.Fatal(err)
	}
	app := m.Named("ApplicationComponent", "Booking App")[0].ID()
	if err := m.Rename(app, ""); err != nil {
		t.Fatal(err)
	}
	raw := `{"schema_version":"3.1","status":"ready","summary":"s","actions":[
		{"op":"add_property_value","element_id":"` + cust + `","key":"tier","value":"x*y"},
		{"op":"set_property","element_id":"` + desk + `","key":"note","value":"set"},
		{"op":"set_documentation","element_id":"` + desk + `","documentation":"now documented"},
		{"op":"rename_element","element_id":"` + app + `","new_name":"Booking App"}]}`
	o := Check([]byte(raw), m, Options{})
	md := string(o.Preview("p.json", ModelInfo{}))
	for _, want := range []string{
		"  - before: “1”, “a \"b\"”\n  - after: “1”, “a \"b\"”, “x\\*y”\n",
		"  - before: “” (empty)\n  - after: “set”\n",
		"  - before: “” (empty)\n  - after: “now documented”\n",
		"  - before: “” (empty)\n  - after: “Booking App”\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the preview lacks %q:\n%s", want, md)
		}
	}
	rep := o.Report("p.json", ModelInfo{})
	if b := rep.Actions[1].Before; b == nil || *b != "" {
		t.Errorf("the report's before of an overwritten empty value is %v, want \"\"", b)
	}
	if b := rep.Actions[0].Before; b == nil || *b != `"1", "a \"b\""` {
		t.Errorf("the report's before of a multi-valued property is %v", b)
	}
}
