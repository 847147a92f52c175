package ledger_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// objHistory makes histories of small edits committed on a model, as a person saving in Archi
// makes them: each commit renames one element, sets a property on another or moves an object on
// a view, in turn. The commits are written as git objects and the branch moved with git
// update-ref, the work tree left behind: the index reads commits, never the work tree.
type objHistory struct {
	tb   testing.TB
	ws   *store.Workspace
	m    *archixml.Model
	els  []string
	objs []string // diagram objects
	n    int
}

func newObjHistory(tb testing.TB, elements int) *objHistory {
	ws, _ := lt.SynthWorkspace(tb, elements)
	h := &objHistory{tb: tb, ws: ws}
	h.m = h.load(h.head())
	for _, e := range h.m.Elements() {
		h.els = append(h.els, e.ID())
	}
	for _, o := range h.m.All(archixml.KindDiagramObject) {
		h.objs = append(h.objs, o.ID())
	}
	return h
}

func (h *objHistory) head() string {
	head, err := h.ws.Head()
	if err != nil {
		h.tb.Fatal(err)
	}
	return head
}

func (h *objHistory) load(commit string) *archixml.Model {
	data, _, err := h.ws.ModelAt(commit)
	if err != nil {
		h.tb.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		h.tb.Fatal(err)
	}
	return m
}

// edit makes the i-th small edit on the model in memory.
func (h *objHistory) edit(i int) {
	var err error
	switch i % 3 {
	case 0:
		err = h.m.Rename(h.els[(i*7919)%len(h.els)], fmt.Sprintf("Renamed %d", i))
	case 1:
		err = h.m.SetProperty(h.els[(i*104729)%len(h.els)], "round", fmt.Sprint(i))
	default:
		x := 10 + i
		err = h.m.SetBounds(h.objs[(i*31)%len(h.objs)], &x, nil, nil, nil)
	}
	if err != nil {
		h.tb.Fatal(err)
	}
}

// commit commits the model in memory on top of base (HEAD when "") and moves the branch there.
func (h *objHistory) commit(base, msg string, who store.Signature) string {
	if base == "" {
		base = h.head()
	}
	c := h.write(base, msg, who)
	lt.Git(h.tb, h.ws.Root, "update-ref", "HEAD", c)
	return c
}

func (h *objHistory) write(base, msg string, who store.Signature) string {
	data, err := h.m.Save()
	if err != nil {
		h.tb.Fatal(err)
	}
	h.n++
	c, err := h.ws.WriteCommit(store.Change{Base: base, Files: map[string][]byte{h.ws.Model: data}, Message: msg,
		Author: who, When: time.Date(2026, 1, 1, 0, h.n, 0, 0, time.UTC)})
	if err != nil {
		h.tb.Fatal(err)
	}
	return c
}

// edits commits n edits from the i-th on, one commit each.
func (h *objHistory) edits(from, n int) {
	for i := from; i < from+n; i++ {
		h.edit(i)
		h.commit("", fmt.Sprintf("edit %d in Archi", i), store.Signature{Name: "Ada", Email: "ada@example.org"})
		if i%100 == 99 { // read again, as Archi saves a model it holds: an edited tree keeps what it replaced
			h.m = h.load(h.head())
		}
	}
}

// ids are the ids of the objects in the models at every commit of the first-parent line: every
// tenth, and those the edits touch (the walk each is compared with diffs the whole history).
func (h *objHistory) ids() []string {
	seen := map[string]bool{}
	hist, err := h.ws.History(nil)
	if err != nil {
		h.tb.Fatal(err)
	}
	var out []string
	for _, c := range hist {
		m := h.load(c.Hash)
		for k := archixml.KindOther; k <= archixml.KindProfile; k++ {
			for _, o := range m.All(k) {
				if !seen[o.ID()] && o.ID() != "" {
					seen[o.ID()] = true
					if len(seen)%10 == 0 {
						out = append(out, o.ID())
					}
				}
			}
		}
	}
	for i := 0; i < h.n; i++ {
		out = append(out, h.els[(i*7919)%len(h.els)], h.els[(i*104729)%len(h.els)], h.objs[(i*31)%len(h.objs)])
	}
	return append(out, h.els[0], h.els[3], h.els[50])
}

// agrees checks that the index gives, for every id, what the walk of the history gives.
func agrees(t *testing.T, ws *store.Workspace, ids []string) {
	t.Helper()
	for _, id := range ids {
		got, err := ledger.ObjectLog(ws, id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ledger.ObjectLogWalk(ws, id)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Merge = false // the walk does not say
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("object %s:\nindexed %+v\nwalked  %+v", id, got, want)
		}
	}
}

// The index says, for every object, what walking the history and diffing every commit says:
// built from the root, then brought up to date commit by commit (each new commit diffed once,
// none again), through plans applied by archiplan, edits by hand and a merge (whose entry says it
// is one, against its first parent). What the work tree holds counts for nothing.
func TestObjectLog_IndexAgreesWithWalk(t *testing.T) {
	h := newObjHistory(t, 120)
	h.edits(0, 6)
	before := ledger.ObjectIndexDiffs()
	agrees(t, h.ws, h.ids())
	if n := ledger.ObjectIndexDiffs() - before; n != 7 {
		t.Errorf("built from the root: %d commits diffed, want 7", n)
	}
	if _, err := os.Stat(h.ws.GitPath("archiplan/objlog/current")); err != nil {
		t.Fatalf("no index under .git: %v", err)
	}

	// plans applied by archiplan: a rename, and a delete that takes relationships and objects on views
	l := lt.Ledger(h.ws)
	lt.Git(t, h.ws.Root, "reset", "-q", "--hard")
	lt.Preview(t, l, "rename", lt.Rename(h.els[3], "Via a plan"))
	if _, err := lt.Approve(t, l, "rename"); err != nil {
		t.Fatal(err)
	}
	del := fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"drop one","actions":[{"op":"delete_element","element_id":%q}]}`, h.els[0])
	lt.Preview(t, l, "drop", []byte(del))
	if _, err := lt.Approve(t, l, "drop"); err != nil {
		t.Fatal(err)
	}
	h.m = h.load(h.head())
	h.edits(6, 4)

	// a merge: a side branch from three commits back, merged with both sides' edits
	base := strings.TrimSpace(lt.Git(t, h.ws.Root, "rev-parse", "HEAD~3"))
	main := h.head()
	side := h.load(base)
	if err := side.Rename(h.els[50], "Named on a branch"); err != nil {
		t.Fatal(err)
	}
	kept := h.m
	h.m = side
	sideCommit := h.write(base, "on a branch", store.Signature{Name: "Bob", Email: "bob@example.org"})
	h.m = kept
	if err := h.m.Rename(h.els[50], "Named on a branch"); err != nil {
		t.Fatal(err)
	}
	merged := h.write(main, "merged", store.Signature{Name: "Bob", Email: "bob@example.org"})
	tree := strings.TrimSpace(lt.Git(t, h.ws.Root, "rev-parse", merged+"^{tree}"))
	merge := strings.TrimSpace(lt.Git(t, h.ws.Root, "commit-tree", tree, "-p", main, "-p", sideCommit, "-m", "Merge branch 'side'"))
	lt.Git(t, h.ws.Root, "update-ref", "HEAD", merge)

	// the work tree holds something else: not evidence
	if err := os.WriteFile(h.ws.ModelPath(), []byte("<not a model/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = ledger.ObjectIndexDiffs()
	agrees(t, h.ws, h.ids())
	if n := ledger.ObjectIndexDiffs() - before; n != 8 {
		t.Errorf("brought up to date: %d commits diffed, want the 7 new ones and the one the merge brought", n)
	}
	got, err := ledger.ObjectLog(h.ws, h.els[50])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || got[0].Commit != merge || !got[0].Merge || !strings.Contains(strings.Join(got[0].Changes, "\n"), "Named on a branch") {
		t.Errorf("the merge's entry: %+v", got)
	}
	// then the commit it brought, under its own author, naming the merge
	if len(got) < 2 || got[1].Commit != sideCommit || got[1].MergedBy != merge || got[1].Author != "Bob <bob@example.org>" {
		t.Errorf("the branch's commit, after the merge: %+v", got)
	}
	if got, _ := ledger.ObjectLog(h.ws, h.els[3]); len(got) == 0 || got[0].Summary != "rename to Via a plan" || got[0].PlanID == "" || got[0].ApprovedBy == "" {
		t.Errorf("the plan's entry: %+v", got)
	}
	if got, _ := ledger.ObjectLog(h.ws, h.els[0]); len(got) == 0 || got[0].Summary != "drop one" || !strings.HasPrefix(got[0].Changes[0], "removed") {
		t.Errorf("the delete's entry: %+v", got)
	}
}

// A history rewritten under the index (reset and committed again, as a rebase or a force-pull
// does) is found (the indexed tip is not on the line from HEAD) and the index made again: the
// dropped commits leave it.
func TestObjectLog_IndexRewrittenHistory(t *testing.T) {
	h := newObjHistory(t, 120)
	h.edits(0, 6)
	id := h.els[0]
	agrees(t, h.ws, []string{id})
	if got, _ := ledger.ObjectLog(h.ws, id); len(got) != 2 {
		t.Fatalf("%d entries before, want the creation and edit 0's rename: %+v", len(got), got)
	}
	gen, _ := os.ReadFile(h.ws.GitPath("archiplan/objlog/current"))
	lt.Git(t, h.ws.Root, "update-ref", "HEAD", "HEAD~6") // the edits are gone (edit 0 with them)
	h.m = h.load(h.head())
	if err := h.m.SetProperty(id, "again", "yes"); err != nil {
		t.Fatal(err)
	}
	again := h.commit("", "another history", store.Signature{Name: "Cy", Email: "cy@example.org"})
	agrees(t, h.ws, h.ids())
	got, err := ledger.ObjectLog(h.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Commit != again || !strings.HasPrefix(got[1].Changes[0], "created as") {
		t.Errorf("after the rewrite: %+v", got)
	}
	if now, _ := os.ReadFile(h.ws.GitPath("archiplan/objlog/current")); string(now) == string(gen) {
		t.Errorf("the index was not made again (generation %s)", gen)
	}
	if dirs, _ := filepath.Glob(h.ws.GitPath("archiplan/objlog/g-*")); len(dirs) != 1 {
		t.Errorf("generations left: %v", dirs)
	}
}

// Readers read while commits arrive and the index is brought up to date, and once made again
// from the root: each reads a whole index, never a half-written one, and gives the object's
// history as of some commit of the line (the newest entries missing, nothing else).
func TestObjectLog_IndexConcurrentReaders(t *testing.T) {
	h := newObjHistory(t, 120)
	id := h.els[0]
	done := make(chan struct{})
	var wg sync.WaitGroup
	results := make(chan []ledger.ObjectEntry, 1000)
	errs := make(chan error, 10)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, err := store.Open(h.ws.Root, h.ws.Model)
			if err != nil {
				errs <- err
				return
			}
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := ledger.ObjectLog(ws, id)
				if err != nil {
					errs <- err
					return
				}
				select {
				case results <- got:
				default:
				}
			}
		}()
	}
	for i := 0; i < 12; i++ {
		if i == 6 { // a rewrite: the index is made again from the root while they read
			lt.Git(t, h.ws.Root, "update-ref", "HEAD", "HEAD~1")
		}
		if err := h.m.Rename(id, fmt.Sprintf("Name %d", i)); err != nil {
			t.Fatal(err)
		}
		h.commit("", fmt.Sprintf("rename %d", i), store.Signature{Name: "Ada", Email: "ada@example.org"})
		if _, err := ledger.ObjectLog(h.ws, id); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	final, err := ledger.ObjectLogWalk(h.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	for got := range results {
		if len(got) == 0 {
			t.Fatal("a reader read no history at all")
		}
		// the oldest entries are the final history's, whichever line the reader saw
		if last := got[len(got)-1]; !reflect.DeepEqual(withoutMerge(last), final[len(final)-1]) {
			t.Fatalf("a reader's oldest entry %+v, want %+v", last, final[len(final)-1])
		}
	}
}

func withoutMerge(e ledger.ObjectEntry) ledger.ObjectEntry { e.Merge = false; return e }

// An entry is bounded whatever a commit holds: a name of 100,000 characters and an author as
// long are cut, and said to be.
func TestObjectLog_IndexBoundsEntries(t *testing.T) {
	h := newObjHistory(t, 120)
	id := h.els[0]
	long := strings.Repeat("é", 50000)
	if err := h.m.Rename(id, long); err != nil {
		t.Fatal(err)
	}
	h.commit("", "a long name", store.Signature{Name: long, Email: "x@example.org"})
	got, err := ledger.ObjectLog(h.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d entries: %+v", len(got), got)
	}
	e := got[0]
	if len(e.Author) > 400 || !strings.HasSuffix(e.Author, "bytes)") {
		t.Errorf("author of %d bytes: %.80q", len(e.Author), e.Author)
	}
	for _, l := range e.Changes {
		if len(l) > 700 || !strings.HasSuffix(l, "bytes)") {
			t.Errorf("a line of %d bytes: %.80q", len(l), l)
		}
	}
}

// A shard that cannot be read (a disk that lost its bytes) is not trusted and does not fail every
// later read: the index is made again from the commits.
func TestObjectLog_IndexMadeAgainWhenUnreadable(t *testing.T) {
	h := newObjHistory(t, 120)
	h.edits(0, 3)
	id := h.els[0]
	want, err := ledger.ObjectLog(h.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(h.ws.GitPath("archiplan/objlog/g-*/*.jsonl"))
	if len(shards) == 0 {
		t.Fatal("no shards")
	}
	for _, s := range shards {
		if err := os.WriteFile(s, []byte("{not json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ledger.ObjectLog(h.ws, id)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after the shards were lost: %+v %v, want %+v", got, err, want)
	}
}

// An entry of a plan says what the plan was asked for: the intent of the conversation archiplan
// archived with the apply (kept under .git/ when `ask` asked, where planners do not write; a
// plan's JSON has no such field). A plan nobody asked for, and a hand commit whose trailers name
// a plan it does not archive, say nothing of the kind.
func TestObjectLog_EntryHasThePlansIntent(t *testing.T) {
	h := newObjHistory(t, 60)
	l := lt.Ledger(h.ws)
	if err := lt.Inbox(h.ws).SaveConversation(&inbox.Conversation{Name: "asked", Intent: "name the first one after the customer", Planner: "codex"}); err != nil {
		t.Fatal(err)
	}
	lt.Preview(t, l, "asked", lt.Rename(h.els[1], "Customer"))
	if _, err := lt.Approve(t, l, "asked"); err != nil {
		t.Fatal(err)
	}
	own := fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"by itself","actions":[{"op":"rename_element","element_id":%q,"new_name":"Dropped"}]}`, h.els[2])
	lt.Preview(t, l, "dropped", []byte(own))
	if _, err := lt.Approve(t, l, "dropped"); err != nil {
		t.Fatal(err)
	}
	h.m = h.load(h.head())
	if err := h.m.Rename(h.els[1], "By hand"); err != nil {
		t.Fatal(err)
	}
	h.commit("", "by hand\n\nPlan-Id: asked-000000000000\nApproved-By: Mallory <m@example.org>", store.Signature{Name: "Mallory", Email: "m@example.org"})
	agrees(t, h.ws, []string{h.els[1], h.els[2]})
	got, err := ledger.ObjectLog(h.ws, h.els[1])
	if err != nil || len(got) < 2 {
		t.Fatalf("%+v %v", got, err)
	}
	if got[0].Intent != "" || got[0].PlanID != "" {
		t.Errorf("the hand commit's trailers made it a plan's: %+v", got[0])
	}
	if got[1].Intent != "name the first one after the customer" || got[1].Summary != "rename to Customer" {
		t.Errorf("the asked plan's entry: %+v", got[1])
	}
	if got, _ := ledger.ObjectLog(h.ws, h.els[2]); len(got) == 0 || got[0].Summary != "by itself" || got[0].Intent != "" {
		t.Errorf("a plan nobody asked for: %+v", got)
	}
}
