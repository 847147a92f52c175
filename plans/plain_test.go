package plans

import (
	"strings"
	"testing"
)

// PlainText undoes MDEscape (a terminal shows the words as written), drops bold markers, keeps
// fenced blocks as they are, and keeps a character a person cannot see shown as its code.
func TestPlainText_UndoesMDEscape(t *testing.T) {
	for _, s := range []string{`Rename <Customer> & friends (x_y) *now*`, "a\\b `c` [d](e) #f !g |h ~i .j :k {l}",
		"&lt; stays as written", "ünïcödé ✓", "**not bold**"} {
		if got := string(PlainText([]byte(MDEscape(s) + "\n"))); got != s+"\n" {
			t.Errorf("PlainText(MDEscape(%q)) = %q", s, got)
		}
	}
	md := "**Verdict** \\(ok\\)\n```mermaid\n  n1[\"a \\(b\\)\"]\n```\n" + MDEscape("bell\a") + "\n"
	want := "Verdict (ok)\n```mermaid\n  n1[\"a \\(b\\)\"]\n```\nbell\\u{0007}\n"
	if got := string(PlainText([]byte(md))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if strings.Contains(string(PlainText([]byte(MDEscape("\u202e")))), "\u202e") {
		t.Error("a bidi override reached the terminal")
	}
}

// Where a person reads a type, it is in words: a view in the preview's diagram is an "ArchiMate
// view", never Archi's class name.
func TestPreview_TypesInWords(t *testing.T) {
	m := exampleModel(t)
	raw := ids(t, m, `{"schema_version":"3.1","status":"ready","summary":"s","actions":[`+
		`{"op":"rename_element","element_id":"{View}","new_name":"Renamed view"}]}`)
	o := Check([]byte(raw), m, Options{})
	md := string(o.Preview("p.json", ModelInfo{}))
	if strings.Contains(md, "ArchimateDiagramModel") || !strings.Contains(md, "ArchiMate view") {
		t.Fatalf("the preview names a view by its class:\n%s", md)
	}
}
