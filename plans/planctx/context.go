// Package planctx builds the planning context: what a planner is given of a model (the allowed
// ops and types, folders, the elements an intent names first and their neighbours, views with
// their contents) within a budget, and what it left out.
package planctx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// ContextFormat is the planning context's schema_version.
const ContextFormat = "2.0"

// DefaultMaxElements is the context's element budget when none is given.
const DefaultMaxElements = 500

// DefaultMaxChars is the context's budget in characters when none is given: about 100,000
// tokens, so that the whole prompt (contract, plan format, context, request) and a re-ask fit a
// model with a 128k-token window, and far below the 1,048,576 characters the Codex app-server
// accepts as one input.
const DefaultMaxChars = 400_000

// viewContentsShare is the part of the character budget that views' contents may take.
const viewContentsShare = 4

var (
	// ErrBadScope means a --scope is not view:ID, folder:PATH or ids:ID,ID....
	ErrBadScope = errors.New("bad scope")
	// ErrContextTooLarge means not even an empty context fits the character budget.
	ErrContextTooLarge = errors.New("CONTEXT_TOO_LARGE")
)

// ContextOptions say what a planning context holds.
type ContextOptions struct {
	Scope       string   // "" (the whole model), "view:ID", "folder:PATH" or "ids:ID,ID,..."
	Intent      string   // the request: what it names, and its neighbours, come first
	MaxElements int      // the element budget; DefaultMaxElements when 0
	MaxChars    int      // the budget of the context's JSON in characters; DefaultMaxChars when 0
	Include     []string // "documentation", "properties"
}

// PlanningContext (ArchiPlanningContext) is what a planner is told of the model: the ids it may
// use, with names, types and folders, the views with what they show, and what it may do. Written
// beside a plan as NAME.context.json, it is also the plan's scope.
type PlanningContext struct {
	SchemaVersion            string                  `json:"schema_version"`
	PlanSchemaVersion        string                  `json:"plan_schema_version"`
	Model                    ContextName             `json:"model"`
	Scope                    string                  `json:"scope"`
	AllowedOps               []string                `json:"allowed_ops"`
	AllowedElementTypes      []string                `json:"allowed_element_types"`
	AllowedRelationshipTypes []string                `json:"allowed_relationship_types"`
	Specializations          []ContextSpecialization `json:"specializations"`
	Folders                  []ContextFolder         `json:"folders"`
	Focus                    []string                `json:"focus"` // the elements the intent names
	Elements                 []ContextElement        `json:"elements"`
	Relationships            []ContextRelationship   `json:"relationships"`
	Views                    []ContextView           `json:"views"`
	Omitted                  ContextOmitted          `json:"omitted"`
}

// ContextName is an object named by id.
type ContextName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ContextElement is one element of a planning context.
type ContextElement struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Type           string            `json:"type"`
	Folder         string            `json:"folder"`
	Specialization string            `json:"specialization,omitempty"`
	Documentation  string            `json:"documentation,omitempty"`
	Properties     map[string]string `json:"properties,omitempty"`
}

// ContextRelationship is one relationship of a planning context.
type ContextRelationship struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Source string `json:"source"`
	Target string `json:"target"`
	Name   string `json:"name,omitempty"`
}

// ContextSpecialization is a specialization (Archi's profile) the model defines.
type ContextSpecialization struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ConceptType string `json:"concept_type"`
}

// ContextFolder is a folder of the model, empty ones too, with the number of elements directly
// in it.
type ContextFolder struct {
	Path     string `json:"path"`
	Elements int    `json:"elements"`
}

// ContextView is a view: every view in scope is listed, with its viewpoint and what it holds
// counted; Contents is set for the views that matter most to the request (the scope's view, the
// views showing what the intent names) while the budget allows.
type ContextView struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Folder    string `json:"folder"`
	Viewpoint string `json:"viewpoint,omitempty"` // Archi's id of the viewpoint (old numbers mapped); none: no viewpoint
	// ViewpointName is the viewpoint as Archi shows it ("None": every element type is allowed)
	ViewpointName string        `json:"viewpoint_name"`
	Objects       int           `json:"objects"` // diagram objects on the view, nested ones included
	Counts        *ViewCounts   `json:"counts,omitempty"`
	Contents      *ViewContents `json:"contents,omitempty"`
}

// ViewContents is what a view shows: its diagram objects (nesting by parent) and connections.
type ViewContents struct {
	Objects     []ViewObject     `json:"objects"`
	Connections []ViewConnection `json:"connections"`
}

// ViewObject is one diagram object: an element's figure, a group, a note or a view reference.
type ViewObject struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`              // element, group, note, reference
	Element string `json:"element,omitempty"` // the element shown
	Name    string `json:"name,omitempty"`
	Type    string `json:"type,omitempty"`
	View    string `json:"view,omitempty"`   // the view a reference opens
	Parent  string `json:"parent,omitempty"` // the diagram object it is nested in
	Bounds  [4]int `json:"bounds"`           // x, y, width, height (-1: Archi's default size)
}

// ViewConnection is one connection on a view, between two diagram objects.
type ViewConnection struct {
	ID           string `json:"id"`
	Relationship string `json:"relationship,omitempty"`
	Source       string `json:"source"`
	Target       string `json:"target"`
}

// ContextOmitted counts what the budget left out, and summarises the elements left out by type
// and by folder, so that no layer disappears without a trace.
type ContextOmitted struct {
	Elements      int          `json:"elements"`
	Relationships int          `json:"relationships"`
	Views         int          `json:"views"`
	ViewContents  int          `json:"view_contents"` // views listed without their contents
	ByType        []CountEntry `json:"by_type"`
	ByFolder      []CountEntry `json:"by_folder"`
}

// CountEntry is a count of omitted elements of one type or in one folder.
type CountEntry struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// UnmarshalJSON reads a context written by JSON.
func (c *PlanningContext) UnmarshalJSON(data []byte) error {
	type plain PlanningContext
	if err := json.Unmarshal(data, (*plain)(c)); err != nil {
		return fmt.Errorf("read planning context: %w", err)
	}
	return nil
}

// JSON is the context as written to NAME.context.json: the same model and options always give
// the same bytes. Lists hold one item a line, which keeps it short and easy to diff. Every value
// is the model's, exact (an id or a name a planner copies back into a plan is the model's), while
// the text holds no character a person cannot see: each is JSON's own escape (hidden.JSON,
// "Desk\u202e"), which the planner reads as a code, never obeys, and a parser turns back into the
// exact value.
func (c *PlanningContext) JSON() []byte { return hidden.JSON(c.json()) }

func (c *PlanningContext) json() []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	scalar(&b, "schema_version", c.SchemaVersion)
	scalar(&b, "plan_schema_version", c.PlanSchemaVersion)
	scalar(&b, "model", c.Model)
	scalar(&b, "scope", c.Scope)
	scalar(&b, "allowed_ops", nonNil(c.AllowedOps))
	scalar(&b, "allowed_element_types", nonNil(c.AllowedElementTypes))
	scalar(&b, "allowed_relationship_types", nonNil(c.AllowedRelationshipTypes))
	list(&b, "specializations", c.Specializations)
	list(&b, "folders", c.Folders)
	scalar(&b, "focus", nonNil(c.Focus))
	list(&b, "elements", c.Elements)
	list(&b, "relationships", c.Relationships)
	list(&b, "views", c.Views)
	o := c.Omitted
	fmt.Fprintf(&b, "  \"omitted\": {\n    \"elements\": %d, \"relationships\": %d, \"views\": %d, \"view_contents\": %d,\n",
		o.Elements, o.Relationships, o.Views, o.ViewContents)
	b.WriteString("    \"by_type\": ")
	items(&b, o.ByType, "    ")
	b.WriteString(",\n    \"by_folder\": ")
	items(&b, o.ByFolder, "    ")
	b.WriteString("\n  }\n}\n")
	return b.Bytes()
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// compact is v as one line of JSON, with &, < and > as they are (the context is read by a model,
// not embedded in HTML).
func compact(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func scalar(b *bytes.Buffer, key string, v any) {
	fmt.Fprintf(b, "  %q: %s,\n", key, compact(v))
}

func list[T any](b *bytes.Buffer, key string, s []T) {
	fmt.Fprintf(b, "  %q: ", key)
	items(b, s, "  ")
	b.WriteString(",\n")
}

func items[T any](b *bytes.Buffer, s []T, indent string) {
	if len(s) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[\n")
	for i, v := range s {
		b.WriteString(indent + "  ")
		b.Write(compact(v))
		if i < len(s)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "]")
}

// BuildContext makes the planning context of a model. The elements in scope are ranked: those
// the intent names (by id, or by words in their names, documentation and properties), then their
// neighbours, then what the views showing them show, then the rest taking turns by layer. The
// budget (elements and characters) cuts that ranking; relationships are kept between elements
// kept, views listed where they show an element kept, and what was left out is counted and
// summarised by type and folder.
func BuildContext(m *archixml.Model, o ContextOptions, policy plans.Policy) (*PlanningContext, error) {
	if o.MaxElements <= 0 {
		o.MaxElements = DefaultMaxElements
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	include := map[string]bool{}
	for _, i := range o.Include {
		i = strings.TrimSpace(i)
		if i != "documentation" && i != "properties" {
			return nil, fmt.Errorf("include %q: only documentation and properties: %w", i, ErrBadScope)
		}
		include[i] = true
	}
	all := m.Elements() // read once: the scope's and the folders' counts both need them
	elements, rels, views, err := inScope(m, all, o.Scope)
	if err != nil {
		return nil, err
	}
	b := &builder{m: m, all: all, include: include, keys: map[archixml.Object]*sortKey{},
		folders: map[archixml.Object]string{}, profiles: map[string]string{}, profileList: m.Profiles()}
	for _, p := range b.profileList {
		b.profiles[p.ID()] = p.Name()
	}
	order, focus, focusViews := b.rank(elements, views, o.Intent)
	if o.Scope != "" && strings.HasPrefix(o.Scope, "view:") {
		focusViews = append(views[:1:1], focusViews...)
	}

	n := min(o.MaxElements, len(order))
	for {
		c := b.assemble(o, policy, order, n, focus, rels, views, focusViews, o.MaxChars/viewContentsShare)
		size := len(c.JSON())
		if size <= o.MaxChars {
			return c, nil
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: an empty context takes %d characters, the budget is %d: raise --max-chars or narrow --scope",
				ErrContextTooLarge, size, o.MaxChars)
		}
		// shrink in proportion to the excess, at least by one
		next := int(float64(n) * float64(o.MaxChars) / float64(size) * 0.95)
		n = max(0, min(next, n-1))
	}
}

type builder struct {
	m           *archixml.Model
	all         []archixml.Object // the model's elements, whatever the scope
	include     map[string]bool
	keys        map[archixml.Object]*sortKey // an object's folder, name and id, read once
	folders     map[archixml.Object]string   // a folder's path, computed once
	profiles    map[string]string            // profile id -> name
	profileList []archixml.Object            // the model's profiles, read once
	views       []ContextView                // every view in scope, counted once
	tally       *tally                       // the whole model's counts, the same for every budget
}

// sortKey is what the ranking orders objects by: folder, then name, then id.
type sortKey struct{ folder, name, id string }

// tally is what every budget tried counts alike: the elements directly in each folder, the
// folders, and the ranked elements by type and by folder (the omitted ones are these less the
// ones kept).
type tally struct {
	direct           map[string]int
	folders          []ContextFolder
	byType, byFolder map[string]int
}

func (b *builder) key(o archixml.Object) *sortKey {
	if k, ok := b.keys[o]; ok {
		return k
	}
	k := &sortKey{folder: b.folderPath(o), name: o.Name(), id: o.ID()}
	b.keys[o] = k
	return k
}

// folderPath is o.FolderPath(), each folder's path computed once for all the objects it holds.
func (b *builder) folderPath(o archixml.Object) string {
	if o.Kind() != archixml.KindFolder {
		if p, ok := o.Parent(); ok && p.Kind() == archixml.KindFolder {
			o = p
		} else {
			return o.FolderPath()
		}
	}
	if p, ok := b.folders[o]; ok {
		return p
	}
	p := o.FolderPath()
	b.folders[o] = p
	return p
}

func (b *builder) folder(o archixml.Object) string { return b.key(o).folder }

func (b *builder) less(x, y archixml.Object) bool {
	kx, ky := b.key(x), b.key(y)
	if kx.folder != ky.folder {
		return kx.folder < ky.folder
	}
	if kx.name != ky.name {
		return kx.name < ky.name
	}
	return kx.id < ky.id
}

// sort orders objects by folder, name and id (stable), each one's key read once, here: the
// lists sorted are the layers of the whole model, whose keys are not asked for again (kept in
// b.keys, a map of 100,000 entries, they took a third of the ranking's time).
func (b *builder) sort(list []archixml.Object) {
	type keyed struct {
		o archixml.Object
		k sortKey
		i int
	}
	ks := make([]keyed, len(list))
	for i, o := range list {
		ks[i] = keyed{o, sortKey{folder: b.folderPath(o), name: o.Name(), id: o.ID()}, i}
	}
	// the place in list last: the order of a stable sort, at the cost of an unstable one (a
	// stable sort of 100,000 elements by reflection was a twentieth of a cold context's CPU)
	slices.SortFunc(ks, func(x, y keyed) int {
		if c := strings.Compare(x.k.folder, y.k.folder); c != 0 {
			return c
		}
		if c := strings.Compare(x.k.name, y.k.name); c != 0 {
			return c
		}
		if c := strings.Compare(x.k.id, y.k.id); c != 0 {
			return c
		}
		return x.i - y.i
	})
	for i := range ks {
		list[i] = ks[i].o
	}
}

// count tallies what every budget counts alike, once.
func (b *builder) count(order []archixml.Object) *tally {
	if b.tally != nil {
		return b.tally
	}
	t := &tally{direct: map[string]int{}, byType: map[string]int{}, byFolder: map[string]int{}}
	for _, e := range b.all {
		t.direct[b.folderPath(e)]++
	}
	for _, f := range b.m.Folders() {
		p := b.folderPath(f)
		t.folders = append(t.folders, ContextFolder{Path: p, Elements: t.direct[p]})
	}
	sort.SliceStable(t.folders, func(i, j int) bool { return t.folders[i].Path < t.folders[j].Path })
	for _, e := range order {
		t.byType[e.Type().Label]++
		t.byFolder[b.folderPath(e)]++
	}
	b.tally = t
	return t
}

// stopWords are words of a request that name no part of a model.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "into": true, "from": true, "that": true,
	"this": true, "these": true, "those": true, "its": true, "their": true, "them": true, "they": true,
	"are": true, "was": true, "were": true, "has": true, "have": true, "should": true, "must": true,
	"can": true, "will": true, "all": true, "any": true, "each": true, "every": true, "new": true,
	"add": true, "make": true, "put": true, "create": true, "rename": true, "delete": true, "remove": true,
	"move": true, "set": true, "show": true, "use": true, "uses": true, "using": true, "please": true,
	"relevant": true, "view": true, "what": true, "which": true, "where": true, "when": true,
	"who": true, "how": true, "why": true, "about": true, "our": true, "your": true, "not": true, "model": true, "element": true, "elements": true, "also": true,
}

// words are the lower-case words of a text that may name something: letters and digits, three
// or more, a plural's s dropped.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 3 || stopWords[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}

// rank orders the elements in scope for the budget, and returns the elements the intent names
// and the views showing them (most of them first): the focus, its neighbours, what the views
// showing it show, the weaker matches, then the rest, layers taking turns.
func (b *builder) rank(elements, views []archixml.Object, intent string) (order, focus, focusViews []archixml.Object) {
	focus, weak := b.match(elements, intent)
	// made at their size once: growing them entry by entry was a fifth of the ranking's time at
	// 100k elements
	inScope := make(map[string]bool, len(elements))
	for _, e := range elements {
		inScope[e.ID()] = true
	}
	placed := make(map[string]bool, len(elements))
	place := func(list []archixml.Object) {
		b.sort(list)
		for _, e := range list {
			if !placed[e.ID()] {
				placed[e.ID()] = true
				order = append(order, e)
			}
		}
	}
	for _, e := range focus {
		placed[e.ID()] = true
		order = append(order, e)
	}
	// neighbours of what the intent names
	var near []archixml.Object
	for _, e := range focus {
		for _, r := range b.m.RelationshipsOf(e.ID()) {
			other := r.TargetID()
			if other == e.ID() {
				other = r.SourceID()
			}
			if o, ok := b.m.Object(other); ok && inScope[other] && !placed[other] {
				near = append(near, o)
			}
		}
	}
	place(unique(near))
	vs := b.showing(focus, views)
	var onViews []archixml.Object
	for _, v := range vs {
		for _, d := range v.DiagramObjects() {
			if e, ok := d.Concept(); ok && e.Kind() == archixml.KindElement && inScope[e.ID()] && !placed[e.ID()] {
				onViews = append(onViews, e)
			}
		}
	}
	place(unique(onViews))
	for _, e := range weak {
		if !placed[e.ID()] {
			placed[e.ID()] = true
			order = append(order, e)
		}
	}
	return append(order, b.rest(elements, placed)...), focus, vs
}

// match scores the elements against the intent (its ids, whole names and words) and returns
// the focus (what the intent names by id or whole name, else the best matches) and the weaker
// matches, each best first.
func (b *builder) match(elements []archixml.Object, intent string) (focus, weak []archixml.Object) {
	want := map[string]bool{}
	for _, w := range words(intent) {
		want[w] = true
	}
	mentioned := map[string]bool{}
	for _, f := range strings.FieldsFunc(intent, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`,;"'()[]{}<>`, r)
	}) {
		mentioned[strings.TrimRight(f, ".:!?")] = true
	}
	score := map[archixml.Object]int{}
	count := func(text string) int {
		n := 0
		for _, w := range words(text) {
			if want[w] {
				n++
			}
		}
		return n
	}
	lowIntent := strings.ToLower(intent)
	var matched []archixml.Object
	best := 0
	for _, e := range elements {
		s := 0
		if mentioned[e.ID()] {
			s += 100
		}
		if n := strings.ToLower(strings.TrimSpace(e.Name())); len(n) >= 3 && strings.Contains(lowIntent, n) {
			s += 50 // the whole name
		}
		if len(want) > 0 {
			s += 4 * count(e.Name())
			s += count(e.Documentation())
			for _, p := range e.Properties() {
				s += count(p.Key + " " + p.Value)
			}
		}
		if s > 0 {
			score[e] = s
			matched = append(matched, e)
			best = max(best, s)
		}
	}
	sort.SliceStable(matched, func(i, j int) bool {
		if si, sj := score[matched[i]], score[matched[j]]; si != sj {
			return si > sj
		}
		return b.less(matched[i], matched[j])
	})
	// the focus: what the intent names by id or whole name, else the best matches; other matches
	// come after the focus's neighbours and views
	for _, e := range matched {
		if s := score[e]; s >= 50 || s == best {
			focus = append(focus, e)
		} else {
			weak = append(weak, e)
		}
	}
	return focus, weak
}

// showing is the views in scope that show the focus, those showing most of it first.
func (b *builder) showing(focus, views []archixml.Object) []archixml.Object {
	viewIn := map[string]bool{}
	for _, v := range views {
		viewIn[v.ID()] = true
	}
	shows := map[string]int{}
	var vs []archixml.Object
	for _, e := range focus {
		seen := map[string]bool{}
		for _, ref := range b.m.ReferencesTo(e.ID()) {
			if v, ok := ref.View(); ok && viewIn[v.ID()] && !seen[v.ID()] {
				seen[v.ID()] = true
				if shows[v.ID()] == 0 {
					vs = append(vs, v)
				}
				shows[v.ID()]++
			}
		}
	}
	sort.SliceStable(vs, func(i, j int) bool {
		if a, c := shows[vs[i].ID()], shows[vs[j].ID()]; a != c {
			return a > c
		}
		if vs[i].Name() != vs[j].Name() {
			return vs[i].Name() < vs[j].Name()
		}
		return vs[i].ID() < vs[j].ID()
	})
	return vs
}

// rest is the elements not placed yet, layers taking turns so that none is cut away whole.
func (b *builder) rest(elements []archixml.Object, placed map[string]bool) (order []archixml.Object) {
	byLayer := map[string][]archixml.Object{}
	var layers []string
	for _, e := range elements {
		if placed[e.ID()] {
			continue
		}
		l := e.TopFolderType()
		if _, ok := byLayer[l]; !ok {
			layers = append(layers, l)
		}
		byLayer[l] = append(byLayer[l], e)
	}
	sort.Strings(layers)
	for _, l := range layers {
		s := byLayer[l]
		b.sort(s)
	}
	for i := 0; ; i++ {
		more := false
		for _, l := range layers {
			if i < len(byLayer[l]) {
				order = append(order, byLayer[l][i])
				more = true
			}
		}
		if !more {
			break
		}
	}
	return order
}

// assemble makes the context of the first elements of the ranking.
func (b *builder) assemble(o ContextOptions, policy plans.Policy, order []archixml.Object, n int, focus, rels, views, contentViews []archixml.Object, contentsBudget int) *PlanningContext {
	kept := order[:n]
	c := b.head(o, policy)
	t := b.count(order)
	c.Folders = append([]ContextFolder(nil), t.folders...)

	keep := map[string]bool{}
	for _, e := range kept {
		keep[e.ID()] = true
	}
	for _, e := range focus {
		if keep[e.ID()] {
			c.Focus = append(c.Focus, e.ID())
		}
	}
	sorted := append([]archixml.Object(nil), kept...)
	b.sort(sorted)
	for _, e := range sorted {
		c.Elements = append(c.Elements, b.element(e))
	}
	for _, r := range rels {
		if !keep[r.SourceID()] || !keep[r.TargetID()] {
			c.Omitted.Relationships++
			continue
		}
		c.Relationships = append(c.Relationships, ContextRelationship{ID: r.ID(), Type: r.Type().Label,
			Source: r.SourceID(), Target: r.TargetID(), Name: r.Name()})
	}
	sort.Slice(c.Relationships, func(i, j int) bool {
		a, z := c.Relationships[i], c.Relationships[j]
		if a.Source != z.Source {
			return a.Source < z.Source
		}
		if a.Type != z.Type {
			return a.Type < z.Type
		}
		if a.Target != z.Target {
			return a.Target < z.Target
		}
		return a.ID < z.ID
	})

	b.addViews(c, views, contentViews, contentsBudget)
	// what was left out, summarised by type and by folder
	byType, byFolder := maps.Clone(t.byType), maps.Clone(t.byFolder)
	for _, e := range kept {
		byType[e.Type().Label]--
		byFolder[b.folder(e)]--
	}
	c.Omitted.Elements = len(order) - n
	c.Omitted.ByType, c.Omitted.ByFolder = counts(byType), counts(byFolder)
	return c
}

// head is what every context starts with, whatever its budget: the model, the scope, what the
// policy allows and the specializations.
func (b *builder) head(o ContextOptions, policy plans.Policy) *PlanningContext {
	m := b.m
	c := &PlanningContext{SchemaVersion: ContextFormat, PlanSchemaVersion: schemas.Latest,
		Model: ContextName{ID: m.ID(), Name: m.Name()}, Scope: o.Scope}
	if c.Scope == "" {
		c.Scope = "model"
	}
	c.AllowedOps = policy.AllowedOps
	if len(c.AllowedOps) == 0 {
		for _, op := range schemas.OpsOf(schemas.Latest) {
			c.AllowedOps = append(c.AllowedOps, string(op.Name))
		}
	}
	c.AllowedElementTypes = labelsOf(archixml.ElementTypes, policy.AllowedElementTypes)
	c.AllowedRelationshipTypes = labelsOf(archixml.RelationshipTypes, policy.AllowedRelationshipTypes)
	for _, p := range b.profileList {
		t := p.Attr("conceptType")
		if et := archixml.ElementType(t); et != nil {
			t = et.Label
		} else if rt := archixml.RelationshipType(t); rt != nil {
			t = rt.Label
		}
		c.Specializations = append(c.Specializations, ContextSpecialization{ID: p.ID(), Name: p.Name(), ConceptType: t})
	}
	sort.Slice(c.Specializations, func(i, j int) bool {
		a, z := c.Specializations[i], c.Specializations[j]
		if a.Name != z.Name {
			return a.Name < z.Name
		}
		return a.ID < z.ID
	})
	return c
}

// addViews lists every view in scope, with what it holds counted (empty ones and those holding
// only view references too), and the contents of those that matter most while the budget lasts.
func (b *builder) addViews(c *PlanningContext, views, contentViews []archixml.Object, contentsBudget int) {
	wantContents := map[string]bool{}
	for _, v := range contentViews {
		wantContents[v.ID()] = true
	}
	if b.views == nil { // the same for every budget tried
		for _, v := range views {
			vp := archixml.ViewpointOf(v.Attr("viewpoint"))
			counts, n := CountView(v)
			b.views = append(b.views, ContextView{ID: v.ID(), Name: v.Name(), Folder: b.folder(v),
				Viewpoint: vp.ID, ViewpointName: vp.Name, Objects: n, Counts: &counts})
		}
	}
	c.Views = append([]ContextView{}, b.views...)
	sort.Slice(c.Views, func(i, j int) bool {
		if c.Views[i].Name != c.Views[j].Name {
			return c.Views[i].Name < c.Views[j].Name
		}
		return c.Views[i].ID < c.Views[j].ID
	})
	index := map[string]int{}
	for i, v := range c.Views {
		index[v.ID] = i
	}
	used := 0
	done := map[string]bool{}
	for _, v := range contentViews {
		i, ok := index[v.ID()]
		if !ok || done[v.ID()] {
			continue
		}
		done[v.ID()] = true
		vc := ViewContentsOf(v)
		size := len(compact(vc))
		if used+size > contentsBudget {
			c.Omitted.ViewContents++
			continue
		}
		used += size
		c.Views[i].Contents = vc
	}

}

func counts(m map[string]int) []CountEntry {
	var out []CountEntry
	for k, v := range m {
		if v > 0 {
			out = append(out, CountEntry{Name: k, Count: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (b *builder) element(e archixml.Object) ContextElement {
	ce := ContextElement{ID: e.ID(), Name: e.Name(), Type: e.Type().Label, Folder: b.folder(e)}
	var specs []string
	for _, id := range e.ProfileIDs() {
		if n, ok := b.profiles[id]; ok {
			specs = append(specs, n)
		}
	}
	ce.Specialization = strings.Join(specs, ", ")
	if b.include["documentation"] {
		ce.Documentation = e.Documentation()
	}
	if b.include["properties"] {
		for _, p := range e.Properties() {
			if ce.Properties == nil {
				ce.Properties = map[string]string{}
			}
			if _, dup := ce.Properties[p.Key]; !dup {
				ce.Properties[p.Key] = p.Value
			}
		}
	}
	return ce
}

// DiagramKind is what a diagram object is: "element" (an element's figure), "group", "note" or
// "reference" (a view reference); "" for anything else.
func DiagramKind(d archixml.Object) string {
	switch d.Class() {
	case "Group", "DiagramModelGroup":
		return "group"
	case "Note", "DiagramModelNote":
		return "note"
	case "DiagramModelReference":
		return "reference"
	}
	if _, ok := d.Concept(); ok {
		return "element"
	}
	return ""
}

// ViewContentsOf is what a view shows: its diagram objects in document order (nested ones with
// their parent) and its connections. Groups carry their name, notes the start of their text,
// view references the view they open.
func ViewContentsOf(v archixml.Object) *ViewContents {
	vc := &ViewContents{Objects: []ViewObject{}, Connections: []ViewConnection{}}
	for _, d := range v.DiagramObjects() {
		o := ViewObject{ID: d.ID(), Kind: DiagramKind(d), Name: d.Name()}
		switch o.Kind {
		case "group":
			o.Type = "Group"
		case "note":
			o.Type, o.Name = "Note", plans.Clip(strings.Join(strings.Fields(d.Content()), " "), 80)
		case "reference":
			o.Type = "View Reference"
			if rv, ok := v.Model().Object(d.Attr("model")); ok {
				o.View, o.Name = rv.ID(), rv.Name()
			}
		case "element":
			if e, ok := d.Concept(); ok {
				o.Element, o.Name = e.ID(), e.Name()
				if t := e.Type(); t != nil {
					o.Type = t.Label
				}
			}
		}
		if p, ok := d.Parent(); ok && p.Kind() == archixml.KindDiagramObject {
			o.Parent = p.ID()
		}
		if bd, ok := d.Bounds(); ok {
			o.Bounds = [4]int{bd.X, bd.Y, bd.Width, bd.Height}
		}
		vc.Objects = append(vc.Objects, o)
	}
	for _, cn := range v.Connections() {
		vc.Connections = append(vc.Connections, ViewConnection{ID: cn.ID(), Relationship: cn.Attr("archimateRelationship"),
			Source: cn.SourceID(), Target: cn.TargetID()})
	}
	return vc
}

// ViewCounts counts what a view holds.
type ViewCounts struct {
	Elements      int `json:"elements"`      // diagram objects showing elements
	Relationships int `json:"relationships"` // connections showing relationships
	Groups        int `json:"groups"`
	Notes         int `json:"notes"`
	References    int `json:"references"` // view references
}

// CountView counts the diagram objects of a view by kind, and its relationships' connections.
func CountView(v archixml.Object) (ViewCounts, int) {
	var c ViewCounts
	n := 0
	for _, d := range v.DiagramObjects() {
		n++
		switch DiagramKind(d) {
		case "element":
			c.Elements++
		case "group":
			c.Groups++
		case "note":
			c.Notes++
		case "reference":
			c.References++
		}
	}
	for _, cn := range v.Connections() {
		if _, ok := cn.Concept(); ok {
			c.Relationships++
		}
	}
	return c, n
}

func labelsOf(types []archixml.ConceptType, allowed []string) []string {
	var out []string
	for i := range types {
		if plans.AllowedType(allowed, &types[i]) {
			out = append(out, types[i].Label)
		}
	}
	sort.Strings(out)
	return out
}

// inScope returns the elements, relationships and views a scope names. Relationships are those
// between elements in scope (and any named by ids:).
func inScope(m *archixml.Model, all []archixml.Object, scope string) ([]archixml.Object, []archixml.Object, []archixml.Object, error) {
	kind, arg, _ := strings.Cut(scope, ":")
	var elements, views []archixml.Object
	named := map[string]bool{}
	switch kind {
	case "", "model":
		return all, m.Relationships(), archiViews(m.Views()), nil
	case "view":
		v, ok := m.Object(arg)
		if !ok || v.Kind() != archixml.KindView {
			return nil, nil, nil, fmt.Errorf("view:%s is no view of the model: %w", arg, ErrBadScope)
		}
		seen := map[string]bool{}
		for _, d := range v.DiagramObjects() {
			if e, ok := d.Concept(); ok && e.Kind() == archixml.KindElement && !seen[e.ID()] {
				seen[e.ID()] = true
				elements = append(elements, e)
			}
		}
		views = []archixml.Object{v}
	case "folder":
		path := strings.Trim(arg, "/")
		for _, e := range all {
			if p := e.FolderPath(); p == path || strings.HasPrefix(p, path+"/") {
				elements = append(elements, e)
			}
		}
		for _, v := range archiViews(m.Views()) {
			if p := v.FolderPath(); p == path || strings.HasPrefix(p, path+"/") {
				views = append(views, v)
			}
		}
		if len(elements) == 0 && len(views) == 0 {
			return nil, nil, nil, fmt.Errorf("folder:%s holds no element or view: %w", arg, ErrBadScope)
		}
	case "ids":
		for _, id := range strings.Split(arg, ",") {
			id = strings.TrimSpace(id)
			o, ok := m.Object(id)
			if !ok {
				return nil, nil, nil, fmt.Errorf("ids: %q is no id of the model: %w", id, ErrBadScope)
			}
			switch o.Kind() {
			case archixml.KindElement:
				elements = append(elements, o)
			case archixml.KindView:
				views = append(views, o)
			case archixml.KindRelationship:
				named[id] = true
				for _, end := range []string{o.SourceID(), o.TargetID()} {
					if e, ok := m.Object(end); ok && e.Kind() == archixml.KindElement {
						elements = append(elements, e)
					}
				}
			default:
				return nil, nil, nil, fmt.Errorf("ids: %q is %s: %w", id, archixml.Article(o.Kind().String()), ErrBadScope)
			}
		}
	default:
		return nil, nil, nil, fmt.Errorf("%q: use view:ID, folder:PATH or ids:ID,ID: %w", scope, ErrBadScope)
	}
	elements = unique(elements)
	in := map[string]bool{}
	for _, e := range elements {
		in[e.ID()] = true
	}
	var rels []archixml.Object
	seen := map[string]bool{}
	for _, e := range elements {
		for _, r := range m.RelationshipsOf(e.ID()) {
			if !seen[r.ID()] && (in[r.SourceID()] && in[r.TargetID()] || named[r.ID()]) {
				seen[r.ID()] = true
				rels = append(rels, r)
			}
		}
	}
	return elements, rels, views, nil
}

func archiViews(vs []archixml.Object) []archixml.Object {
	var out []archixml.Object
	for _, v := range vs {
		if v.Class() == "ArchimateDiagramModel" {
			out = append(out, v)
		}
	}
	return out
}

func unique(os []archixml.Object) []archixml.Object {
	seen := map[string]bool{}
	var out []archixml.Object
	for _, o := range os {
		if !seen[o.ID()] {
			seen[o.ID()] = true
			out = append(out, o)
		}
	}
	return out
}
