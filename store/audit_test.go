package store

import (
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// An approval's event and what came of it are appended at once: each its own commit, the second
// on top of the first, at its own time, read back in their order; git fsck finds nothing wrong.
func TestAppendAudits_EachItsCommitInOrder(t *testing.T) {
	ws, dir := newRepo(t)
	if err := ws.AppendAudit([]byte(`{"event":"received"}`+"\n"), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	approved, applied := time.Now().Add(-time.Minute).Truncate(time.Second), time.Now().Truncate(time.Second)
	if err := ws.AppendAudits(AuditEntry{[]byte(`{"event":"approved"}` + "\n"), approved}, AuditEntry{[]byte(`{"event":"applied"}` + "\n"), applied}); err != nil {
		t.Fatal(err)
	}
	records, err := ws.AuditRecords()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range records {
		got = append(got, string(r.Data))
	}
	if len(got) != 3 || got[1] != `{"event":"approved"}`+"\n" || got[2] != `{"event":"applied"}`+"\n" {
		t.Fatalf("the audit reads back %q", got)
	}
	ref, err := ws.git().Storer.Reference(AuditRef)
	if err != nil {
		t.Fatal(err)
	}
	last, err := ws.git().CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if last.Hash.String() != records[2].Commit || len(last.ParentHashes) != 1 || last.ParentHashes[0] != plumbing.NewHash(records[1].Commit) {
		t.Fatalf("the audit's ref is at %s, parents %v; want the applied record's commit on top of the approved's", last.Hash, last.ParentHashes)
	}
	before, err := ws.git().CommitObject(last.ParentHashes[0])
	if err != nil {
		t.Fatal(err)
	}
	if !before.Author.When.Equal(approved) || !last.Author.When.Equal(applied) {
		t.Fatalf("the commits' times are %s and %s, want %s and %s", before.Author.When, last.Author.When, approved, applied)
	}
	run(t, dir, "fsck", "--full", "--strict")
}
