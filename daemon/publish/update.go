package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/store"
)

// maxUpdateSteps is the most commits an update follows from the site's commit; beyond, the site
// is written whole (each step's models are read to find whose histories it adds to).
const maxUpdateSteps = 16

// update brings the site in dir from the commit its marker names to commit, writing only the
// pages whose content differs between the two models (and the pages written every time: index,
// views, search, history, the search index, the marker). It returns nil, and the caller writes
// the site whole, whenever it cannot be sure: no marker of this program's, a marker of another
// model, of a commit not on commit's first-parent line or too far back, of an update that did not
// finish, another model name or specializations (named on every page), an id used twice, label expressions (a
// picture that may show anything of the model), or the histories shown or not.
//
// The site is updated where it is: each file is written beside its place and renamed over it (a
// reader opens the old page or the new, whole); pages of new objects first, then the changed
// ones, then the index pages, and the pages of objects gone last, so that a link never leads to a
// page not yet written. The marker says "writing" from the first rename to the last: an update
// that stops half-way (an error, a crash) leaves a site the next publish writes whole, and an
// error here has Publish write it whole at once. Writing only what changed, rather than a copy of
// the site with links to the unchanged files swapped in, is what keeps an update's time that of
// the change and not of the site (200,000 links at 100k elements).
func update(ws *store.Workspace, commit, dir string, known map[string]*archixml.Model) (*Site, error) {
	data, err := os.ReadFile(filepath.Join(dir, SiteMarker))
	if err != nil {
		return nil, nil
	}
	var mk siteMarker
	if json.Unmarshal(data, &mk) != nil || mk.FormatVersion != siteFormat || mk.Writing || mk.Commit == "" ||
		mk.Model != ws.Model || mk.Build == "" || mk.Build != buildID() {
		return nil, nil
	}
	hist, err := ws.HistoryFrom(commit, 0)
	if err != nil {
		return nil, err
	}
	steps := slices.IndexFunc(hist, func(c store.CommitInfo) bool { return c.Hash == mk.Commit })
	if steps < 0 || steps > maxUpdateSteps {
		return nil, nil
	}
	if steps == 0 {
		return &Site{Dir: dir, Commit: commit, Name: "", Incremental: true, model: known[commit]}, nil // the site of this commit already
	}
	models, byCommit, err := lineModels(ws, hist[:steps+1], known)
	if models == nil {
		return nil, err
	}
	old, cur := models[0], models[len(models)-1]
	sh := shapeOf(cur)
	if old.Name() != cur.Name() || !sameObjects(old.Profiles(), sh.profiles) ||
		len(old.DuplicateIDs()) > 0 || len(cur.DuplicateIDs()) > 0 {
		return nil, nil
	}
	if err := loadPages(); err != nil {
		return nil, err
	}
	s := &siteWriter{ws: ws, m: cur, root: dir, pages: sitePages, commit: commit, hist: hist,
		inPlace: true, plans: map[string][2]string{}, keep: mk.Plans, models: byCommit,
		site: Site{Dir: dir, Commit: commit, Name: cur.Name(), Incremental: true}}
	on, err := s.historyOn()
	if err != nil || on != mk.History {
		return nil, err
	}
	var logged []string
	for i := 1; on && i < len(models); i++ {
		logged = append(logged, ledger.ChangedObjects(models[i-1], models[i])...)
	}
	was, is := differing(old, cur)
	added, changed, removed := affected(old, cur, was, is, logged)
	mk.Writing = true // of the previous commit still, until the last file is in place
	if err := s.writeMarker(mk); err != nil {
		return nil, err
	}
	for _, ids := range [][]string{added, changed} {
		s.start()
		err := s.objectPages(ids)
		if err := errors.Join(err, s.finish()); err != nil {
			return nil, err
		}
	}
	s.start()
	err = s.overview(sh)
	if err == nil {
		err = s.history()
	}
	if err == nil {
		err = s.searchIndex(old, cur, was, is)
	}
	if err := errors.Join(err, s.finish()); err != nil {
		return nil, err
	}
	for _, p := range removed {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := s.marker(); err != nil {
		return nil, err
	}
	s.site.Pages, s.site.Files, s.site.Bytes, s.site.Removed, s.site.model = int(s.pagesN.Load()), int(s.filesN.Load()), s.bytesN.Load(), len(removed), cur
	return &s.site, nil
}

// lineModels are the models of the line hist (newest first, down to the site's commit), oldest
// first, each blob read once (known: the models of commits read already), and each commit's model
// by commit. nil models: the line cannot be updated (a commit without the model, a label
// expression), or err.
func lineModels(ws *store.Workspace, hist []store.CommitInfo, known map[string]*archixml.Model) ([]*archixml.Model, map[string]*archixml.Model, error) {
	var models []*archixml.Model
	byCommit := map[string]*archixml.Model{}
	blob := ""
	for i := len(hist) - 1; i >= 0; i-- {
		c := hist[i]
		if c.ModelBlob == "" {
			return nil, nil, nil
		}
		if c.ModelBlob != blob {
			m, ok := known[c.Hash]
			if !ok {
				data, err := modelBytes(ws, c, i == 0)
				if err != nil {
					return nil, nil, err
				}
				if bytes.Contains(data, []byte(`"labelExpression"`)) {
					return nil, nil, nil
				}
				if m, err = archixml.LoadOwned(data); err != nil { // data is the model's own: nothing else holds it
					return nil, nil, err
				}
				modelsRead.Add(1)
			} // a model a Publisher kept holds no label expression (publishWhole keeps no other)
			models, blob = append(models, m), c.ModelBlob
		}
		byCommit[c.Hash] = models[len(models)-1]
	}
	return models, byCommit, nil
}

// modelsRead counts the models updates read (for the tests: a Publisher's are read once).
var modelsRead atomic.Int64

// modelBytes are the bytes of the model of commit c: when worktree says to try, the work tree's
// file if it is that very blob (HEAD's, as after an apply: hashing it takes a fraction of
// inflating the blob from git), otherwise the blob.
func modelBytes(ws *store.Workspace, c store.CommitInfo, worktree bool) ([]byte, error) {
	if worktree {
		if data, same, err := ws.WorkTreeModel(c.ModelBlob); err == nil && same() {
			return data, nil
		}
	}
	data, _, err := ws.ModelAt(c.Hash)
	return data, err
}

// objectPages writes the pages of the objects with these ids.
func (s *siteWriter) objectPages(ids []string) error {
	for _, id := range ids {
		o, ok := s.m.Object(id)
		if !ok {
			continue
		}
		var err error
		switch o.Kind() {
		case archixml.KindElement, archixml.KindRelationship:
			err = s.concept(o)
		case archixml.KindView:
			err = s.view(o)
		case archixml.KindFolder:
			err = s.folder(o)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// affected are the pages an update writes: of the objects new at cur (added), of those whose page
// shows something that differs between old and cur or whose history grew (changed, logged: the
// ids the commits between added entries to), by id, and the pages of objects gone (removed, by
// path). What a page shows, and so what it depends on:
//
//   - an element's or relationship's page: the object itself (its bytes in the model), its
//     folders' names (crumbs), the names and types of its relationships and of their other ends,
//     or of its source and target, and the views showing it with their folders' paths;
//   - a view's page: the view itself (its picture and what it shows), the names and types of the
//     concepts drawn on it (the picture draws them, the list names them) and of the views its
//     references name, its folders' names;
//   - a folder's page: its names, words and children in order, the children's names and types,
//     its folders' names.
//
// So an object whose bytes changed has its page written, and the pages of the views showing it;
// a relationship's, the pages of its ends too; an object whose name, type, folder or existence
// changed (its label), the pages of those that name it: its folder, its relationships and their
// ends, the concepts a view shows and the views referring to it, every page under a folder.
func affected(old, cur *archixml.Model, was, is []archixml.Object, logged []string) (added, changed, removed []string) {
	own, label := map[string]bool{}, map[string]bool{}
	for _, o := range is {
		id := o.ID()
		p, ok := old.Object(id)
		switch {
		case id == "":
		case !ok || p.Kind() != o.Kind():
			own[id], label[id] = true, true
			added = append(added, id)
		case !sameLabel(p, o):
			own[id], label[id] = true, true
		case !sameOwn(p, o):
			own[id] = true
		}
	}
	for _, o := range was {
		id := o.ID()
		if n, ok := cur.Object(id); id != "" && (!ok || n.Kind() != o.Kind()) {
			own[id], label[id] = true, true
			if p, now := pageDir(o.Kind())+"/"+siteFile(id)+".html", pageOf(cur, id); now != p {
				removed = append(removed, p)
			}
		}
	}
	write := map[string]bool{}
	mark := func(id string) {
		if _, ok := pathIn(cur, id); ok {
			write[id] = true
		}
	}
	for id := range own {
		mark(id)
		for _, m := range []*archixml.Model{old, cur} {
			if o, ok := m.Object(id); ok {
				dependents(m, o, label[id], mark)
			}
		}
		if ov, ok := old.Object(id); ok && !label[id] && ov.Kind() == archixml.KindView {
			// the view's contents changed: the concepts it now shows or no longer does
			nv, _ := cur.Object(id)
			was, is := shownOn(ov), shownOn(nv)
			for c := range was {
				if !is[c] {
					mark(c)
				}
			}
			for c := range is {
				if !was[c] {
					mark(c)
				}
			}
		}
	}
	for _, id := range logged {
		mark(id)
	}
	for _, id := range added {
		delete(write, id)
	}
	for id := range write {
		changed = append(changed, id)
	}
	sort.Strings(changed)
	return added, changed, removed
}

// pageOf is the page of the object with id in m ("" when it has none).
func pageOf(m *archixml.Model, id string) string {
	p, _ := pathIn(m, id)
	return p
}

// maxSpliced is the most entries of the search index an update writes in place; beyond, it
// writes the index from the model.
const maxSpliced = 64

// searchIndex writes the search index of cur over the previous site's, of old (was and is: the
// objects of each that differ). When no object with a page came or went, moved to another parent
// or to another place among its siblings (each that differs under the same parent, with the same
// children in the same order, the top folders the same), the entries are in the same order, and
// only those of objects whose name or type changed are written anew, in place in the file the
// previous site wrote; otherwise the index is made from the whole model (a walk of every object,
// and the index's JSON, a tenth of an update's time at 100,000 elements).
func (s *siteWriter) searchIndex(old, cur *archixml.Model, was, is []archixml.Object) error {
	js, ok := spliceIndex(filepath.Join(s.root, filepath.FromSlash(searchIndexFile)), old, cur, was, is)
	if ok && js == nil {
		return nil
	}
	if !ok {
		_, index := pagePaths(cur)
		var err error
		if js, err = searchIndex(index); err != nil {
			return err
		}
	}
	return s.file(searchIndexFile, js)
}

// spliceIndex is the search index file at file (of old) with the entries of the objects of is
// whose name or type changed written anew, when nothing else of it differs (see searchIndex), nil
// when no entry changed; false when it cannot be sure.
func spliceIndex(file string, old, cur *archixml.Model, was, is []archixml.Object) ([]byte, bool) {
	if !sameChildren(old.Root(), cur.Root()) {
		return nil, false
	}
	for _, o := range was {
		if n, ok := cur.Object(o.ID()); !ok || n.Kind() != o.Kind() {
			return nil, false // gone
		}
	}
	type splice struct {
		at, n int
		entry []byte
	}
	var edits []splice
	var data []byte
	for _, o := range is {
		id := o.ID()
		p, ok := old.Object(id)
		if !ok || p.Kind() != o.Kind() || !sameChildren(p, o) {
			return nil, false // new, or its children otherwise
		}
		pa, _ := p.Parent()
		pb, _ := o.Parent()
		if !pa.Valid() || !pb.Valid() || pa.ID() == "" || pa.ID() != pb.ID() {
			return nil, false // moved (or under no object named by an id)
		}
		path, ok := pathIn(cur, id)
		if was, _ := pathIn(old, id); !ok || was != path {
			return nil, false
		}
		before, _ := json.Marshal(indexEntry(p, path))
		after, _ := json.Marshal(indexEntry(o, path))
		if bytes.Equal(before, after) {
			continue
		}
		if len(edits) == maxSpliced {
			return nil, false
		}
		if data == nil {
			var err error
			if data, err = os.ReadFile(file); err != nil || !bytes.HasPrefix(data, []byte(searchIndexHead)) ||
				!bytes.HasSuffix(data, []byte(searchIndexTail)) {
				return nil, false
			}
		}
		// the entry is found by its page, which no other entry names, in its quotes (escaped in
		// any string): the quoted page and the "]" after it are found once, after the entry's
		// other bytes (a needle of at most 64 bytes is found at the speed of memory)
		tail, _ := json.Marshal(path)
		tail = append(tail, ']')
		end := bytes.Index(data, tail) + len(tail)
		at := end - len(before)
		if end < len(tail) || at < 0 || !bytes.Equal(data[at:end], before) || bytes.Contains(data[end:], tail) {
			return nil, false
		}
		edits = append(edits, splice{at, len(before), after})
	}
	if data == nil {
		return nil, true // no entry changed: the file stays as it is
	}
	slices.SortFunc(edits, func(a, b splice) int { return a.at - b.at })
	out := make([]byte, 0, len(data)+64*len(edits))
	last := 0
	for _, e := range edits {
		if e.at < last {
			return nil, false
		}
		out = append(append(out, data[last:e.at]...), e.entry...)
		last = e.at + e.n
	}
	return append(out, data[last:]...), true
}

// sameChildren: a and b have the same children (objects, by id and kind) in the same order.
func sameChildren(a, b archixml.Object) bool {
	return slices.EqualFunc(a.Children(), b.Children(), func(x, y archixml.Object) bool {
		return x.ID() != "" && x.ID() == y.ID() && x.Kind() == y.Kind()
	})
}

// differing are the objects with a page of old (was) and of cur (is) that are not, byte for byte,
// the same object under a parent of the same id in the other model: the two models walked side
// by side from their roots, as diff.Models walks them, a folder the same in both skipped with
// everything under it (an object's name, type, bytes and parent's id are all an update compares,
// and an object of such a folder has the same). The rest of affected looks at these only, not at
// every object of both models (a second at 100,000 elements). Ids are unique in both (update
// checks): an object moved elsewhere is on both lists, and found in the other model by its id.
func differing(old, cur *archixml.Model) (was, is []archixml.Object) {
	var under func(o archixml.Object, list *[]archixml.Object)
	under = func(o archixml.Object, list *[]archixml.Object) {
		if pageDir(o.Kind()) != "" {
			*list = append(*list, o)
		}
		if o.Kind() == archixml.KindView {
			return // a view holds diagram objects and connections only
		}
		for _, c := range o.Children() {
			under(c, list)
		}
	}
	var children func(b, a archixml.Object, force bool)
	both := func(b, a archixml.Object, force bool) {
		if !force && same(b, a) {
			return
		}
		if b.Kind() != archixml.KindFolder || a.Kind() != archixml.KindFolder {
			under(b, &was)
			under(a, &is)
			return
		}
		was, is = append(was, b), append(is, a)
		children(b, a, false)
	}
	children = func(b, a archixml.Object, force bool) {
		bk, ak := b.Children(), a.Children()
		i := 0
		for ; i < len(bk) && i < len(ak) && bk[i].ID() != "" && bk[i].ID() == ak[i].ID(); i++ {
			both(bk[i], ak[i], force)
		}
		bk, ak = bk[i:], ak[i:]
		if len(bk) == 0 && len(ak) == 0 {
			return
		}
		byID := make(map[string]archixml.Object, len(bk))
		for _, o := range bk {
			if o.ID() != "" {
				byID[o.ID()] = o
			}
		}
		for _, o := range ak {
			if p, ok := byID[o.ID()]; ok && o.ID() != "" {
				both(p, o, force)
				delete(byID, o.ID())
			} else {
				under(o, &is)
			}
		}
		for _, o := range bk {
			if _, ok := byID[o.ID()]; ok || o.ID() == "" {
				under(o, &was)
			}
		}
	}
	// a top-level folder's parent is the model: another model id is another parent for each
	children(old.Root(), cur.Root(), old.ID() != cur.ID())
	return was, is
}

// same: an object is byte for byte the same in both models (by its bytes in the file when
// neither was edited; by its XML otherwise, a folder never).
func same(b, a archixml.Object) bool {
	if bs, ok := b.Original(); ok {
		if as, ok := a.Original(); ok {
			return bs == as
		}
	}
	return a.Kind() != archixml.KindFolder && b.Kind() != archixml.KindFolder && b.XML() == a.XML()
}

// pageDir is the folder of the pages of objects of kind k ("" when they have none).
func pageDir(k archixml.Kind) string {
	for _, pk := range pageKinds {
		if pk.kind == k {
			return pk.dir
		}
	}
	return ""
}

// dependents marks the pages of m that show something of o: its picture's views, a
// relationship's ends, and when its label changed, every page that names it.
func dependents(m *archixml.Model, o archixml.Object, labelChanged bool, mark func(string)) {
	id := o.ID()
	k := o.Kind()
	if k == archixml.KindElement || k == archixml.KindRelationship {
		for _, r := range m.ReferencesTo(id) {
			if v, ok := r.View(); ok {
				mark(v.ID())
			}
		}
		if k == archixml.KindRelationship {
			mark(o.SourceID())
			mark(o.TargetID())
		}
	}
	if !labelChanged {
		return
	}
	if p, ok := o.Parent(); ok {
		mark(p.ID())
	}
	switch k {
	case archixml.KindElement, archixml.KindRelationship:
		for _, r := range m.RelationshipsOf(id) {
			mark(r.ID())
			mark(r.SourceID())
			mark(r.TargetID())
		}
	case archixml.KindView:
		for c := range shownOn(o) {
			mark(c)
		}
		for _, v := range m.Views() {
			for _, d := range v.DiagramObjects() {
				if d.Attr("model") == id {
					mark(v.ID())
				}
			}
		}
	case archixml.KindFolder:
		var under func(f archixml.Object)
		under = func(f archixml.Object) {
			for _, c := range f.Children() {
				mark(c.ID())
				switch c.Kind() {
				case archixml.KindFolder:
					under(c)
				case archixml.KindView:
					for s := range shownOn(c) {
						mark(s) // its list of views names the view's folders
					}
				}
			}
		}
		under(o)
	}
}

// shownOn are the ids of the concepts a view draws.
func shownOn(v archixml.Object) map[string]bool {
	out := map[string]bool{}
	for _, list := range [][]archixml.Object{v.DiagramObjects(), v.Connections()} {
		for _, d := range list {
			if c, ok := d.Concept(); ok {
				out[c.ID()] = true
			}
		}
	}
	return out
}

// sameLabel: what other pages show of an object is the same in both models: name, type, folder.
func sameLabel(a, b archixml.Object) bool {
	pa, _ := a.Parent()
	pb, _ := b.Parent()
	return a.Name() == b.Name() && a.Class() == b.Class() && pa.Valid() == pb.Valid() && (!pa.Valid() || pa.ID() == pb.ID())
}

// sameOwn: the object is the same in both models: its bytes, or a folder's page's own contents
// (its bytes hold every object under it).
func sameOwn(a, b archixml.Object) bool {
	if a.Kind() != archixml.KindFolder {
		return bytesOf(a) == bytesOf(b)
	}
	if a.Name() != b.Name() || a.Attr("type") != b.Attr("type") || a.Documentation() != b.Documentation() ||
		!slices.Equal(a.Properties(), b.Properties()) {
		return false
	}
	ca, cb := a.Children(), b.Children()
	return slices.EqualFunc(ca, cb, func(x, y archixml.Object) bool { return x.ID() == y.ID() && x.Kind() == y.Kind() })
}

// sameObjects: two lists of objects are the same, object by object.
func sameObjects(a, b []archixml.Object) bool {
	return slices.EqualFunc(a, b, func(x, y archixml.Object) bool { return bytesOf(x) == bytesOf(y) })
}

// bytesOf is an object as the model file writes it.
func bytesOf(o archixml.Object) string {
	if s, ok := o.Original(); ok {
		return s
	}
	return o.XML()
}

// buildID names the program that writes a site, so that an update never mixes pages of two
// versions of it: its executable's size and time ("" when unknown: the site is written whole),
// read when the process starts (an executable replaced under a running daemon is another program).
func buildID() string { return thisBuild }

var thisBuild = readBuildID()

func readBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
}
