package inbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A listing taken while a plan was being renamed to .approved misses it; the outputs and record
// of that NAME must not be removed as a gone plan's, or the approval finds no record.
func TestRemoveOutputs_KeepsAPlanRenamedSinceTheListing(t *testing.T) {
	dir := t.TempDir()
	b := New(filepath.Join(dir, "plans"), filepath.Join(dir, "state"))
	os.MkdirAll(b.Dir, 0o755)
	if err := b.Submit("p07", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish("p07", Outputs{Preview: []byte("preview"), Report: []byte("{}")}, &Record{File: "p07.json"}); err != nil {
		t.Fatal(err)
	}
	l, _ := b.List()
	outputs := l.Outputs["p07"]
	// the person renames it after the listing; the listing's view of p07 is now wrong
	if err := os.Rename(b.Path("p07.json"), b.Path("p07.approved")); err != nil {
		t.Fatal(err)
	}
	if b.RemoveOutputs("p07", outputs) {
		t.Fatal("the outputs of a plan that is there were removed")
	}
	if _, err := b.Record("p07"); err != nil {
		t.Fatalf("the record went: %v", err)
	}
	for _, f := range outputs {
		if _, err := os.Stat(b.Path(f)); err != nil {
			t.Fatalf("%s went", f)
		}
	}
	// gone for real: then they go
	os.Remove(b.Path("p07.approved"))
	if !b.RemoveOutputs("p07", outputs) {
		t.Fatal("the outputs of a gone plan stay")
	}
	if _, err := b.Record("p07"); err == nil {
		t.Fatal("the record of a gone plan stays")
	}
}

// What a NAME's first valid preview fixed rides in its record: read from there (no file of its
// own), carried on by every later record of the NAME (a preview after HEAD moved, a rejection),
// kept in a file of its own when the plan and its record go, carried into the record of a plan
// written again under the NAME, and freed only when the plan is applied (Clear).
func TestInbox_FixedRidesInTheRecord(t *testing.T) {
	b := newInbox(t)
	raw := []byte(`{"summary":"rename"}`)
	if err := b.Submit("p", raw); err != nil {
		t.Fatal(err)
	}
	fx := &Fixed{Name: "p", PlanSHA256: Hash(raw), Changes: []string{`Rename "Customer" to "Client"`}}
	out := Outputs{Preview: []byte("# preview\n"), Report: []byte(`{"verdict":"valid"}`)}
	if err := b.Publish("p", out, &Record{File: "p.json", Verdict: "valid", Fixed: fx}); err != nil {
		t.Fatal(err)
	}
	fixed := func(when string) {
		t.Helper()
		got, err := b.Fixed("p")
		if err != nil || got == nil || got.PlanSHA256 != fx.PlanSHA256 || len(got.Changes) != 1 || got.Changes[0] != fx.Changes[0] {
			t.Fatalf("%s: fixed %+v, %v", when, got, err)
		}
	}
	fixed("its first valid preview")
	if _, err := os.Lstat(b.fixedPath("p")); !os.IsNotExist(err) {
		t.Fatalf("a file of its own while the record holds it: %v", err)
	}
	// previewed again (HEAD moved), then rejected: each record carries it on
	if err := b.Publish("p", out, &Record{File: "p.json", Verdict: "invalid"}); err != nil {
		t.Fatal(err)
	}
	if rec, _ := b.Record("p"); rec == nil || rec.Fixed == nil {
		t.Fatal("a later record of the NAME dropped what was fixed")
	}
	fixed("a later preview")
	if err := b.Reject(Entry{Name: "p", File: "p.json", State: Pending}, out, &Record{Verdict: "rejected"}); err != nil {
		t.Fatal(err)
	}
	fixed("a rejection")
	// the plan deleted: its outputs and record go, what was fixed stays
	l, _ := b.List()
	os.Remove(b.Path(RejectedFile("p")))
	if !b.RemoveOutputs("p", l.Outputs["p"]) {
		t.Fatal("the outputs of a gone plan stayed")
	}
	if _, err := b.Record("p"); !errors.Is(err, ErrNotPreviewed) {
		t.Fatalf("the record stayed: %v", err)
	}
	fixed("the plan deleted")
	// written again under the NAME: its first record carries it
	if err := b.Submit("p", []byte(`{"summary":"delete"}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish("p", out, &Record{File: "p.json", Verdict: "valid"}); err != nil {
		t.Fatal(err)
	}
	if rec, _ := b.Record("p"); rec == nil || rec.Fixed == nil || rec.Fixed.PlanSHA256 != fx.PlanSHA256 {
		t.Fatalf("the record of a plan written again under the NAME: %+v", rec)
	}
	// applied: the NAME is free
	b.Clear("p")
	if got, err := b.Fixed("p"); got != nil || err != nil {
		t.Fatalf("after Clear: %+v %v", got, err)
	}
}

// A preview is read whole or not at all: a reader in Steady never finds a preview's files
// beside another preview's record, or a preview without its record (what approve refused as "the
// preview on disk is not the one archiplan wrote" and "no preview yet" when it came between the
// two). The writer previews, re-previews and clears NAME, and the reader checks once as each of
// its rounds starts (so each check meets a write, and the writer is never starved of the lock).
func TestSteady_NeverSeesHalfAPreview(t *testing.T) {
	b := New(filepath.Join(t.TempDir(), "plans"), filepath.Join(t.TempDir(), "state")) // no state folder yet
	os.MkdirAll(b.Dir, 0o755)
	if err := b.Submit("p", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	const rounds = 150
	step, stop := make(chan int), make(chan struct{})
	var werr error
	go func() {
		defer close(step)
		for i := 0; i < rounds; i++ {
			select {
			case step <- i:
			case <-stop: // the reader failed: the test ends, and its folders go
				return
			}
			if i%5 == 4 {
				b.Clear("p")
				if werr = b.Submit("p", []byte(`{}`)); werr != nil {
					return
				}
				continue
			}
			out := Outputs{Preview: []byte(fmt.Sprintf("# preview %d\n", i)), Report: []byte(fmt.Sprintf(`{"round":%d}`, i))}
			if werr = b.Publish("p", out, &Record{File: "p.json", Verdict: "valid"}); werr != nil {
				return
			}
		}
	}()
	whole := 0
	check := func() error {
		_, perr := os.Stat(b.Path(PreviewFile("p")))
		rec, rerr := b.Record("p")
		switch {
		case perr != nil && rerr != nil:
			return nil // cleared, or not previewed yet: nothing of it
		case rerr != nil:
			return fmt.Errorf("a preview without its record: %v", rerr)
		case perr != nil:
			return fmt.Errorf("a record without its preview: %v", perr)
		}
		if _, err := b.Verify(rec); err != nil {
			return fmt.Errorf("a preview beside another's record: %w", err)
		}
		whole++
		return nil
	}
	for i := range step {
		if err := b.Steady(check); err != nil {
			close(stop)
			for range step {
			}
			t.Fatalf("round %d: %v", i, err)
		}
	}
	if werr != nil {
		t.Fatal(werr)
	}
	if whole < 10 {
		t.Fatalf("only %d checks of %d found a whole preview: the test proves nothing", whole, rounds)
	}
}
