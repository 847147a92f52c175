package planners

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/archiplan/archiplan/schemas"
)

// The real Codex app-server takes the strict schema of the latest vocabulary, the one `ask` gives
// it, and hands it to the model unchanged: a planner can answer with every op of 3.1.
func TestCodex_RealAppServerStrictLatest(t *testing.T) {
	bin := realCodex(t)
	strict, ok := schemas.StrictJSON(schemas.Latest)
	if !ok {
		t.Fatalf("no strict schema for %s", schemas.Latest)
	}
	plan := fmt.Sprintf(`{"schema_version":%q,"status":"refusal","summary":"s","questions":null,"warnings":null,"actions":[]}`, schemas.Latest)
	p := &provider{answer: func(n int, req map[string]any, w http.ResponseWriter) {
		stream(w, n, message(fmt.Sprintf("msg_%d", n), plan))
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	codexHome(t, srv.URL+"/v1")
	pl, err := New(Config{Kind: KindCodex, Command: []string{bin, "app-server"}, Model: "fake-model",
		Schema: strict, Timeout: 5 * time.Minute, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	answer, err := pl.Ask(context.Background(), "plan something")
	if err != nil {
		t.Fatal(err)
	}
	if answer != plan {
		t.Fatalf("answer %q", answer)
	}
	format, _ := p.request(0)["text"].(map[string]any)["format"].(map[string]any)
	var want, got any
	json.Unmarshal(strict, &want)
	b, _ := json.Marshal(format["schema"])
	json.Unmarshal(b, &got)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("the %s strict schema did not reach the model unchanged: %s", schemas.Latest, b)
	}
}
