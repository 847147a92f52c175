package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
)

// A name, a relationship's label and a view's title carrying invisible characters (the tag block
// spelling "AI", a right-to-left override, a zero-width joiner) are drawn as their codes, as the
// preview's words show them (hidden.Show): the picture and the words say the same, and nothing in
// the picture is reordered or hidden.
func TestView_HiddenCharactersDrawnAsCodes(t *testing.T) {
	const payload = "\U000e0041\U000e0049\u202eevil\u200d"
	m := archixml.Example()
	for _, o := range m.Elements() {
		if o.Name() == "Customer" {
			if err := m.Rename(o.ID(), "C"+payload); err != nil {
				t.Fatal(err)
			}
		}
	}
	rel := m.Relationships()[0].ID()
	if err := m.Rename(rel, "R"+payload); err != nil {
		t.Fatal(err)
	}
	view := m.Views()[0].ID()
	if err := m.Rename(view, "V"+payload); err != nil {
		t.Fatal(err)
	}
	svg, err := View(m, view)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexFunc(string(svg), func(r rune) bool { return hidden.Is(r) && r != '\n' }); i >= 0 {
		t.Errorf("a hidden character is drawn raw at %d: %q", i, svg[max(0, i-40):min(len(svg), i+40)])
	}
	// a long label is wrapped on several lines: read the text of each <text> whole
	text := regexp.MustCompile(`</tspan><tspan[^>]*>`).ReplaceAllString(string(svg), "")
	for _, want := range []string{"<title>" + "V" + hidden.Show(payload) + "</title>", "C" + hidden.Show(payload), "R" + hidden.Show(payload)} {
		if !strings.Contains(text, want) {
			t.Errorf("the picture does not show %s:\n%s", want, svg)
		}
	}
}
