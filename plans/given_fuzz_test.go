package plans

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// FuzzGivenShown: every string of a valid plan that reaches the model appears, escaped, in its
// preview: as the preview shows a given value (MDEscape, its outer spaces marked) or as an
// action's line quotes it (Go quoting, then MDEscape). Three strings fill every text field of a
// plan that uses every op with free text.
func FuzzGivenShown(f *testing.F) {
	model := exampleBytes(f)
	f.Add("Customer notes", "key", "\n\n\n\n\n\n\n\n\n\n\n\n\n\nhidden after blank lines")
	f.Add("  spaced  ", "<b>x</b> | y", "`code` [l](http://e) \u202e")
	f.Add("a\"b\\c", "é\u00a0ü", "\t\r\n")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		raw, used := givenPlan(a, b, c)
		o := Check(raw, mustLoad(t, model), Options{})
		if o.Verdict != VerdictValid {
			return
		}
		md := string(o.Preview("p.json", ModelInfo{}))
		for _, s := range used {
			if !appearsEscaped(md, s) {
				t.Fatalf("%q does not appear escaped in the preview:\n%s", s, md)
			}
		}
	})
}

// appearsEscaped says whether a preview shows s: whole (escaped), or as the line quotes it.
func appearsEscaped(md, s string) bool {
	inner := strings.Trim(s, " \t")
	if inner == "" {
		return strings.Contains(md, "(empty)") || strings.Contains(md, "(only white space")
	}
	if strings.Contains(md, MDEscape(inner)) {
		return true
	}
	q := strconv.Quote(s)
	return strings.Contains(md, MDEscape(q[1:len(q)-1]))
}

func mustLoad(t *testing.T, data []byte) *archixml.Model {
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// givenPlan is a plan using every op with free text, its text fields filled with a, b and c in
// turn; used lists the strings in the order of the fields.
func givenPlan(a, b, c string) (raw []byte, used []string) {
	j := func(s string) string { v, _ := json.Marshal(s); return string(v) }
	texts := []string{a, b, c}
	k := 0
	next := func() string { s := texts[k%3]; k++; return s }
	use := func() string { s := next(); used = append(used, s); return j(s) }
	acts := []string{
		`{"op":"create_element","type":"Business Actor","name":` + use() + `,"ref_id":"e","documentation":` + use() +
			`,"properties":[{"key":` + use() + `,"value":` + use() + `}],"specialization":` + use() + `}`,
		`{"op":"create_relationship","source_id":"e","target_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","relationship_type":"Association","name":` + use() +
			`,"documentation":` + use() + `,"properties":[{"key":` + use() + `,"value":` + use() + `}]}`,
		`{"op":"set_documentation","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","documentation":` + use() + `}`,
		`{"op":"set_property","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","key":` + use() + `,"value":` + use() + `}`,
		`{"op":"rename_element","element_id":"id-f39944c88abfe53aa3270913f4ceb08f","new_name":` + use() + `}`,
		`{"op":"create_view","name":` + use() + `,"ref_id":"v","documentation":` + use() + `,"properties":[{"key":` + use() + `,"value":` + use() + `}]}`,
		`{"op":"create_note","view_id":"v","text":` + use() + `}`,
		`{"op":"create_group","view_id":"v","name":` + use() + `}`,
	}
	raw = []byte(`{"schema_version":"3.0","status":"ready","summary":"fuzz","actions":[` + strings.Join(acts, ",") + `]}`)
	return raw, used
}

// The fuzz's seeds are valid plans: its property is not checked only on plans it refuses.
func TestGivenPlan_SeedsAreValid(t *testing.T) {
	raw, used := givenPlan("Customer notes", "key", "\n\n\n\n\n\n\n\n\n\n\n\n\n\nhidden after blank lines")
	o := Check(raw, exampleModel(t), Options{})
	if o.Verdict != VerdictValid {
		t.Fatalf("%v", o.Errors())
	}
	md := string(o.Preview("p.json", ModelInfo{}))
	for _, s := range used {
		if !appearsEscaped(md, s) {
			t.Fatalf("%q is not in the preview", s)
		}
	}
	if !strings.Contains(md, "ending in") && !strings.Contains(md, "starting with 14 blank line(s)") {
		t.Fatalf("the blank lines are not said:\n%s", md)
	}
}
