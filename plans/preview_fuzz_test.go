package plans

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// FuzzPreview renders the preview of any plan checked against the example model: whatever a
// planner writes, the Markdown holds no raw '<' (no tag, no <img onerror>), no "](" (no link or
// image), and every row of a table has as many unescaped pipes as the table's first row.
func FuzzPreview(f *testing.F) {
	model := exampleBytes(f)
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "plans", "*.json"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data, "plan.json")
	}
	evil := `<img src=x onerror=alert(1)> [x](http://e) ![i](x) | a | \u0060code\u0060 <b>\n| x | y |\n`
	f.Add([]byte(`{"schema_version":"2.0","status":"ready","summary":"`+evil+`","warnings":["`+evil+`"],"actions":[`+
		`{"op":"create_element","type":"Business Role","name":"`+evil+`","ref_id":"r"},`+
		`{"op":"set_documentation","element_id":"r","documentation":"`+evil+`"},`+
		`{"op":"set_property","element_id":"r","key":"`+evil+`","value":"`+evil+`"},`+
		`{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"`+evil+`"}]}`), "a|b<c>](d).json")
	f.Add([]byte(`{"schema_version":"2.0","status":"needs_clarification","summary":"q","questions":["`+evil+`"],"actions":[]}`), "q.json")
	f.Add([]byte(`{"schema_version":"2.0","status":"ready","summary":"x","actions":[{"op":"rename_element","element_id":"`+evil+`","new_name":"y"}]}`), "x.json")
	m, err := archixml.Load(model)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte, file string) {
		o := Check(raw, m, Options{})
		md := string(o.Preview(file, ModelInfo{Path: "model.archimate", Commit: "c0ffee", Blob: "b10b"}))
		if i := strings.IndexByte(md, '<'); i >= 0 {
			t.Fatalf("raw '<' in the preview: %q", around(md, i))
		}
		if i := strings.Index(md, "]("); i >= 0 {
			t.Fatalf("']('  in the preview: %q", around(md, i))
		}
		cols := -1
		for _, line := range strings.Split(md, "\n") {
			if !strings.HasPrefix(line, "|") {
				cols = -1 // a table ends at the first line that is not a row
				continue
			}
			n := unescapedPipes(line)
			if cols == -1 {
				cols = n
			} else if n != cols {
				t.Fatalf("a table row with %d unescaped pipes in a table of %d: %q", n, cols, line)
			}
		}
	})
}

// unescapedPipes counts the pipes of a table row that Markdown reads as cell borders.
func unescapedPipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++ // the next character is escaped
		case '|':
			n++
		}
	}
	return n
}

func around(s string, i int) string {
	lo, hi := max(0, i-40), min(len(s), i+40)
	return s[lo:hi]
}
