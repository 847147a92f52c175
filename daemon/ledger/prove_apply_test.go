package ledger_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// An apply whose inverse would not give back the model byte for byte is refused at apply time,
// with the model loaded and kept by a running ledger as with a cold one: an element written
// <element ...></element> (as another tool may write it) comes back from a rename and its undo as
// <element .../>. Nothing is committed, and the next apply commits its own change on the model at
// HEAD, the odd element as it was.
func TestApply_RefusesAnInverseThatDoesNotGiveBackTheModel(t *testing.T) {
	for _, warm := range []bool{true, false} {
		_, w := lt.Team(t, 1)
		ws := w[0]
		els := lt.Elements(t, ws)
		data := lt.Model(t, ws)
		odd := `id="` + els[1] + `"`
		i := bytes.Index(data, []byte(odd))
		end := i + bytes.Index(data[i:], []byte("/>"))
		if i < 0 || bytes.IndexByte(data[i:end], '>') >= 0 {
			t.Fatal("the second element is not written as an empty element")
		}
		data = append(append(append([]byte{}, data[:end]...), "></element>"...), data[end+2:]...)
		if err := os.WriteFile(ws.ModelPath(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		lt.Git(t, ws.Root, "commit", "-q", "-a", "-m", "written by another tool")
		head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
		l := lt.Ledger(ws)
		if warm {
			if _, err := l.Head(); err != nil { // loaded, as a running daemon's is
				t.Fatal(err)
			}
		}
		res, err := l.Apply(t.Context(), ledger.Request{Name: "odd", File: "odd.json", Raw: lt.Rename(els[1], "Renamed")})
		if !errors.Is(err, ledger.ErrRefused) || !strings.Contains(res.Reason, "the plan's inverse would not undo it exactly") {
			t.Fatalf("warm %v: %v", warm, err)
		}
		if got := lt.Git(t, ws.Root, "rev-parse", "HEAD"); got != head {
			t.Fatalf("warm %v: committed", warm)
		}
		if _, err := l.Apply(t.Context(), ledger.Request{Name: "next", File: "next.json", Raw: lt.Rename(els[2], "Next")}); err != nil {
			t.Fatalf("warm %v: %v", warm, err)
		}
		model := lt.Model(t, ws)
		if !bytes.Contains(model, []byte(`name="Next"`)) || bytes.Contains(model, []byte(`name="Renamed"`)) ||
			!bytes.Contains(model, []byte(odd+"></element>")) {
			t.Fatalf("warm %v: the next apply committed\n%s", warm, model)
		}
	}
}
