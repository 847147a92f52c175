package plans

import (
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	obj := `{"a":1}`
	cases := []struct {
		name   string
		in     string
		strict bool
		want   string // the object taken, or "" when refused
		code   Code   // the error, or the warnings expected (all of them)
		warns  []Code
	}{
		{name: "bare", in: obj, want: obj},
		{name: "bare with whitespace", in: "\n  " + obj + "\n", want: obj},
		{name: "bom", in: "\ufeff" + obj, want: obj, warns: []Code{ExtractBOMStripped}},
		{name: "fenced", in: "```json\n" + obj + "\n```", want: obj, warns: []Code{ExtractFenceStripped}},
		{name: "fenced among prose", in: "Here:\n```json\n" + obj + "\n```\nDone.", want: obj, warns: []Code{ExtractFenceStripped, ExtractProseStripped}},
		{name: "prose around", in: "The plan is " + obj + " as asked.", want: obj, warns: []Code{ExtractProseStripped}},
		{name: "two objects, last taken", in: `{"a":0} and then ` + obj, want: obj, warns: []Code{ExtractSeveral, ExtractProseStripped}},
		{name: "braces in strings", in: `{"a":"}{"}`, want: `{"a":"}{"}`},
		{name: "escaped quote", in: `{"a":"\"}"}`, want: `{"a":"\"}"}`},
		{name: "strict refuses fences", in: "```json\n" + obj + "\n```", strict: true, code: ExtractStrict},
		{name: "strict refuses prose", in: obj + " ok?", strict: true, code: ExtractStrict},
		{name: "strict refuses bom", in: "\ufeff" + obj, strict: true, code: ExtractStrict},
		{name: "strict takes bare", in: obj, strict: true, want: obj},
		{name: "strict truncated", in: `{"a":`, strict: true, code: ExtractTruncated},
		{name: "prose", in: "No.", code: ExtractNoJSON},
		{name: "number", in: "42", code: ExtractNotObject},
		{name: "null", in: "null", code: ExtractNotObject},
		{name: "unclosed fence", in: "```json\n" + obj, want: obj, warns: []Code{ExtractFenceStripped}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, warns, err := Extract([]byte(c.in), c.strict)
			if c.want == "" {
				if err == nil || err.Code != c.code {
					t.Fatalf("got %q %v, want %s", got, err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %s %s", err.Code, err.Message)
			}
			if string(got) != c.want {
				t.Fatalf("took %q, want %q", got, c.want)
			}
			if strings.Join(codes(warns), " ") != strings.Join(toStrings(c.warns), " ") {
				t.Fatalf("warnings %v, want %v", codes(warns), c.warns)
			}
		})
	}
}

func toStrings(cs []Code) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c))
	}
	return out
}
