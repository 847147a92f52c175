package plans

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/internal/opsamples"
)

// TestApply_HistoryStable holds, for every op's sample on the example model, the bytes the plan
// applied saves as (the ids it creates included). The log proves an apply by applying its
// archived plan to the commit's parent again and comparing the bytes (ledger's modelHoldsApply):
// a version of archiplan that makes other ids (another seed, another order or "what it is for"
// of newID) or writes other bytes for the same plan on the same model would show every apply of
// the versions before it as unverified ("its model is not the plan applied to its parent's"),
// and have their plans applied again. A line that changes here is that decision: keep the old
// ids and bytes, or say in the commit how history made before is proved. A sample that changed
// itself (its plan's digest) is only a new line: go test ./plans -run HistoryStable -update.
func TestApply_HistoryStable(t *testing.T) {
	path := filepath.Join("..", "testdata", "golden", "history.txt")
	want := map[string][2]string{}
	if data, err := os.ReadFile(path); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				want[f[0]] = [2]string{f[1], f[2]}
			}
		}
	}
	var out strings.Builder
	for _, s := range opsamples.For(exampleModel(t)) {
		m := exampleModel(t)
		raw := s.Plan()
		if _, _, err := Apply(raw, m, Options{}); err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		saved, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		got := [2]string{SHA256(raw)[:16], SHA256(saved)[:16]}
		fmt.Fprintf(&out, "%s %s %s\n", s.Name(), got[0], got[1])
		w, ok := want[s.Name()]
		switch {
		case *update:
		case !ok || w[0] != got[0]:
			t.Errorf("%s: a sample not in %s (go test ./plans -run HistoryStable -update)", s.Name(), path)
		case w[1] != got[1]:
			t.Errorf("%s: the same plan on the same model saves other bytes than before (other ids, or another writer): every apply archiplan made before would show as unverified in the log; see this test's comment", s.Name())
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
