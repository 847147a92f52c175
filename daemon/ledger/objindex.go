package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/internal/osfile"
	"github.com/archiplan/archiplan/store"
)

// The index of objects' histories lives under .git/archiplan/objlog/, where nothing a planner
// or the work tree holds can reach it, and is made from commits and models only:
//
//	current           the name of the generation readers use (replaced atomically)
//	g-…/state.json    the commit the generation is indexed up to, its place on the line, the model path
//	g-…/NN.jsonl      one entry a line, for the objects whose id hashes to NN (256 shards)
//
// Each commit of the branch's first-parent line is diffed once (its model against its first
// parent's; a merge too, and its entry says so) and its entries appended; before a merge's, those
// of the commits it brought from its other side (store's SideCommits), each against its own first
// parent, at the merge's place on the line. Readers never lock: a
// shard is rewritten whole and renamed into place, and an entry beyond the state's seq (written
// before a crash, or by a writer still at work) is not read. A history rewritten under the index
// (the indexed tip no longer on the line from HEAD) makes a new generation from the root.
const (
	objIndexDir     = "archiplan/objlog"
	objIndexVersion = 4 // 2: entries say the plan's intent; 3: merges' other sides; 4: a plan only where the commit archives it
	objShards       = 256
	// bounds of one entry: a commit's words about one object, its author and plan, whoever wrote them
	maxEntryLines    = 40
	maxEntryLineText = 600
	maxEntryField    = 300
	// maxShardBytes bounds what a reader takes from one shard file
	maxShardBytes = 256 << 20
)

// objIndexDiffs counts the commits the index diffed (for the tests: each is diffed once).
var objIndexDiffs atomic.Int64

// ErrObjectIndex means the index of objects' histories could not be read or written.
var ErrObjectIndex = errors.New("the index of object histories")

// errGenGone means the generation being read was replaced by a new one and removed.
var errGenGone = fmt.Errorf("%w: made again while it was read", ErrObjectIndex)

// indexedEntry is an ObjectEntry as the index keeps it: keyed by object id, placed on the line.
type indexedEntry struct {
	ID  string `json:"id"`
	Seq int    `json:"seq"`
	ObjectEntry
}

type objIndexState struct {
	Version int    `json:"version"`
	Model   string `json:"model"`
	Tip     string `json:"tip"`
	Seq     int    `json:"seq"`
}

// ObjectIndex reads the histories of objects from an index made up to a commit; it caches the
// shards it read (publish asks for every element).
type ObjectIndex struct {
	dir    string
	state  objIndexState
	shards map[int]map[string][]ObjectEntry
}

// ObjectLog is the history of one object on the branch, newest first: every commit of the
// first-parent line and of the sides its merges brought whose model differs from its parent's in the object, or in a diagram object or
// connection showing it (moved, restyled, added to or removed from a view). It is read from the
// index under .git/, brought up to HEAD first.
func ObjectLog(ws *store.Workspace, id string) ([]ObjectEntry, error) {
	for try := 0; ; try++ {
		x, err := OpenObjectIndex(ws)
		if err != nil {
			return nil, err
		}
		list, err := x.Log(id)
		if errors.Is(err, errGenGone) && try < 3 {
			continue // made again from the root while we read: read the new one
		}
		if errors.Is(err, ErrObjectIndex) && try == 0 && x.dir != "" {
			// a shard that cannot be read (a disk that lost it): the index is only ever made
			// from commits, so it is made again rather than trusted or left failing
			if err := dropObjIndex(ws, x); err != nil {
				return nil, err
			}
			continue
		}
		return list, err
	}
}

// OpenObjectIndex brings the index up to HEAD (indexing only the commits it has not seen) and
// opens it for reading.
func OpenObjectIndex(ws *store.Workspace) (*ObjectIndex, error) {
	return OpenObjectIndexWith(ws, nil)
}

// OpenObjectIndexWith is OpenObjectIndex for a caller that read models of the commits it
// indexes already (by commit; read only): those are not read again.
func OpenObjectIndexWith(ws *store.Workspace, have map[string]*archixml.Model) (*ObjectIndex, error) {
	head, err := ws.Head()
	if err != nil {
		return nil, err
	}
	root := ws.GitPath(objIndexDir)
	if head == "" {
		return &ObjectIndex{}, nil
	}
	if x, ok := readObjIndex(root); ok && x.state.Tip == head && x.state.Model == ws.Model {
		return x, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrObjectIndex, err)
	}
	unlock, err := lockObjIndex(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := updateObjIndex(ws, root, head, have); err != nil {
		return nil, err
	}
	x, ok := readObjIndex(root)
	if !ok {
		return nil, fmt.Errorf("%w: unreadable after it was written", ErrObjectIndex)
	}
	return x, nil
}

// dropObjIndex forgets the generation x read, unless a writer replaced it meanwhile: the next
// open makes a new one from the root.
func dropObjIndex(ws *store.Workspace, x *ObjectIndex) error {
	root := ws.GitPath(objIndexDir)
	unlock, err := lockObjIndex(root)
	if err != nil {
		return err
	}
	defer unlock()
	if cur, ok := readObjIndex(root); ok && cur.dir == x.dir {
		if err := os.Remove(filepath.Join(root, "current")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %w", ErrObjectIndex, err)
		}
	}
	return nil
}

// Log is the history of one object, newest first.
func (x *ObjectIndex) Log(id string) ([]ObjectEntry, error) {
	if x.dir == "" {
		return nil, nil
	}
	n := shardOf(id)
	if x.shards == nil {
		x.shards = map[int]map[string][]ObjectEntry{}
	}
	byID, ok := x.shards[n]
	if !ok {
		entries, err := readShard(x.dir, n, x.state.Seq)
		if err != nil {
			return nil, err
		}
		byID = map[string][]ObjectEntry{}
		for _, e := range entries { // oldest first in the file
			byID[e.ID] = append(byID[e.ID], e.ObjectEntry)
		}
		for _, list := range byID {
			slices.Reverse(list)
		}
		x.shards[n] = byID
	}
	return slices.Clone(byID[id]), nil
}

// Tip is the commit the index was read at.
func (x *ObjectIndex) Tip() string { return x.state.Tip }

func shardOf(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % objShards)
}

func shardPath(dir string, n int) string { return filepath.Join(dir, fmt.Sprintf("%02x.jsonl", n)) }

// readObjIndex opens the current generation, if there is a whole one.
func readObjIndex(root string) (*ObjectIndex, bool) {
	cur, err := readCapped(filepath.Join(root, "current"), 256)
	if err != nil {
		return nil, false
	}
	gen := strings.TrimSpace(string(cur))
	if !validGen(gen) {
		return nil, false
	}
	dir := filepath.Join(root, gen)
	data, err := readCapped(filepath.Join(dir, "state.json"), 4096)
	if err != nil {
		return nil, false
	}
	var st objIndexState
	if json.Unmarshal(data, &st) != nil || st.Version != objIndexVersion || st.Tip == "" {
		return nil, false
	}
	return &ObjectIndex{dir: dir, state: st}, true
}

func validGen(g string) bool {
	if !strings.HasPrefix(g, "g-") || len(g) > 64 {
		return false
	}
	for _, r := range g[2:] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '-') {
			return false
		}
	}
	return true
}

// readCapped reads a file of the index without following a link, up to max bytes.
func readCapped(path string, max int64) ([]byte, error) {
	f, err := osfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a file", ErrObjectIndex, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrObjectIndex, path, max)
	}
	return data, nil
}

// readShard reads one shard's entries up to seq, in the file's order (oldest first).
func readShard(dir string, n, seq int) ([]indexedEntry, error) {
	data, err := readCapped(shardPath(dir, n), maxShardBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(filepath.Join(dir, "state.json")); err != nil {
			return nil, errGenGone
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []indexedEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e indexedEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrObjectIndex, shardPath(dir, n), err)
		}
		if e.Seq <= seq {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrObjectIndex, shardPath(dir, n), err)
	}
	return out, nil
}

// lockObjIndex takes the index's writer lock: an flock the kernel releases when the process dies.
// A second writer waits for the first, then finds the index up to date.
func lockObjIndex(root string) (func(), error) {
	f, err := osfile.OpenNoFollow(filepath.Join(root, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrObjectIndex, err)
	}
	if err := osfile.Lock(f, osfile.Exclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: lock: %w", ErrObjectIndex, err)
	}
	return func() { _ = osfile.Unlock(f); f.Close() }, nil
}

// updateObjIndex indexes the commits from the indexed tip to head, or makes a new generation
// from the root when the tip is not on head's first-parent line (history rewritten, another
// branch checked out) or the index is missing or of another model. The caller holds the lock.
func updateObjIndex(ws *store.Workspace, root, head string, have map[string]*archixml.Model) error {
	x, ok := readObjIndex(root)
	if ok && x.state.Tip == head && x.state.Model == ws.Model {
		return nil
	}
	tip := ""
	if ok && x.state.Model == ws.Model {
		tip = x.state.Tip
	}
	hist, err := ws.History(func(c store.CommitInfo) bool { return c.Hash == tip })
	if err != nil {
		return err
	}
	fresh := tip == "" || hist[len(hist)-1].Hash != tip
	var (
		seq   int
		prev  *archixml.Model
		pblob string
	)
	if !fresh {
		seq = x.state.Seq
		last := hist[len(hist)-1]
		hist = hist[:len(hist)-1]
		if pblob = last.ModelBlob; pblob != "" {
			if prev, err = ownedModelAt(ws, last.Hash, have); err != nil {
				return err
			}
		}
	}
	side, err := sidesOf(ws, hist, fresh)
	if err != nil {
		return err
	}
	adds, seq, err := indexCommits(ws, hist, side, seq, prev, pblob, have)
	if err != nil {
		return err
	}
	dir := ""
	if fresh {
		gen := fmt.Sprintf("g-%x-%d", time.Now().UnixNano(), os.Getpid())
		dir = filepath.Join(root, gen)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("%w: %w", ErrObjectIndex, err)
		}
	} else {
		dir = x.dir
	}
	if err := writeShards(dir, adds, fresh, x); err != nil {
		return err
	}
	if fresh {
		if err := syncShards(dir, slices.Collect(maps.Keys(adds))); err != nil {
			return err
		}
	}
	st, _ := json.Marshal(objIndexState{Version: objIndexVersion, Model: ws.Model, Tip: head, Seq: seq})
	if err := store.WriteFileAtomic(filepath.Join(dir, "state.json"), st, 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrObjectIndex, err)
	}
	if !fresh {
		return nil
	}
	return makeCurrent(root, dir)
}

// indexCommits diffs each commit of hist (newest first, all after the indexed tip) against the
// one before it, oldest first, from prev (the model of blob pblob at the tip; nil from the root),
// and returns the entries by shard, and the seq of the last commit (seq is the tip's). Models
// already read (have, by commit) are not read again.
func indexCommits(ws *store.Workspace, hist []store.CommitInfo, side map[string][]store.CommitInfo, seq int, prev *archixml.Model, pblob string, have map[string]*archixml.Model) (map[int][]indexedEntry, int, error) {
	adds := map[int][]indexedEntry{}
	for i := len(hist) - 1; i >= 0; i-- {
		c := hist[i]
		seq++
		if err := indexSide(ws, side[c.Hash], seq, adds, have); err != nil {
			return nil, 0, err
		}
		if c.ModelBlob == pblob {
			continue
		}
		var cur *archixml.Model
		if c.ModelBlob != "" {
			var err error
			if cur, err = ownedModelAt(ws, c.Hash, have); err != nil {
				return nil, 0, err
			}
		}
		objIndexDiffs.Add(1)
		byID := commitChanges(prev, cur)
		prev, pblob = cur, c.ModelBlob
		if len(byID) == 0 {
			continue
		}
		e := entryOf(ws, c)
		for id, lines := range byID {
			// the model reads its ids and words out of its blob (LoadOwned): an entry keeps
			// copies, not the whole blob of every commit of the history until the shards are written
			ie := indexedEntry{ID: strings.Clone(id), Seq: seq, ObjectEntry: e}
			ie.Changes = boundLines(lines)
			adds[shardOf(id)] = append(adds[shardOf(id)], ie)
		}
	}
	return adds, seq, nil
}

// sidesOf is the commits the merges of hist (the commits to index, newest first) brought from
// their other sides, by merge. The side of a merge is what is not on the whole first-parent line:
// unless hist is the whole line (fresh), the line is read whole, once, when hist holds a merge.
func sidesOf(ws *store.Workspace, hist []store.CommitInfo, fresh bool) (map[string][]store.CommitInfo, error) {
	if !slices.ContainsFunc(hist, func(c store.CommitInfo) bool { return c.Merge }) {
		return nil, nil
	}
	line := hist
	if !fresh {
		var err error
		if line, err = ws.History(nil); err != nil {
			return nil, err
		}
	}
	side, err := ws.SideCommits(line)
	if err != nil {
		return nil, err
	}
	out := map[string][]store.CommitInfo{}
	for _, c := range side {
		out[c.Via] = append(out[c.Via], c)
	}
	return out, nil
}

// indexSide adds the entries of the commits a merge brought from its other side (side, as
// SideCommits walked it from the side's tip), each diffed against its own first parent, oldest
// first, at the merge's seq: read back newest first, they follow the merge's own entry.
func indexSide(ws *store.Workspace, side []store.CommitInfo, seq int, adds map[int][]indexedEntry, have map[string]*archixml.Model) error {
	for i := len(side) - 1; i >= 0; i-- {
		c := side[i]
		parent := store.CommitInfo{}
		if c.Parent != "" {
			var err error
			if parent, err = ws.Info(c.Parent); err != nil {
				return err
			}
		}
		if c.ModelBlob == parent.ModelBlob {
			continue
		}
		var before, after *archixml.Model
		var err error
		if parent.ModelBlob != "" {
			if before, err = ownedModelAt(ws, parent.Hash, have); err != nil {
				return err
			}
		}
		if c.ModelBlob != "" {
			if after, err = ownedModelAt(ws, c.Hash, have); err != nil {
				return err
			}
		}
		objIndexDiffs.Add(1)
		e := entryOf(ws, c)
		e.MergedBy = c.Via
		for id, lines := range commitChanges(before, after) {
			ie := indexedEntry{ID: strings.Clone(id), Seq: seq, ObjectEntry: e}
			ie.Changes = boundLines(lines)
			adds[shardOf(id)] = append(adds[shardOf(id)], ie)
		}
	}
	return nil
}

// writeShards writes the entries adds to the shards of the generation in dir: a fresh one's
// files written as they are (synced all at once after); an index brought up to date (x) has
// each shard's entries read (those up to its seq) and the shard rewritten whole, renamed in place.
func writeShards(dir string, adds map[int][]indexedEntry, fresh bool, x *ObjectIndex) error {
	for n, list := range adds {
		var old []indexedEntry
		if !fresh {
			var err error
			if old, err = readShard(dir, n, x.state.Seq); err != nil {
				return err
			}
		}
		slices.SortStableFunc(list, func(a, b indexedEntry) int { return a.Seq - b.Seq })
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for _, e := range append(old, list...) {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		if fresh { // no reader opens the generation before current names it: synced all at once below
			if err := os.WriteFile(shardPath(dir, n), buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("%w: %w", ErrObjectIndex, err)
			}
			continue
		}
		if err := store.WriteFileAtomic(shardPath(dir, n), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("%w: %w", ErrObjectIndex, err)
		}
	}
	return nil
}

// makeCurrent names the new generation in dir the one readers use, and removes the others.
func makeCurrent(root, dir string) error {
	if err := store.WriteFileAtomic(filepath.Join(root, "current"), []byte(filepath.Base(dir)+"\n"), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrObjectIndex, err)
	}
	// the generations no reader can open any more (one reading an old one sees it whole or not at all)
	olds, _ := os.ReadDir(root)
	for _, o := range olds {
		if o.IsDir() && validGen(o.Name()) && o.Name() != filepath.Base(dir) {
			// its state first: a reader that finds a shard missing knows the generation went
			os.Remove(filepath.Join(root, o.Name(), "state.json"))
			os.RemoveAll(filepath.Join(root, o.Name()))
		}
	}
	return nil
}

// syncShards makes a new generation's shards durable before its state and current name it: the
// files synced side by side (a disk's journal commits them together; one after the other, 256 of
// them took seconds), then their folder.
func syncShards(dir string, shards []int) error {
	errs := make(chan error, len(shards))
	next := make(chan int)
	for range min(16, len(shards)) {
		go func() {
			for n := range next {
				f, err := os.Open(shardPath(dir, n))
				if err == nil {
					err = f.Sync()
					f.Close()
				}
				errs <- err
			}
		}()
	}
	go func() {
		for _, n := range shards {
			next <- n
		}
		close(next)
	}()
	var first error
	for range shards {
		if err := <-errs; err != nil && first == nil {
			first = fmt.Errorf("%w: %w", ErrObjectIndex, err)
		}
	}
	if first != nil {
		return first
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrObjectIndex, err)
	}
	defer d.Close()
	_ = d.Sync() // a folder some file systems cannot sync: the shards are
	return nil
}

// ownedModelAt is modelAt for a model kept only as long as the walk needs it (LoadOwned), or
// the one the caller read already.
func ownedModelAt(ws *store.Workspace, commit string, have map[string]*archixml.Model) (*archixml.Model, error) {
	if m, ok := have[commit]; ok {
		return m, nil
	}
	data, ok, err := ws.ModelAt(commit)
	if err != nil || !ok {
		return nil, err
	}
	m, err := archixml.LoadOwned(data)
	if err != nil {
		return nil, fmt.Errorf("the model at %s: %w", short(commit), err)
	}
	return m, nil
}

// entryOf is what one commit's entries share: who, when, and the plan whose archive it holds.
func entryOf(ws *store.Workspace, c store.CommitInfo) ObjectEntry {
	e := ObjectEntry{Commit: c.Hash, Date: c.When.UTC().Format("2006-01-02T15:04:05Z"), Author: bound(c.Author, maxEntryField), Merge: c.Merge}
	if pid := c.Trailers[store.TrailerPlanID]; pid != "" && heldApply(ws, c, "", pid, c.Trailers[store.TrailerPlanSHA256]) == "" {
		// the archive of the plan, added by the commit, as log holds it: a trailer alone names
		// nothing, nor one naming a plan an earlier commit archived (its approver copied)
		if plan, ok, _ := ws.FileAt(c.Hash, archivePath(pid, archivePlan)); ok {
			var p struct {
				Summary string `json:"summary"`
			}
			_ = json.Unmarshal(plan, &p)
			e.PlanID, e.Summary, e.ApprovedBy = bound(pid, maxEntryField), bound(p.Summary, maxEntryField), bound(c.Trailers[store.TrailerApprovedBy], maxEntryField)
			e.Intent = bound(archivedIntent(ws, c.Hash, pid), maxEntryLineText)
		}
	}
	return e
}

// archivedIntent is the request a plan was asked for, as the archive of its apply keeps it: the
// conversation archiplan recorded under .git/ when `ask` asked (a planner writes the plan, not
// this), "" when the plan was not asked for.
func archivedIntent(ws *store.Workspace, commit, id string) string {
	data, ok, _ := ws.FileAt(commit, archivePath(id, ArchiveConversation))
	if !ok {
		return ""
	}
	var c struct {
		Intent string `json:"intent"`
	}
	_ = json.Unmarshal(data, &c)
	return c.Intent
}

// ChangedObjects are the ids whose histories a commit from the model before to the one after
// adds an entry to (the index's keys for it): publish writes their pages again.
func ChangedObjects(before, after *archixml.Model) []string {
	return slices.Collect(maps.Keys(commitChanges(before, after)))
}

// commitChanges says, for every object a commit changed, how: the words of the diff of its
// model against its parent's (either may be nil: no model), each line under the object it is
// about and, for a diagram object or connection, under the concept it shows too.
func commitChanges(before, after *archixml.Model) map[string][]string {
	out := map[string][]string{}
	switch {
	case after == nil && before == nil:
		return nil
	case before == nil:
		eachObject(after, func(o archixml.Object) { out[o.ID()] = []string{"created as " + diff.Label(o)} })
		return out
	case after == nil:
		eachObject(before, func(o archixml.Object) { out[o.ID()] = []string{"deleted " + diff.Label(o) + " (the model left)"} })
		return out
	}
	for _, ch := range diff.Models(before, after).Changes {
		out[ch.ID] = append(out[ch.ID], ch.Text)
		if ch.Kind != diff.KindView {
			continue
		}
		for _, d := range ch.Diagram {
			line := d.Text + " on view \"" + ch.Name + "\""
			keys := []string{d.ID}
			for _, m := range []*archixml.Model{after, before} {
				if o, ok := m.Object(d.ID); ok {
					if c, ok := o.Concept(); ok && !slices.Contains(keys, c.ID()) {
						keys = append(keys, c.ID())
					}
				}
			}
			for _, k := range keys {
				out[k] = append(out[k], line)
			}
		}
	}
	return out
}

func eachObject(m *archixml.Model, fn func(archixml.Object)) {
	for k := archixml.KindOther; k <= archixml.KindProfile; k++ {
		for _, o := range m.All(k) {
			if o.ID() != "" {
				fn(o)
			}
		}
	}
}

// boundLines keeps an entry's words within bounds: a commit that rewrote a view showing an
// object says so in maxEntryLines lines and how many more.
func boundLines(lines []string) []string {
	out := make([]string, 0, min(len(lines), maxEntryLines+1))
	for i, l := range lines {
		if i == maxEntryLines {
			out = append(out, "and "+strconv.Itoa(len(lines)-i)+" more changes")
			break
		}
		out = append(out, strings.Clone(bound(l, maxEntryLineText)))
	}
	return out
}

// bound cuts s to at most n bytes, on a character boundary, saying it did.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
