package archixml

import (
	"cmp"
	"slices"
	"strings"

	"github.com/beevik/etree"
)

// A three-way merge of models, object by object and field by field: what theirs changed against
// the base is made again on ours, with the edits an op makes (an attribute set in place, a part
// synced, an object moved or created where Archi writes it), so that untouched objects keep their
// bytes and the result is what applying both sides' changes one after the other gives.

// Conflict is one place where the two sides of a merge disagree: both changed the same field of
// the same object differently, one changed (or moved, or refers to) what the other deleted, or
// both added an object with the same id differently.
type Conflict struct {
	ID    string `json:"id"`    // the object
	Kind  string `json:"kind"`  // what it is: element, relationship, diagram object, ...
	Label string `json:"label"` // how people call it: its type and name
	// Field is what both changed: an attribute ("name", "fillColor"), "documentation",
	// "property:KEY", "bounds", "bendpoints", "parent" (where it is), "deleted" (one side deleted
	// it, the other changed it or refers to it), "added" (both added the id differently).
	Field  string `json:"field"`
	Base   string `json:"base"`
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
}

// Key names a conflict for a resolution: the object's id and the field.
func (c Conflict) Key() string { return c.ID + " " + c.Field }

// Settable reports whether a conflict can be settled with a value of its own (an attribute or a
// text), not only by taking one side.
func (c Conflict) Settable() bool {
	switch {
	case c.Field == "deleted", c.Field == "added", c.Field == "parent", c.Field == "bounds",
		c.Field == "bendpoints", c.Field == "reference", strings.HasPrefix(c.Field, "feature:"):
		return false
	}
	return true
}

// Resolution settles one conflict: Side "ours" or "theirs", or a Value of its own.
type Resolution struct {
	Side  string  `json:"side,omitempty"`
	Value *string `json:"value,omitempty"`
}

// The sides a resolution takes.
const (
	Ours   = "ours"
	Theirs = "theirs"
)

const absent = "\x00absent"

// Merge merges theirs into ours, both descendants of base: every change theirs made against base
// is made on ours, unless ours changed the same thing differently, which is a conflict (settled
// by resolved, keyed by Conflict.Key). ours is edited in place; when conflicts are returned it
// holds a partial merge and is to be thrown away. base and theirs are only read. A reference the
// merge would leave dangling (a relationship to an element the other side deleted) is a conflict
// on the deleted object, never a broken model.
func Merge(base, ours, theirs *Model, resolved map[string]Resolution) []Conflict {
	g := &merger{b: base, o: ours, t: theirs, res: resolved, restored: map[string]bool{}, conflicted: map[string]bool{}}
	g.object(base.root, ours.root, theirs.root)
	g.restoreChosen()
	g.apply()
	for round := 0; round < 8 && g.dangling(); round++ {
	}
	if len(g.conflicts) == 0 {
		g.linkConnections()
	}
	if len(g.conflicts) == 0 {
		// what no resolution could settle (an object kept whose folder went too): never a broken model
		for _, r := range g.danglingRefs() {
			g.conflict(g.o, r.from, "reference", absent, r.key+" names "+r.to, "which is not in the merged model")
		}
	}
	slices.SortStableFunc(g.conflicts, func(x, y Conflict) int {
		return cmp.Or(cmp.Compare(x.ID, y.ID), cmp.Compare(x.Field, y.Field))
	})
	return g.conflicts
}

type merger struct {
	b, o, t    *Model
	res        map[string]Resolution
	conflicts  []Conflict
	conflicted map[string]bool
	restored   map[string]bool

	structure []func() // creations and moves, parents first
	fields    []func() // attributes and parts
	deletes   []*etree.Element
}

// rootKey stands for the model itself where an object's parent is named.
const rootKey = "\x00model"

func (m *Model) key(e *etree.Element) string {
	if e == m.root {
		return rootKey
	}
	return e.SelectAttrValue("id", "")
}

func (m *Model) byKey(k string) *etree.Element {
	if k == rootKey {
		return m.root
	}
	return m.byID[k]
}

// isObject reports whether e is an object the merge follows by its id.
func isObject(e *etree.Element) bool {
	return kindOf(e) != kindNone && e.SelectAttrValue("id", "") != ""
}

// objectParent is the nearest object holding e (the model's root at the top).
func (m *Model) objectParent(e *etree.Element) *etree.Element {
	for p := e.Parent(); p != nil; p = p.Parent() {
		if p == m.root || isObject(p) {
			return p
		}
	}
	return nil
}

func (m *Model) parentKey(e *etree.Element) string {
	if p := m.objectParent(e); p != nil {
		return m.key(p)
	}
	return ""
}

// original is the bytes e was read from, when nothing in it changed since.
func (m *Model) original(e *etree.Element) (string, bool) {
	sp, had := m.spans[e]
	if !had || m.state[e] != 0 {
		return "", false
	}
	return m.src[sp.start:sp.end], true
}

// sameBytes reports whether two elements were read from the same bytes (so hold the same).
func sameBytes(mx *Model, x *etree.Element, my *Model, y *etree.Element) bool {
	a, ok := mx.original(x)
	if !ok {
		return false
	}
	b, ok := my.original(y)
	return ok && a == b
}

func objectKids(e *etree.Element) []*etree.Element {
	var out []*etree.Element
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok && isObject(c) {
			out = append(out, c)
		}
	}
	return out
}

func (g *merger) conflict(m *Model, e *etree.Element, field, base, ours, theirs string) {
	c := Conflict{ID: m.key(e), Kind: kindOf(e).String(), Label: describe(m, e), Field: field,
		Base: shown(base), Ours: shown(ours), Theirs: shown(theirs)}
	if c.ID == rootKey {
		c.ID = m.ID()
	}
	if g.conflicted[c.Key()] {
		return
	}
	g.conflicted[c.Key()] = true
	g.conflicts = append(g.conflicts, c)
}

func shown(v string) string {
	if v == absent {
		return "(none)"
	}
	return v
}

// describe is how people call an object: its type and name.
func describe(m *Model, e *etree.Element) string {
	o := Object{m, e}
	switch o.Kind() {
	case KindModel:
		return `model "` + o.Name() + `"`
	case KindFolder:
		return `folder "` + o.FolderPath() + `"`
	case KindView:
		return `view "` + o.Name() + `"`
	case KindDiagramObject, KindConnection:
		what := o.Kind().String()
		if c, ok := o.Concept(); ok {
			what += " of " + describe(m, c.e)
		} else if n := o.Name(); n != "" {
			what += ` "` + n + `"`
		}
		if v, ok := o.View(); ok {
			what += ` on view "` + v.Name() + `"`
		}
		return what
	}
	t := o.Class()
	if ct := o.Type(); ct != nil {
		t = ct.Label
	}
	if o.Name() == "" {
		return t + " " + o.ID()
	}
	return t + ` "` + o.Name() + `"`
}

// choice is the resolution given for a conflict key ("" when none).
func (g *merger) choice(id, field string) (Resolution, bool) {
	r, ok := g.res[id+" "+field]
	return r, ok
}

// object merges an object present in all three versions.
func (g *merger) object(bx, ox, tx *etree.Element) {
	if sameBytes(g.b, bx, g.t, tx) {
		return
	}
	g.own(bx, ox, tx)
	g.children(bx, ox, tx)
}

// children merges what an object holds: theirs' additions, moves in and deletions.
func (g *merger) children(bx, ox, tx *etree.Element) {
	tk := objectKids(tx)
	pk := g.t.key(tx)
	for i, tc := range tk {
		g.child(tc, bx, ox, pk, anchorAfter(tk, i, g.o, ox))
	}
	if bx == nil {
		return
	}
	for _, bc := range objectKids(bx) {
		id := bc.SelectAttrValue("id", "")
		if _, kept := g.t.byID[id]; kept {
			continue
		}
		g.theirsDeleted(bc)
	}
}

// anchorAfter is the id of the first object after tk[i] of its tag that ours holds in ox: a
// new or moved object goes before it ("" when none: where EMF writes a new one, last).
func anchorAfter(tk []*etree.Element, i int, o *Model, ox *etree.Element) string {
	if ox == nil {
		return ""
	}
	for _, n := range tk[i+1:] {
		if n.Tag != tk[i].Tag {
			continue
		}
		id := n.SelectAttrValue("id", "")
		if oe, ok := o.byID[id]; ok && o.objectParent(oe) == ox {
			return id
		}
	}
	return ""
}

// child merges one object theirs holds under the object keyed pk (bx, ox: that object in base
// and ours, nil when new).
func (g *merger) child(tc, bx, ox *etree.Element, pk, anchor string) {
	id := tc.SelectAttrValue("id", "")
	bc := g.b.byID[id]
	oc := g.o.byID[id]
	switch {
	case bc != nil && bx != nil && g.b.objectParent(bc) == bx:
		if oc != nil {
			g.object(bc, oc, tc)
			return
		}
		if sameBytes(g.b, bc, g.t, tc) || !g.changedIn(g.t, tc, g.b, bc, g.o) {
			return // ours deleted it, theirs left it as it was
		}
		g.oursDeleted(tc, pk, anchor, "changed")
	case bc != nil: // theirs moved it here
		if oc == nil {
			g.oursDeleted(tc, pk, anchor, "moved to "+where(g.t, tc))
			return
		}
		bp, op := g.b.parentKey(bc), g.o.parentKey(oc)
		switch {
		case op == pk:
		case op == bp:
			g.move(id, pk, anchor)
		default:
			if r, ok := g.choice(id, "parent"); ok && r.Side == Theirs {
				g.move(id, pk, anchor)
			} else if !ok {
				g.conflict(g.t, tc, "parent", where(g.b, bc), where(g.o, oc), where(g.t, tc))
			}
		}
		g.object(bc, oc, tc)
	case oc != nil: // both added it
		if canonical(g.o, oc) == canonical(g.t, tc) {
			return
		}
		r, ok := g.choice(id, "added")
		switch {
		case !ok:
			g.conflict(g.t, tc, "added", absent, "added as "+describe(g.o, oc), "added as "+describe(g.t, tc))
		case r.Side == Theirs:
			g.deletes = append(g.deletes, oc)
			g.create(tc, pk, anchor, true)
		}
	default:
		g.create(tc, pk, anchor, false)
	}
}

// where says where an object is: its folder's path, or the view or object holding it.
func where(m *Model, e *etree.Element) string {
	p := m.objectParent(e)
	switch {
	case p == nil:
		return absent
	case p.Tag == "folder":
		return Object{m, p}.FolderPath()
	case p == m.root:
		return "the model"
	}
	return describe(m, p)
}

// oursDeleted handles an object ours deleted and theirs changed, moved or refers to: a conflict,
// or, settled for theirs, the object restored as theirs has it.
func (g *merger) oursDeleted(tc *etree.Element, pk, anchor, theirs string) {
	id := tc.SelectAttrValue("id", "")
	r, ok := g.choice(id, "deleted")
	switch {
	case !ok:
		g.conflict(g.t, tc, "deleted", "present", "deleted", theirs)
	case r.Side == Theirs:
		g.create(tc, pk, anchor, true)
	}
}

// theirsDeleted handles an object of base that theirs deleted: deleted in ours too, unless ours
// changed it (or what it holds, or moved out of it what theirs deleted), which is a conflict.
func (g *merger) theirsDeleted(bc *etree.Element) {
	id := bc.SelectAttrValue("id", "")
	oc := g.o.byID[id]
	if oc == nil {
		return
	}
	r, chosen := g.choice(id, "deleted")
	if chosen {
		if r.Side == Theirs {
			g.deletes = append(g.deletes, oc)
		}
		return
	}
	if g.keptEnd(bc) {
		return // theirs deleted it with an object the person keeps
	}
	if !sameBytes(g.b, bc, g.o, oc) && g.changedIn(g.o, oc, g.b, bc, g.t) {
		g.conflict(g.o, oc, "deleted", "present", "changed", "deleted")
		return
	}
	// what ours moved out of it that theirs deleted with it
	var movedOut []*etree.Element
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		for _, c := range objectKids(e) {
			cid := c.SelectAttrValue("id", "")
			if _, kept := g.t.byID[cid]; kept {
				continue
			}
			if od := g.o.byID[cid]; od != nil && !within(od, oc) {
				movedOut = append(movedOut, od)
			}
			walk(c)
		}
	}
	walk(bc)
	for _, od := range movedOut {
		g.conflict(g.o, od, "deleted", where(g.b, g.b.byID[od.SelectAttrValue("id", "")]), "moved to "+where(g.o, od), "deleted")
	}
	g.deletes = append(g.deletes, oc)
}

// keptEnd reports whether a relationship or diagram object theirs deleted names an object the
// person settled to keep against theirs' deletion: it went with that object, and stays with it.
func (g *merger) keptEnd(bc *etree.Element) bool {
	var ends []string
	switch kindOf(bc) {
	case KindRelationship:
		ends = []string{bc.SelectAttrValue("source", ""), bc.SelectAttrValue("target", "")}
	case KindDiagramObject, KindConnection:
		ends = []string{conceptRef(bc)}
	}
	for _, id := range ends {
		if r, ok := g.choice(id, "deleted"); ok && r.Side == Ours && g.t.byID[id] == nil {
			return true
		}
	}
	return false
}

func within(e, ancestor *etree.Element) bool {
	for p := e; p != nil; p = p.Parent() {
		if p == ancestor {
			return true
		}
	}
	return false
}

// changedIn reports whether side (x in model mx) differs from base (bx) in anything that the
// other side's deletion of it would lose: its own fields, or an object in it that is new, moved
// in, or changed; objects the other side (mo) still holds were moved out before the delete and
// are merged where they went.
func (g *merger) changedIn(mx *Model, x *etree.Element, mb *Model, bx *etree.Element, mo *Model) bool {
	if sameBytes(mx, x, mb, bx) {
		return false
	}
	if ownCanonical(mx, x) != ownCanonical(mb, bx) {
		return true
	}
	for _, c := range objectKids(x) {
		id := c.SelectAttrValue("id", "")
		if _, elsewhere := mo.byID[id]; elsewhere {
			continue
		}
		bc := mb.byID[id]
		if bc == nil || mb.objectParent(bc) != bx || g.changedIn(mx, c, mb, bc, mo) {
			return true
		}
	}
	return false
}

// own merges an object's own fields: attributes and the parts without ids it holds.
func (g *merger) own(bx, ox, tx *etree.Element) {
	if ownCanonical(g.b, bx) == ownCanonical(g.t, tx) {
		return
	}
	g.attrs(bx, ox, tx)
	g.parts(bx, ox, tx)
}

func attrOf(e *etree.Element, key string) string {
	if a := e.SelectAttr(key); a != nil {
		return a.Value
	}
	return absent
}

func (g *merger) attrs(bx, ox, tx *etree.Element) {
	var keys []string
	seen := map[string]bool{"id": true}
	for _, e := range []*etree.Element{bx, tx} {
		for _, a := range e.Attr {
			if k := a.FullKey(); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		bv, ov, tv := attrOf(bx, k), attrOf(ox, k), attrOf(tx, k)
		if tv == bv || ov == tv {
			continue
		}
		want := tv
		if ov != bv {
			switch {
			case k == "targetConnections":
				want = listMerge(bv, ov, tv)
			case k == "version" && ox == g.o.root:
				continue // the Archi that saved it last: ours
			default:
				r, ok := g.choice(g.o.key(ox), k)
				if !ok {
					g.conflict(g.o, ox, k, bv, ov, tv)
					continue
				}
				switch {
				case r.Value != nil:
					want = *r.Value
				case r.Side == Ours:
					continue
				}
			}
		}
		e, key, val := ox, k, want
		g.fields = append(g.fields, func() {
			if val == absent || (val == "" && key == "targetConnections") {
				g.o.removeAttr(e, key)
			} else {
				g.o.setAttr(e, key, val)
			}
		})
	}
}

// listMerge merges a space-separated list (a diagram object's targetConnections): ours, less
// what theirs removed, with what theirs added after.
func listMerge(b, o, t string) string {
	bl, ol, tl := strings.Fields(strings.TrimPrefix(b, absent)), strings.Fields(strings.TrimPrefix(o, absent)), strings.Fields(strings.TrimPrefix(t, absent))
	out := slices.DeleteFunc(slices.Clone(ol), func(x string) bool { return slices.Contains(bl, x) && !slices.Contains(tl, x) })
	for _, x := range tl {
		if !slices.Contains(bl, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

// partField is the field a part (a child element without an id) belongs to.
func partField(e *etree.Element) string {
	switch e.Tag {
	case "property":
		return "property:" + e.SelectAttrValue("key", "")
	case "feature":
		return "feature:" + e.SelectAttrValue("name", "")
	case "bendpoint":
		return "bendpoints"
	}
	return e.Tag
}

type partGroup struct {
	field string
	elems []*etree.Element
}

func partsOf(e *etree.Element) ([]partGroup, map[string]int) {
	var gs []partGroup
	at := map[string]int{}
	for _, t := range e.Child {
		c, ok := t.(*etree.Element)
		if !ok || isObject(c) {
			continue
		}
		f := partField(c)
		i, ok := at[f]
		if !ok {
			i = len(gs)
			at[f] = i
			gs = append(gs, partGroup{field: f})
		}
		gs[i].elems = append(gs[i].elems, c)
	}
	return gs, at
}

func (g *merger) parts(bx, ox, tx *etree.Element) {
	bg, bat := partsOf(bx)
	og, oat := partsOf(ox)
	tg, tat := partsOf(tx)
	var fields []string
	for _, gs := range [][]partGroup{bg, tg} {
		for _, p := range gs {
			if !slices.Contains(fields, p.field) {
				fields = append(fields, p.field)
			}
		}
	}
	get := func(gs []partGroup, at map[string]int, f string) []*etree.Element {
		if i, ok := at[f]; ok {
			return gs[i].elems
		}
		return nil
	}
	for _, f := range fields {
		be, oe, te := get(bg, bat, f), get(og, oat, f), get(tg, tat, f)
		bv, ov, tv := partsCanonical(be), partsCanonical(oe), partsCanonical(te)
		if tv == bv || ov == tv {
			continue
		}
		target := te
		if ov != bv {
			merged, ok := multiMerge(f, be, oe, te)
			if ok {
				target = merged
			} else {
				r, chosen := g.choice(g.o.key(ox), f)
				switch {
				case !chosen:
					g.conflict(g.o, ox, f, partsWords(be), partsWords(oe), partsWords(te))
					continue
				case r.Value != nil && textTags[f]:
					c := etree.NewElement(f)
					c.SetText(*r.Value)
					target = []*etree.Element{c}
				case r.Value != nil && strings.HasPrefix(f, "property:"):
					target = []*etree.Element{newEl("property", "key", strings.TrimPrefix(f, "property:"), "value", *r.Value)}
				case r.Side == Ours:
					continue
				}
			}
		}
		e, have, want := ox, oe, target
		g.fields = append(g.fields, func() { g.o.syncParts(e, have, want) })
	}
}

// multiMerge merges the values of a property key that both sides changed when each only added
// values or only removed some (the ops of multi-valued properties): base less both sides'
// removals, then ours' additions, then theirs'. A value replaced, or a key both sides made new
// with different first values, is a conflict.
func multiMerge(f string, be, oe, te []*etree.Element) ([]*etree.Element, bool) {
	if !strings.HasPrefix(f, "property:") {
		return nil, false
	}
	vals := func(es []*etree.Element) []string {
		var v []string
		for _, e := range es {
			v = append(v, attrOf(e, "value"))
		}
		return v
	}
	bv, ov, tv := vals(be), vals(oe), vals(te)
	if len(bv) == 0 {
		// a key new on both sides: the values both gave it first are as good as a base's
		for len(bv) < len(ov) && len(bv) < len(tv) && ov[len(bv)] == tv[len(bv)] {
			bv = append(bv, ov[len(bv)])
		}
		if len(bv) == 0 {
			return nil, false
		}
	}
	oAdd, oDel, ok1 := delta(bv, ov)
	tAdd, tDel, ok2 := delta(bv, tv)
	if !ok1 || !ok2 {
		return nil, false
	}
	out := slices.Clone(oe)
	for _, d := range tDel {
		if !slices.Contains(oDel, d) {
			out = slices.DeleteFunc(out, func(e *etree.Element) bool { return attrOf(e, "value") == d })
		}
	}
	for _, e := range te {
		v := attrOf(e, "value")
		if slices.Contains(tAdd, v) && !slices.Contains(oAdd, v) {
			out = append(out, e)
		}
	}
	return out, true
}

// delta is what a list of values added to and removed from base, when it only added (after
// base's values, in order) or only removed.
func delta(b, x []string) (added, removed []string, ok bool) {
	if len(x) >= len(b) && slices.Equal(x[:len(b)], b) {
		return x[len(b):], nil, true
	}
	i := 0
	for _, v := range b {
		if i < len(x) && x[i] == v {
			i++
		} else {
			removed = append(removed, v)
		}
	}
	return nil, removed, i == len(x)
}

// syncParts makes the parts have (ours' elements of one field, in order, under e) into want
// (theirs' elements, or merged ones), as ops do it: a part that changed is changed in place, a
// new one goes where EMF writes it, one gone is removed.
func (m *Model) syncParts(e *etree.Element, have, want []*etree.Element) {
	hc := make([]string, len(have))
	for i, h := range have {
		hc[i] = canonicalPart(h)
	}
	wc := make([]string, len(want))
	for i, w := range want {
		wc[i] = canonicalPart(w)
	}
	// longest common subsequence: the parts kept
	n, k := len(hc), len(wc)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, k+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := k - 1; j >= 0; j-- {
			if hc[i] == wc[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var dels []*etree.Element
	var ins []*etree.Element
	flush := func(next *etree.Element) {
		p := 0
		for ; p < len(dels) && p < len(ins); p++ {
			m.syncPart(dels[p], ins[p])
		}
		for _, d := range dels[p:] {
			m.removeChild(d)
		}
		for _, w := range ins[p:] {
			c := copyTree(w, nil)
			if next != nil {
				m.insertChildAt(e, c, elementIndex(next))
			} else {
				m.insertChild(e, c)
			}
		}
		dels, ins = dels[:0], ins[:0]
	}
	i, j := 0, 0
	for i < n || j < k {
		switch {
		case i < n && j < k && hc[i] == wc[j]:
			flush(have[i])
			i++
			j++
		case j < k && (i == n || l[i][j+1] >= l[i+1][j]):
			ins = append(ins, want[j])
			j++
		default:
			dels = append(dels, have[i])
			i++
		}
	}
	flush(nil)
}

// syncPart makes one part (ours) hold what w holds: attributes set in place, text set.
func (m *Model) syncPart(o, w *etree.Element) {
	if len(o.ChildElements()) > 0 || len(w.ChildElements()) > 0 || o.FullTag() != w.FullTag() {
		p := o.Parent()
		at := elementIndex(o)
		m.removeChild(o)
		m.insertChildAt(p, copyTree(w, nil), at)
		return
	}
	for _, a := range w.Attr {
		if attrOf(o, a.FullKey()) != a.Value {
			m.setAttr(o, a.FullKey(), a.Value)
		}
	}
	for _, a := range slices.Clone(o.Attr) {
		if w.SelectAttr(a.FullKey()) == nil {
			m.removeAttr(o, a.FullKey())
		}
	}
	if o.Text() != w.Text() {
		m.setText(o, w.Text())
	}
}

// canonicalPart is a part's content, in a form equal for equal parts however they were written.
func canonicalPart(e *etree.Element) string {
	var b strings.Builder
	writeCanon(&b, e)
	return b.String()
}

func writeCanon(b *strings.Builder, e *etree.Element) {
	b.WriteString("<" + e.FullTag())
	attrs := slices.Clone(e.Attr)
	slices.SortFunc(attrs, func(x, y etree.Attr) int { return cmp.Compare(x.FullKey(), y.FullKey()) })
	for _, a := range attrs {
		b.WriteString(" " + a.FullKey() + "=\x01" + a.Value + "\x01")
	}
	b.WriteString(">")
	kids := e.ChildElements()
	if len(kids) == 0 {
		b.WriteString(e.Text())
	}
	for _, k := range kids {
		writeCanon(b, k)
	}
	b.WriteString("</>")
}

func partsCanonical(es []*etree.Element) string {
	var b strings.Builder
	for _, e := range es {
		writeCanon(&b, e)
	}
	return b.String()
}

// ownCanonical is an object's own fields (attributes and parts, not the objects it holds).
func ownCanonical(m *Model, e *etree.Element) string {
	var b strings.Builder
	b.WriteString("<" + e.FullTag())
	attrs := slices.Clone(e.Attr)
	slices.SortFunc(attrs, func(x, y etree.Attr) int { return cmp.Compare(x.FullKey(), y.FullKey()) })
	for _, a := range attrs {
		b.WriteString(" " + a.FullKey() + "=\x01" + a.Value + "\x01")
	}
	b.WriteString(">")
	gs, _ := partsOf(e)
	slices.SortStableFunc(gs, func(x, y partGroup) int { return cmp.Compare(x.field, y.field) })
	for _, p := range gs {
		for _, c := range p.elems {
			writeCanon(&b, c)
		}
	}
	if len(e.ChildElements()) == 0 {
		b.WriteString(e.Text())
	}
	return b.String()
}

// canonical is an object with everything it holds.
func canonical(m *Model, e *etree.Element) string {
	var b strings.Builder
	writeCanon(&b, e)
	return b.String()
}

// partsWords says what a field's parts hold, for a conflict report.
func partsWords(es []*etree.Element) string {
	if len(es) == 0 {
		return absent
	}
	var out []string
	for _, e := range es {
		switch {
		case e.Tag == "property":
			out = append(out, attrOf(e, "value"))
		case textTags[e.Tag]:
			out = append(out, e.Text())
		case len(e.ChildElements()) == 0:
			var kv []string
			for _, a := range e.Attr {
				kv = append(kv, a.FullKey()+"="+a.Value)
			}
			out = append(out, strings.Join(kv, " "))
		default:
			out = append(out, canonicalPart(e))
		}
	}
	return strings.Join(out, "; ")
}

// move plans moving ours' object id under the object keyed pk, before anchor.
func (g *merger) move(id, pk, anchor string) {
	g.structure = append(g.structure, func() {
		e, p := g.o.byID[id], g.o.byKey(pk)
		if e == nil || p == nil || within(p, e) {
			return
		}
		g.o.removeChild(e)
		g.o.forgetSource(e)
		g.o.placeObject(p, e, anchor)
		g.o.indexTree(e, kindOf(e))
	})
}

// placeObject puts an object under p before the anchor (an id), or where EMF writes a new one.
func (m *Model) placeObject(p, e *etree.Element, anchor string) {
	if a := m.byID[anchor]; anchor != "" && a != nil && a.Parent() == p {
		m.insertChildAt(p, e, elementIndex(a))
		return
	}
	m.insertChild(p, e)
}

// create plans copying theirs' object tc (its own fields) under pk, then what it holds: objects
// new in theirs are created, objects theirs moved into it are moved. restoring: tc comes back
// after ours deleted it, with whatever of it ours deleted too.
func (g *merger) create(tc *etree.Element, pk, anchor string, restoring bool) {
	id := tc.SelectAttrValue("id", "")
	g.restored[id] = true
	k := kindOf(tc)
	shell := etree.NewElement(tc.Tag)
	shell.Space = tc.Space
	for _, a := range tc.Attr {
		shell.CreateAttr(a.FullKey(), a.Value)
	}
	kids := tc.ChildElements()
	if len(kids) == 0 && tc.Text() != "" {
		shell.SetText(tc.Text())
	}
	for _, c := range kids {
		if !isObject(c) {
			shell.AddChild(copyTree(c, nil))
		}
	}
	g.structure = append(g.structure, func() {
		p := g.o.byKey(pk)
		if p == nil {
			return
		}
		g.o.placeObject(p, shell, anchor)
		g.o.indexTree(shell, k)
	})
	for _, c := range objectKids(tc) {
		cid := c.SelectAttrValue("id", "")
		if restoring {
			if _, ok := g.o.byID[cid]; ok {
				continue // ours moved it out before deleting: it stays where ours put it
			}
			g.create(c, id, "", true)
			continue
		}
		g.child(c, nil, nil, id, "")
	}
}

// restoreChosen brings back what ours deleted where the person settled for theirs and the walk
// did not reach it (theirs only refers to it).
func (g *merger) restoreChosen() {
	var ids []string
	for k, r := range g.res {
		id, f, ok := strings.Cut(k, " ")
		if ok && f == "deleted" && r.Side == Theirs {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		g.restore(id)
	}
}

// restore plans bringing back theirs' object id that ours deleted, under its parent in theirs.
func (g *merger) restore(id string) {
	if g.restored[id] {
		return
	}
	tc := g.t.byID[id]
	if tc == nil || g.o.byID[id] != nil {
		return
	}
	pk := g.t.parentKey(tc)
	if g.o.byKey(pk) == nil && !g.restored[pk] {
		if tp := g.t.objectParent(tc); tp != nil && tp != g.t.root {
			g.restore(pk)
		}
	}
	g.create(tc, pk, "", true)
	// the relationships ours deleted with it come back with it
	for _, r := range g.t.relsByEnd[id] {
		rid := r.SelectAttrValue("id", "")
		if g.b.byID[rid] != nil && g.o.byID[rid] == nil {
			g.restore(rid)
		}
	}
}

func (g *merger) apply() {
	if len(g.conflicts) > 0 {
		return
	}
	for _, f := range g.structure {
		f()
	}
	for _, f := range g.fields {
		f()
	}
	for _, e := range g.deletes {
		if id := e.SelectAttrValue("id", ""); g.o.byID[id] == e {
			g.o.removeChild(e)
		}
	}
}

// refAttrs are the attributes that name other objects.
var refAttrs = []string{"source", "target", "archimateElement", "archimateRelationship", "relationship", "model", "profiles", "targetConnections"}

// dangling finds references in the merged model to objects one side deleted: each is a conflict
// on the deleted object, or, settled, the object restored (the side keeping it) or what refers to
// it removed as Archi removes it (the side deleting it). It reports whether it changed the model
// (another round is needed).
type danglingRef struct {
	from    *etree.Element
	key, to string
}

// danglingRefs lists the references of the merged model to objects that are not in it but were
// in one of the three versions (a model dangling before the merge is not the merge's doing).
func (g *merger) danglingRefs() []danglingRef {
	var refs []danglingRef
	g.o.walkIndexed(g.o.root, KindModel, func(e *etree.Element, _ Kind) {
		for _, k := range refAttrs {
			v := e.SelectAttrValue(k, "")
			if v == "" || (k == "source" || k == "target") && kindOf(e) == kindNone {
				continue
			}
			for _, to := range strings.Fields(v) {
				if _, ok := g.o.byID[to]; ok {
					continue
				}
				if g.b.byID[to] == nil && g.t.byID[to] == nil && g.o.byID[to] == nil {
					continue // dangling before the merge too: not the merge's doing
				}
				refs = append(refs, danglingRef{e, k, to})
			}
		}
	})
	return refs
}

func (g *merger) dangling() bool {
	if len(g.conflicts) > 0 {
		return false
	}
	refs := g.danglingRefs()
	if len(refs) == 0 {
		return false
	}
	changed := false
	var drop []*etree.Element
	for _, r := range refs {
		if r.key == "targetConnections" {
			// derived from the connections: one gone leaves the list
			rest := slices.DeleteFunc(strings.Fields(r.from.SelectAttrValue(r.key, "")), func(x string) bool { return x == r.to })
			if len(rest) == 0 {
				g.o.removeAttr(r.from, r.key)
			} else {
				g.o.setAttr(r.from, r.key, strings.Join(rest, " "))
			}
			changed = true
			continue
		}
		deletedBy := Ours
		if g.t.byID[r.to] == nil {
			deletedBy = Theirs
		}
		res, ok := g.choice(r.to, "deleted")
		if !ok {
			m, e := g.t, g.t.byID[r.to]
			if e == nil {
				m, e = g.b, g.b.byID[r.to]
			}
			if e == nil {
				continue
			}
			ours, theirs := "deleted", "refers to it: "+describe(g.o, r.from)
			if deletedBy == Theirs {
				ours, theirs = "refers to it: "+describe(g.o, r.from), "deleted"
			}
			g.conflict(m, e, "deleted", "present", ours, theirs)
			continue
		}
		if res.Side != deletedBy {
			g.restore(r.to)
			continue
		}
		switch r.key {
		case "profiles":
			rest := slices.DeleteFunc(strings.Fields(r.from.SelectAttrValue(r.key, "")), func(x string) bool { return x == r.to })
			if len(rest) == 0 {
				g.o.removeAttr(r.from, r.key)
			} else {
				g.o.setAttr(r.from, r.key, strings.Join(rest, " "))
			}
			changed = true
		default:
			drop = append(drop, r.from)
		}
	}
	if len(g.conflicts) > 0 {
		return false
	}
	if len(g.structure) > 0 {
		s := g.structure
		g.structure, g.fields, g.deletes = nil, nil, nil
		for _, f := range s {
			f()
		}
		changed = true
	}
	var concepts, shown []*etree.Element
	for _, e := range drop {
		if g.o.byID[e.SelectAttrValue("id", "")] != e {
			continue
		}
		switch kindOf(e) {
		case KindRelationship:
			concepts = append(concepts, e)
		case KindDiagramObject, KindConnection:
			shown = append(shown, e)
		default:
			g.o.removeChild(e)
		}
		changed = true
	}
	if len(concepts) > 0 {
		g.o.deleteConcepts(concepts)
	}
	if len(shown) > 0 {
		g.o.removeDiagramComponents(shown)
	}
	return changed
}

// linkConnections lists every connection in its target's targetConnections, as Archi keeps them:
// a connection kept with an object the person kept may have left the list theirs changed.
func (g *merger) linkConnections() {
	g.o.walkIndexed(g.o.root, KindModel, func(e *etree.Element, k Kind) {
		if k != KindConnection {
			return
		}
		id := e.SelectAttrValue("id", "")
		to := g.o.byID[e.SelectAttrValue("target", "")]
		if to == nil {
			return
		}
		list := strings.Fields(to.SelectAttrValue("targetConnections", ""))
		if !slices.Contains(list, id) {
			g.o.setAttr(to, "targetConnections", strings.Join(append(list, id), " "))
		}
	})
}
