package web

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every page names the workspace and the model; a plan's page leaves the Mermaid block out, links
// the whole view to the plan's own picture, and puts the Decide box after the preview.
func TestServer_NamesAndPictures(t *testing.T) {
	e := newEnv(t)
	e.drop("p.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("p")
	if md := e.read("p.preview.md"); !strings.Contains(md, "```mermaid") || !strings.Contains(md, "p.view-1.whole.svg") {
		t.Fatalf("the preview has no Mermaid block or whole view to test with:\n%s", md)
	}
	c := e.client()
	ws := filepath.Base(e.ws.Root)
	for _, path := range []string{"/", "/history", "/views", "/plan/p"} {
		res, err := c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		b := body(t, res)
		if !strings.Contains(b, `id="where"`) || !strings.Contains(b, "<strong>"+ws+"</strong>") || !strings.Contains(b, "<code>model.archimate</code>") {
			t.Errorf("%s does not name workspace %s and model model.archimate", path, ws)
		}
		if path != "/plan/p" {
			continue
		}
		if strings.Contains(b, "graph LR") || strings.Contains(b, "language-mermaid") {
			t.Error("the Mermaid block is shown as source")
		}
		if !strings.Contains(b, `href="`+e.srv.Base()+`/plan/p/picture/p.view-1.whole.svg"`) {
			t.Error("the whole view's link does not open the plan's picture")
		}
		if strings.Index(b, `id="decide-h"`) < strings.Index(b, `id="preview-h"`) {
			t.Error("the Decide box comes before the preview")
		}
	}
}
