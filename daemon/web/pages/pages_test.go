package pages

import (
	"os/exec"
	"strings"
	"testing"
)

// Plans and previews are Markdown with GitHub's tables and strikethrough: both render, and a bare
// address stays text (no linkify).
func TestMarkdown_TablesAndStrikethrough(t *testing.T) {
	got := string(MarkdownWith([]byte("| a | b |\n|---|:-:|\n| 1 | 2 |\n\n~~gone~~ www.example.com\n"), func(string, bool) string { return "" }))
	for _, want := range []string{"<table>", "<th>a</th>", `<td style="text-align:center">2</td>`, "<del>gone</del>", " www.example.com"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "<a ") {
		t.Errorf("a link made of text:\n%s", got)
	}
}

// The two extensions are our copy (third_party/yuin/goldmark-gfm), so that goldmark's whole
// extension package, its init paid by every archiplan process, is not linked.
func TestMarkdown_NoGoldmarkExtensionPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/yuin/goldmark/extension" {
			t.Fatalf("%s is linked again", p)
		}
	}
}
