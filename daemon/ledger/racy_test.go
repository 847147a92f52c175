package ledger_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// The dirty check trusts the model file's stat data only as git does: when the file's mtime is
// older than the index's. An edit of the same size in the same second as the index was written
// (a coarse file system keeps the mtime it had: set here with Chtimes, no waiting) leaves the
// stat data as it was; it is still found, by the file's bytes, and the apply is refused.
func TestApply_RacyCleanEditIsDirty(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	if _, err := apply(t, l, "first", lt.Rename(els[0], "First Name")); err != nil {
		t.Fatal(err)
	}
	model, index := ws.ModelPath(), ws.GitPath("index")
	then := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, f := range []string{model, index} {
		if err := os.Chtimes(f, then, then); err != nil {
			t.Fatal(err)
		}
	}
	// a refused apply checks the model (clean: its bytes are HEAD's) and notes its stat data
	if _, err := apply(t, l, "nothing", lt.Rename("id-of-nothing", "Nobody")); !errors.Is(err, ledger.ErrRefused) {
		t.Fatalf("a plan renaming nothing: %v", err)
	}
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte("First Name"), []byte("Firxt Name"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("the model does not hold the first apply's name")
	}
	if err := os.WriteFile(model, edited, 0o644); err != nil { // in place: same inode, same size
		t.Fatal(err)
	}
	if err := os.Chtimes(model, then, then); err != nil {
		t.Fatal(err)
	}
	res, err := apply(t, l, "second", lt.Rename(els[1], "Second Name"))
	if !errors.Is(err, ledger.ErrRefused) || !strings.Contains(res.Reason, "uncommitted changes") {
		t.Fatalf("an edit of the same size in the index's second was not seen: %v", err)
	}
	if got, _ := os.ReadFile(model); !bytes.Equal(got, edited) {
		t.Fatal("the person's edit was not left as it was")
	}
}
