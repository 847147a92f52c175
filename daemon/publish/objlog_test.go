package publish

import (
	"bytes"
	"strings"
	"testing"
)

// Each element's page has a History section read from the same index as log --object: the plan
// that renamed it (its summary, written by a planner, escaped and with the right-to-left override
// shown as its code) and the commit that created it, newest first.
func TestPublish_ElementHistory(t *testing.T) {
	_, dir := publishEnv(t)
	files := readSite(t, dir)
	page := files["e/"+customer+".html"]
	_, hist, ok := bytes.Cut(page, []byte(`<h2 id="history">History</h2>`))
	if !ok {
		t.Fatalf("the customer's page has no History section:\n%s", page)
	}
	h := string(hist)
	renamed := strings.Index(h, "&#34;&gt;&lt;img src=x onerror=alert(1)&gt; renamed")
	created := strings.Index(h, "created as Business Actor")
	if renamed < 0 || created < 0 || renamed > created {
		t.Errorf("the rename (%d) and the creation (%d), newest first:\n%s", renamed, created, h)
	}
	if !strings.Contains(h, `invoice\u{202e}txt.exe`) || strings.Contains(h, "\u202e") {
		t.Errorf("the plan's summary does not show its right-to-left override as a code:\n%s", h)
	}
	if strings.Contains(h, "<script>") || strings.Contains(h, "<img") {
		t.Errorf("History holds markup unescaped:\n%s", h)
	}
	if !strings.Contains(h, "plan <code>hostile-") {
		t.Errorf("History does not name the plan:\n%s", h)
	}
	if !strings.Contains(h, `asked for:</span> <bdi>call it &lt;script&gt;alert`) {
		t.Errorf("History does not say what the plan was asked for:\n%s", h)
	}
	// an element no commit changed after it was made: its creation only
	other := string(files["e/"+desk+".html"])
	if !strings.Contains(other, `<h2 id="history">History</h2>`) || strings.Count(other, "created as") != 1 {
		t.Errorf("the desk's History:\n%s", other)
	}
}
