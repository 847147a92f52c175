// Package publish writes the static site of a model at a commit, from the review page's templates
// (package pages): read-only pages people open without Archi or archiplan.
package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/web/pages"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/internal/lazyre"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// ErrNotSite means a folder publish is asked to write into holds something publish did not write
// (no marker file of its own): it is left as it is.
var ErrNotSite = errors.New("not a folder archiplan publish wrote")

// SiteMarker is the file publish writes at the top of every site: a folder without it is never
// written over.
const SiteMarker = ".archiplan-site"

// Site is what Publish wrote.
type Site struct {
	Dir    string `json:"dir"`
	Name   string `json:"name"` // the model's
	Commit string `json:"commit"`
	Pages  int    `json:"pages"` // HTML pages
	Files  int    `json:"files"` // every file, pages included
	Bytes  int64  `json:"bytes"`
	// Incremental: only the pages that differ from the site's previous commit were written (Pages,
	// Files and Bytes count what was written, Removed the pages deleted)
	Incremental bool `json:"incremental,omitempty"`
	Removed     int  `json:"removed,omitempty"`

	model *archixml.Model // the model of Commit, when this publish read it (for a Publisher)
}

// siteMarker is what the marker file holds: the commit the site is of, and what an update of the
// site to a later commit needs to know of how it was written (see update).
type siteMarker struct {
	FormatVersion int    `json:"format_version"`
	Commit        string `json:"commit"`
	Model         string `json:"model"`
	Build         string `json:"build,omitempty"`   // the program that wrote it (buildID)
	History       bool   `json:"history,omitempty"` // the objects' pages carry their histories
	// Writing: an update began writing into the site and has not finished; the next publish
	// writes it whole
	Writing bool `json:"writing,omitempty"`
	// Plans: each applied plan's page as written, by its commit: a digest of what it shows, and
	// its link ("" when its archive could not be read)
	Plans map[string][2]string `json:"plans,omitempty"`
}

// siteFormat is the marker's FormatVersion: 2, the marker says what an update needs.
const siteFormat = 2

// The site's layout: one folder per kind of page, each page one level down, so that every link
// between them is "../kind/file.html" and the site works from any folder and from file://.
const (
	siteElements = "e"
	siteRels     = "r"
	siteViews    = "v"
	siteFolders  = "f"
	sitePlans    = "h"
)

var (
	sitePagesOnce sync.Once
	sitePages     *pages.Pages
	sitePagesErr  error
)

// Publish writes the review page's read-only pages for the model at commit (a full hash) as a
// static site in dir: an index, every view as its picture with each object linked to its page, a
// page per element, relationship and folder, a client-side search, and the history of applied
// and reverted plans with their previews. Nothing in it loads from outside the site, every page
// carries a strict Content-Security-Policy, and every text from the model or a plan is escaped.
//
// The site is written into a temporary folder beside dir and renamed over it: an error leaves
// dir as it was. A dir that exists must be empty or hold SiteMarker (ErrNotSite otherwise). When
// dir holds the site of an earlier commit of the same line, written by this program, only the
// pages that differ are written (update); anything unsure writes the site whole.
func Publish(ws *store.Workspace, commit, dir string) (*Site, error) {
	return publish(ws, commit, dir, nil)
}

// publish is Publish with the models of commits read already (known, by commit; read only).
func publish(ws *store.Workspace, commit, dir string, known map[string]*archixml.Model) (*Site, error) {
	dir = filepath.Clean(dir)
	if err := checkSiteDir(dir); err != nil {
		return nil, err
	}
	if site, err := update(ws, commit, dir, known); err == nil && site != nil {
		return site, nil
	}
	return publishWhole(ws, commit, dir)
}

// Publisher publishes into one folder again and again, as the daemon does after each apply: it
// keeps the model of the commit it last published (read only, as publish read it), which the next
// update compares with instead of reading and parsing it again (a third of an update's time; the
// cost is that model's memory between two publishes).
//
// Given the ledger's Replay (Replays), it keeps a second copy of that model too, and when the
// commit to publish is one the ledger made on top of the last one, it applies the ledger's plan
// to the copy instead of parsing the commit's model (parsing was two thirds of an update's time
// at 100,000 elements, more than the apply took): the copy, compared with the ledger's bytes of
// the commit (themselves its blob), is the new model, and after the update the kept model is
// brought to the same commit the same way, the copy for the next time. Anything else (a
// colleague's commit, a sync, a revert, a restart, a copy that does not give the commit's bytes)
// is read from git as before, and the model it replaced brought forward to be the copy.
type Publisher struct {
	ws      *store.Workspace
	dir     string
	last    map[string]*archixml.Model // one entry: the last site's commit and its model
	spare   *archixml.Model            // another model of last's commit, for replays
	replays func(commit string) (ledger.Replay, bool)
}

// NewPublisher is a Publisher of ws's model into dir.
func NewPublisher(ws *store.Workspace, dir string) *Publisher {
	return &Publisher{ws: ws, dir: dir}
}

// Replays has the Publisher ask replay what made each commit it publishes (ledger.Ledger.Replay,
// of a ledger of the same workspace).
func (p *Publisher) Replays(replay func(commit string) (ledger.Replay, bool)) { p.replays = replay }

// Publish is Publish into the Publisher's folder.
func (p *Publisher) Publish(commit string) (*Site, error) {
	var prev string
	var old *archixml.Model
	for c, m := range p.last {
		prev, old = c, m
	}
	rep, ok := p.replayOf(commit, prev)
	known := p.last
	if ok && p.spare != nil && replayed(p.ws, p.spare, rep) {
		known = map[string]*archixml.Model{prev: old, commit: p.spare}
	}
	site, err := publish(p.ws, commit, p.dir, known)
	p.last, p.spare = nil, nil
	if err == nil && site.model != nil {
		p.last = map[string]*archixml.Model{site.Commit: site.model}
		if ok && site.Commit == commit && old != nil && old != site.model && replayed(p.ws, old, rep) {
			p.spare = old
		}
	}
	return site, err
}

// replayOf is what made commit when a replay can make its model from prev's: the ledger's plan
// applied on prev, commit's first parent, and the bytes it committed commit's blob.
func (p *Publisher) replayOf(commit, prev string) (ledger.Replay, bool) {
	if p.replays == nil || prev == "" {
		return ledger.Replay{}, false
	}
	rep, ok := p.replays(commit)
	if !ok || rep.Parent != prev || rep.Commit != commit || len(rep.Data) == 0 ||
		bytes.Contains(rep.Data, []byte(`"labelExpression"`)) { // a kept model holds none (see lineModels)
		return ledger.Replay{}, false
	}
	info, err := p.ws.Info(commit)
	if err != nil || info.Hash != commit || info.Parent != prev || info.ModelBlob == "" || p.ws.BlobOf(rep.Data) != info.ModelBlob {
		return ledger.Replay{}, false
	}
	return rep, true
}

// replayed applies rep's plan to m, a model of its parent, and reports whether m is then the
// model of rep's commit: the bytes it saves as are the commit's. When not, m is another model now
// (the caller drops it).
func replayed(ws *store.Workspace, m *archixml.Model, rep ledger.Replay) bool {
	opts := rep.Options
	opts.Rules = nil // the rules judged the plan at its apply; they change nothing of the model
	if _, _, err := plans.Apply(rep.Plan, m, opts); err != nil {
		return false
	}
	replays.Add(1)
	return m.SavesAs(rep.Data)
}

// replays counts the plans Publishers applied to their models (for the tests).
var replays atomic.Int64

// PublishWhole is Publish without the update: the site is written whole and swapped in (a page
// changed or removed by hand since it was written is written again).
func PublishWhole(ws *store.Workspace, commit, dir string) (*Site, error) {
	dir = filepath.Clean(dir)
	if err := checkSiteDir(dir); err != nil {
		return nil, err
	}
	return publishWhole(ws, commit, dir)
}

// publishWhole writes the site of commit whole, into a folder beside dir swapped in.
func publishWhole(ws *store.Workspace, commit, dir string) (*Site, error) {
	data, ok, err := ws.ModelAt(commit)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no %s at %s: %w", ws.Model, store.Short(commit), store.ErrModelNotCommitted)
	}
	m, err := archixml.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", ws.Model, store.Short(commit), err)
	}
	hist, err := ws.HistoryFrom(commit, 0)
	if err != nil {
		return nil, err
	}
	if err := loadPages(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".publish-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // gone once renamed; the half-written site on an error
	s := &siteWriter{ws: ws, m: m, root: tmp, pages: sitePages, commit: commit, hist: hist,
		plans: map[string][2]string{}, site: Site{Dir: dir, Commit: commit, Name: m.Name()}}
	s.start()
	err = s.write()
	if err := errors.Join(err, s.finish()); err != nil {
		return nil, err
	}
	s.site.Pages, s.site.Files, s.site.Bytes = int(s.pagesN.Load()), int(s.filesN.Load()), s.bytesN.Load()
	if !bytes.Contains(data, []byte(`"labelExpression"`)) {
		s.site.model = m // a model an update may compare with (update refuses label expressions)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	if err := swapDir(tmp, dir); err != nil {
		return nil, err
	}
	return &s.site, nil
}

func loadPages() error {
	sitePagesOnce.Do(func() { sitePages, sitePagesErr = pages.Load() })
	return sitePagesErr
}

// checkSiteDir refuses a dir publish did not make: a link, a file, or a folder with files but no
// marker.
func checkSiteDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %w (%s)", dir, ErrNotSite, inbox.KindOfMode(fi.Mode()))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	mk, err := os.Lstat(filepath.Join(dir, SiteMarker))
	if err != nil || !mk.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: it holds files and no %s; publish into a new or empty folder", dir, ErrNotSite, SiteMarker)
	}
	return nil
}

// swapDir puts the folder tmp where dir is: the old site is moved aside, the new one renamed in,
// the old one removed. Between the two renames dir is missing for a moment, never half-written.
func swapDir(tmp, dir string) error {
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// siteWriter writes one site.
type siteWriter struct {
	ws      *store.Workspace
	m       *archixml.Model
	root    string
	pages   *pages.Pages
	commit  string
	hist    []store.CommitInfo
	paths   map[string]string // object id -> its page, from the site's root ("e/id.html"); nil: pathOf looks them up
	index   [][3]string       // the search index: name, type, page
	site    Site
	objLogs siteObjectLogs
	// inPlace: the site is updated where it is (update), each file written beside its place and
	// renamed over it
	inPlace bool
	plans   map[string][2]string       // the marker's Plans: written, or kept from the previous site
	keep    map[string][2]string       // update: the previous site's Plans
	models  map[string]*archixml.Model // update: the models it read, by commit (the index need not read them again)

	// the pages are drawn and written by one worker per processor: the model is read by the
	// writer's goroutine only, each page's data made whole before it is handed over
	jobs                   chan pageJob
	wg                     sync.WaitGroup
	errMu                  sync.Mutex
	err                    error
	pagesN, filesN, bytesN atomic.Int64
}

// pageJob is one page to draw and write.
type pageJob struct {
	rel, tmpl, title, nav, base string
	data                        any
}

func (s *siteWriter) start() {
	s.jobs = make(chan pageJob, 64)
	for range runtime.GOMAXPROCS(0) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			var buf bytes.Buffer
			for j := range s.jobs {
				if s.failed() == nil {
					s.fail(s.draw(&buf, j))
				}
			}
		}()
	}
}

// finish waits for the pages handed over, and returns the first error.
func (s *siteWriter) finish() error {
	close(s.jobs)
	s.wg.Wait()
	return s.failed()
}

func (s *siteWriter) fail(err error) {
	if err == nil {
		return
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

func (s *siteWriter) failed() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// siteLink is one link of a list: to a page, with its name, type and a note.
type siteLink struct {
	Href, Name, Type, Note string
}

// sitePage is what a page of the model shows (fields unused by a kind stay empty).
type sitePage struct {
	ID, Name, Type, Doc, Viewpoint string
	Specializations                []string // an element's or relationship's, by name
	Crumbs                         []siteLink
	Props, Attrs                   []archixml.Property
	Source, Target                 *siteLink
	Out, In, Views, Shown, Folders []siteLink
	History                        []siteObjectLog // an element's or relationship's commits
}

// shownPage is what every page of an object shows of it, its words as a page shows a model's
// text: every character a person cannot see written as its code (hidden.Show; a documentation
// keeps its lines), as the preview, the pictures and the review page write it.
func shownPage(o archixml.Object) sitePage {
	p := sitePage{ID: hidden.Show(o.ID()), Name: hidden.Show(o.Name()), Type: typeLabel(o), Doc: hidden.ShowLines(o.Documentation())}
	for _, pr := range o.Properties() {
		p.Props = append(p.Props, archixml.Property{Key: hidden.Show(pr.Key), Value: hidden.ShowLines(pr.Value)})
	}
	return p
}

// plainID: an id of 1 to 100 letters, digits, '-' and '_' (ASCII), which a file may be named by.
func plainID(id string) bool {
	if len(id) == 0 || len(id) > 100 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// siteFile is the file name of an id's page: the id itself when it is plainly safe, otherwise a
// hash of it (with a dot, which no plain id holds, so the two never meet).
func siteFile(id string) string {
	if plainID(id) {
		return id
	}
	h := sha256.Sum256([]byte(id))
	return "h." + hex.EncodeToString(h[:16])
}

// FileName is siteFile for the site's readers (a test that opens a view's page, say).
func FileName(id string) string { return siteFile(id) }

// up is the base of a page one folder down.
const up = ".."

// pageKinds are the kinds of objects with a page, and the folder of each.
var pageKinds = []struct {
	kind archixml.Kind
	dir  string
}{{archixml.KindElement, siteElements}, {archixml.KindRelationship, siteRels}, {archixml.KindView, siteViews}, {archixml.KindFolder, siteFolders}}

// pagePaths are the pages of a model's objects, by id ("e/id.html"), and the search index: what
// the search finds, every element, relationship, view and folder with a page, by name, type and
// page (one walk of the model for both).
func pagePaths(m *archixml.Model) (map[string]string, [][3]string) {
	// one walk of the model for the four kinds, each listed in the order of the file (as All)
	var objs [4][]archixml.Object
	var walk func(o archixml.Object)
	walk = func(o archixml.Object) {
		k := o.Kind()
		for i, pk := range pageKinds {
			if pk.kind == k && o.ID() != "" {
				objs[i] = append(objs[i], o)
			}
		}
		if k == archixml.KindView {
			return // a view holds diagram objects and connections only
		}
		for _, c := range o.Children() {
			walk(c)
		}
	}
	walk(m.Root())
	n := 0
	for _, list := range objs {
		n += len(list)
	}
	paths := make(map[string]string, n)
	for i, list := range objs {
		for _, o := range list {
			paths[o.ID()] = pageKinds[i].dir + "/" + siteFile(o.ID()) + ".html"
		}
	}
	index := make([][3]string, 0, n)
	for _, list := range objs {
		for _, o := range list {
			index = append(index, indexEntry(o, paths[o.ID()]))
		}
	}
	return paths, index
}

// indexEntry is an object's entry in the search index: its name as a page shows it (hidden.Show),
// its type and its page. A whole publish and an update's splice write entries by it alone.
func indexEntry(o archixml.Object, page string) [3]string {
	return [3]string{hidden.Show(o.Name()), typeLabel(o), page}
}

// pathOf is the page of the object with id, from the site's root: from paths when the whole site
// is written, otherwise looked up in the model (an update looks up the pages it links to, not
// those of the whole model).
func (s *siteWriter) pathOf(id string) (string, bool) {
	if s.paths != nil {
		p, ok := s.paths[id]
		return p, ok
	}
	return pathIn(s.m, id)
}

// pagePath is the page of the object with id ("" when it has none).
func (s *siteWriter) pagePath(id string) string {
	p, _ := s.pathOf(id)
	return p
}

// pathIn is the page of the object with id in m, as pagePaths finds it: an object with an id, of
// a kind with a page, under no view (pagePaths does not walk into views).
func pathIn(m *archixml.Model, id string) (string, bool) {
	o, ok := m.Object(id)
	if !ok || id == "" {
		return "", false
	}
	dir := pageDir(o.Kind())
	if dir == "" {
		return "", false
	}
	for p, ok := o.Parent(); ok; p, ok = p.Parent() {
		if p.Kind() == archixml.KindView {
			return "", false
		}
	}
	return dir + "/" + siteFile(id) + ".html", true
}

func (s *siteWriter) write() error {
	for _, dir := range []string{siteElements, siteRels, siteViews, siteFolders, sitePlans, "static"} {
		if err := os.Mkdir(filepath.Join(s.root, dir), 0o755); err != nil {
			return err
		}
	}
	s.paths, s.index = pagePaths(s.m)
	for _, o := range s.m.Elements() {
		if err := s.concept(o); err != nil {
			return err
		}
	}
	for _, o := range s.m.Relationships() {
		if err := s.concept(o); err != nil {
			return err
		}
	}
	sh := shapeOf(s.m)
	for _, v := range sh.views {
		if err := s.view(v); err != nil {
			return err
		}
	}
	for _, f := range s.m.Folders() {
		if err := s.folder(f); err != nil {
			return err
		}
	}
	if err := s.overview(sh); err != nil {
		return err
	}
	if err := s.history(); err != nil {
		return err
	}
	if err := s.statics(true); err != nil {
		return err
	}
	return s.marker()
}

// marker writes the marker file of the site's commit.
func (s *siteWriter) marker() error {
	on, err := s.historyOn()
	if err != nil {
		return err
	}
	return s.writeMarker(siteMarker{FormatVersion: siteFormat, Commit: s.commit, Model: s.ws.Model, Build: buildID(), History: on, Plans: s.plans})
}

func (s *siteWriter) writeMarker(mk siteMarker) error {
	data, _ := json.MarshalIndent(mk, "", " ")
	return s.file(SiteMarker, append(data, '\n'))
}

// link is the link from a page one folder down to the object with id ("" when it has no page).
func (s *siteWriter) link(id string) string {
	if p, ok := s.pathOf(id); ok {
		return up + "/" + p
	}
	return ""
}

func (s *siteWriter) linkTo(o archixml.Object, note string) siteLink {
	return siteLink{Href: s.link(o.ID()), Name: hidden.Show(o.Name()), Type: typeLabel(o), Note: hidden.Show(note)}
}

// typeLabel is a concept's type as people read it, as the review page says it.
var typeLabel = pages.TypeLabel

// crumbs are the links from the model down through the folders holding o.
func (s *siteWriter) crumbs(o archixml.Object, base string) []siteLink {
	var out []siteLink
	for p, ok := o.Parent(); ok && p.Kind() == archixml.KindFolder; p, ok = p.Parent() {
		pp, _ := s.pathOf(p.ID())
		out = append(out, siteLink{Href: base + "/" + pp, Name: hidden.Show(p.Name())})
	}
	out = append(out, siteLink{Href: base + "/index.html", Name: hidden.Show(s.m.Name())})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// viewsShowing are the views on which the concept with id is drawn, once each.
func (s *siteWriter) viewsShowing(id string) []siteLink {
	var out []siteLink
	seen := map[string]bool{}
	for _, r := range s.m.ReferencesTo(id) {
		if v, ok := r.View(); ok && !seen[v.ID()] {
			seen[v.ID()] = true
			out = append(out, s.linkTo(v, v.FolderPath()))
		}
	}
	return out
}

// relAttrs are the attributes of a relationship a person reads beside its name.
var relAttrs = []string{"accessType", "strength", "directed"}

func (s *siteWriter) concept(o archixml.Object) error {
	id := o.ID()
	if id == "" {
		return nil
	}
	p := shownPage(o)
	p.Crumbs, p.Views = s.crumbs(o, up), s.viewsShowing(id)
	for _, pid := range o.ProfileIDs() {
		if sp, ok := o.Model().Object(pid); ok && sp.Name() != "" {
			p.Specializations = append(p.Specializations, hidden.Show(sp.Name()))
		}
	}
	if o.Kind() == archixml.KindRelationship {
		end := func(e archixml.Object, ok bool, ref string) *siteLink {
			if !ok {
				return &siteLink{Name: hidden.Show(ref), Type: "missing"}
			}
			l := s.linkTo(e, "")
			return &l
		}
		src, sok := o.Source()
		tgt, tok := o.Target()
		p.Source, p.Target = end(src, sok, o.SourceID()), end(tgt, tok, o.TargetID())
		for _, k := range relAttrs {
			if v := o.Attr(k); v != "" {
				p.Attrs = append(p.Attrs, archixml.Property{Key: k, Value: hidden.Show(v)})
			}
		}
	} else {
		for _, r := range s.m.RelationshipsOf(id) {
			if r.SourceID() == id {
				other, _ := r.Target()
				p.Out = append(p.Out, siteLink{Href: s.link(r.ID()), Name: relName(r, other), Type: typeLabel(r), Note: "to " + typeLabel(other)})
			}
			if r.TargetID() == id {
				other, _ := r.Source()
				p.In = append(p.In, siteLink{Href: s.link(r.ID()), Name: relName(r, other), Type: typeLabel(r), Note: "from " + typeLabel(other)})
			}
		}
	}
	var err error
	if p.History, err = s.objectHistory(id); err != nil {
		return err
	}
	return s.page(s.pagePath(id), "site_concept", p.Name, "model", up, struct{ P sitePage }{p})
}

// relName names a relationship in a list by what is at its other end (and its own name), as a
// page shows names (hidden.Show).
func relName(r, other archixml.Object) string { return hidden.Show(relNameOf(r, other)) }

func relNameOf(r, other archixml.Object) string {
	n := other.Name()
	if other.Valid() && n == "" {
		n = "(no name)"
	}
	if !other.Valid() {
		n = "(missing)"
	}
	if r.Name() != "" {
		return r.Name() + ": " + n
	}
	return n
}

func (s *siteWriter) view(v archixml.Object) error {
	id := v.ID()
	if id == "" {
		return nil
	}
	p := shownPage(v)
	p.Crumbs = s.crumbs(v, up)
	if vp := v.Attr("viewpoint"); vp != "" {
		p.Viewpoint = archixml.ViewpointOf(vp).Name // as Archi shows it, not its id
	}
	seen := map[string]bool{}
	for _, list := range [][]archixml.Object{v.DiagramObjects(), v.Connections()} {
		for _, d := range list {
			if c, ok := d.Concept(); ok && !seen[c.ID()] {
				seen[c.ID()] = true
				p.Shown = append(p.Shown, s.linkTo(c, ""))
			}
		}
	}
	svg, err := render.ViewWith(s.m, id, render.Options{Link: s.link})
	var pic template.HTML
	if err != nil {
		pic = template.HTML("<p class=\"empty\">This view cannot be drawn: " + template.HTMLEscapeString(err.Error()) + "</p>")
	} else {
		// inlined, so that its links work from file:// too; the namespace is the HTML parser's
		svg = bytes.Replace(svg, []byte(` xmlns="http://www.w3.org/2000/svg"`), nil, 1)
		pic = template.HTML(svg) // #nosec: render escapes every text and attribute it writes
	}
	return s.page(s.pagePath(id), "site_view", p.Name, "views", up, struct {
		P   sitePage
		SVG template.HTML
	}{p, pic})
}

func (s *siteWriter) folder(f archixml.Object) error {
	id := f.ID()
	if id == "" {
		return nil
	}
	p := shownPage(f)
	p.Type, p.Crumbs = "Folder", s.crumbs(f, up)
	for _, c := range f.Children() {
		switch c.Kind() {
		case archixml.KindFolder:
			p.Folders = append(p.Folders, s.linkTo(c, ""))
		case archixml.KindElement, archixml.KindRelationship, archixml.KindView:
			p.Shown = append(p.Shown, s.linkTo(c, ""))
		}
	}
	return s.page(s.pagePath(id), "site_folder", p.Name, "model", up, struct{ P sitePage }{p})
}

// modelShape is what the index pages and an update read of a whole model: its views, its
// specializations, how many elements and relationships it holds, from one walk (each of
// Views, Profiles, Elements and Relationships walks every object: at 100,000 elements five such
// walks were a tenth of an update).
type modelShape struct {
	views, profiles         []archixml.Object // in the order of the file, as All lists them
	elements, relationships int
}

// shapeOf walks m once for its shape (as All does: not into views, which hold none of these).
func shapeOf(m *archixml.Model) modelShape {
	var sh modelShape
	var walk func(o archixml.Object)
	walk = func(o archixml.Object) {
		switch o.Kind() {
		case archixml.KindElement:
			sh.elements++
		case archixml.KindRelationship:
			sh.relationships++
		case archixml.KindProfile:
			sh.profiles = append(sh.profiles, o)
		case archixml.KindView:
			sh.views = append(sh.views, o)
			return
		}
		for _, c := range o.Children() {
			walk(c)
		}
	}
	walk(m.Root())
	return sh
}

// overview writes the index, the list of views and the search page.
func (s *siteWriter) overview(sh modelShape) error {
	views := sh.views
	var when time.Time
	if len(s.hist) > 0 {
		when = s.hist[0].When
	}
	var top []siteLink
	for _, c := range s.m.Root().Children() {
		if c.Kind() == archixml.KindFolder {
			l := s.linkTo(c, "")
			l.Href = strings.TrimPrefix(l.Href, up+"/")
			top = append(top, l)
		}
	}
	type model struct {
		Name, Purpose, Commit          string
		When                           time.Time
		Elements, Relationships, Views int
		Folders                        []siteLink
	}
	md := model{Name: hidden.Show(s.m.Name()), Purpose: hidden.ShowLines(s.m.Purpose()), Commit: s.commit, When: when, Elements: sh.elements,
		Relationships: sh.relationships, Views: len(views), Folders: top}
	if err := s.page("index.html", "site_index", md.Name, "model", ".", struct{ M model }{md}); err != nil {
		return err
	}
	list := make([]siteLink, 0, len(views))
	for _, v := range views {
		if p, ok := s.pathOf(v.ID()); ok {
			list = append(list, siteLink{Href: p, Name: hidden.Show(v.Name()), Note: hidden.Show(v.FolderPath())})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	if err := s.page("views.html", "site_views", "Views", "views", ".", struct{ Links []siteLink }{list}); err != nil {
		return err
	}
	return s.page("search.html", "site_search", "Search", "search", ".", struct{}{})
}

// siteEntry is one line of the site's history.
type siteEntry struct {
	ledger.Entry
	RevertedBy string
	Href       string // its plan's page, when its archive could be read
}

// history writes the history of applied and reverted plans up to the commit, and a page per
// applied plan with the preview the person approved and its pictures, as archived.
func (s *siteWriter) history() error {
	log := ledger.LogOf(s.ws, s.hist)
	reverted := map[string]string{}
	for _, e := range log {
		if e.Reverts != "" {
			reverted[e.Reverts] = e.Commit
		}
	}
	entries := make([]siteEntry, 0, len(log))
	for _, e := range log {
		e.Summary, e.Author = hidden.Show(e.Summary), hidden.Show(e.Author) // a colleague's commit may carry any
		se := siteEntry{Entry: e, RevertedBy: reverted[e.Commit]}
		if e.Kind == ledger.KindApply && e.PlanID != "" {
			href, err := s.planOnce(se)
			if err != nil {
				return err
			}
			se.Href = href
		}
		entries = append(entries, se)
	}
	return s.page("history.html", "site_history", "History", "history", ".", struct {
		Commit  string
		Entries []siteEntry
	}{s.commit, entries})
}

// planOnce writes an applied plan's page unless the previous site holds it as it would be written
// (update), and returns the link to it.
func (s *siteWriter) planOnce(e siteEntry) (string, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:16])
	if k, ok := s.keep[e.Commit]; ok && k[0] == digest {
		s.plans[e.Commit] = k
		return k[1], nil
	}
	href, err := s.plan(e)
	if err != nil {
		return "", err
	}
	s.plans[e.Commit] = [2]string{digest, href}
	return href, nil
}

var safePicture = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\.svg$`)

// plan writes one applied plan's page and pictures, and returns the link to it ("" when its
// archive cannot be read: the history names it all the same).
func (s *siteWriter) plan(e siteEntry) (string, error) {
	a, err := ledger.ReadArchive(s.ws, e.Commit, e.PlanID)
	if err != nil {
		return "", nil
	}
	file := siteFile(e.PlanID)
	known := map[string]string{}
	var pics, leftOut []string
	for _, f := range a.Files {
		// archived without the plan's NAME (view-1.after.svg); the preview names them with it
		name := path.Base(f)
		full := ledger.PlanName(e.PlanID) + "." + name
		if _, kind, _ := inbox.Parse(full); kind != inbox.KindPicture || !safePicture.MatchString(name) {
			continue
		}
		data, ok, err := s.ws.FileAt(e.Commit, f)
		if err != nil || !ok {
			continue
		}
		if !render.Drawn(data) {
			leftOut = append(leftOut, name) // opened on its own from a static host, it could run a script
			continue
		}
		out := file + "--" + name
		if err := s.file(sitePlans+"/"+out, data); err != nil {
			return "", err
		}
		known[full] = out
		pics = append(pics, out)
	}
	used := map[string]bool{}
	// a picture is only ever an image: opened as a document from a static host, an SVG a
	// forged commit put in the archive could run a script in the site's origin
	preview := pages.MarkdownWith(a.Preview, func(dest string, image bool) string {
		if out, ok := known[dest]; ok && image {
			used[out] = true
			return out
		}
		return ""
	})
	var more []string // the pictures its text does not show
	for _, p := range pics {
		if !used[p] {
			more = append(more, p)
		}
	}
	href := sitePlans + "/" + file + ".html"
	return href, s.page(href, "site_plan", "Plan "+e.PlanID, "history", up, struct {
		siteEntry
		Preview  template.HTML
		Pictures []string
		LeftOut  []string
	}{e, preview, more, leftOut})
}

// statics writes the search index, and the style sheet and the script when assets says so (an
// update keeps those of the same program).
func (s *siteWriter) statics(assets bool) error {
	for _, f := range []string{"style.css", "site.js"} {
		if !assets {
			break
		}
		data, err := pages.Asset(f)
		if err != nil {
			return err
		}
		if err := s.file("static/"+f, data); err != nil {
			return err
		}
	}
	js, err := searchIndex(s.index)
	if err != nil {
		return err
	}
	return s.file(searchIndexFile, js)
}

// searchIndexFile is the search index, from the site's root.
const searchIndexFile = "static/search-index.js"

// The search index file is a script around the index's JSON: a page opened from file:// may not
// fetch, but it may load a script; json.Marshal escapes <, > and & and the line separators, so
// the data stays data.
const (
	searchIndexHead = "// the search index of the published site: name, type, page\nwindow.archiplanIndex = "
	searchIndexTail = ";\n"
)

// searchIndex is the search index file of the entries index (name, type, page).
func searchIndex(index [][3]string) ([]byte, error) {
	idx, err := json.Marshal(index)
	if err != nil {
		return nil, err
	}
	return slices.Concat([]byte(searchIndexHead), idx, []byte(searchIndexTail)), nil
}

// page hands one HTML page at rel (from the site's root), whose links start at base, to the
// workers; it returns the first error any of them met.
func (s *siteWriter) page(rel, tmpl, title, nav, base string, data any) error {
	s.jobs <- pageJob{rel: rel, tmpl: tmpl, title: title, nav: nav, base: base, data: data}
	return s.failed()
}

// draw draws and writes one page.
func (s *siteWriter) draw(buf *bytes.Buffer, j pageJob) error {
	buf.Reset()
	c := pages.Common{Title: j.title, Nav: j.nav, Base: j.base, Site: true, Workspace: hidden.Show(s.site.Name)}
	if j.base == "." {
		// the commit on the pages written every time only: an object's page stays the same file
		// until the object or what it shows changes, so that an update writes only those
		c.Model = store.Short(s.commit)
	}
	if err := s.pages.Execute(buf, j.tmpl, struct {
		pages.Common
		D any
	}{c, j.data}); err != nil {
		return fmt.Errorf("publish %s: %w", j.rel, err)
	}
	s.pagesN.Add(1)
	return s.file(j.rel, buf.Bytes())
}

func (s *siteWriter) file(rel string, data []byte) error {
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	if s.inPlace {
		// beside its place and renamed over it: a reader sees the old file or the new, whole
		tmp := filepath.Join(filepath.Dir(p), ".publish-"+filepath.Base(p))
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
	} else if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	s.filesN.Add(1)
	s.bytesN.Add(int64(len(data)))
	return nil
}
