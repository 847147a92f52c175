package archixml

import (
	"sort"
	"strings"

	"github.com/beevik/etree"
)

// The layered layout (Sugiyama's method, as peers' layout engines do it): the objects of a
// container in ranks, so that the connections between them run from one rank to another and
// not along a rank; in each rank an order that crosses few lines; each object placed under those
// it is connected to, nothing overlapping. Nested objects are laid out the same way inside their
// parent first, and the parent is sized to hold them: nothing sticks out of its parent and no two
// siblings overlap, at any depth.

// lnode is an object of the container being laid out.
type lnode struct {
	e       *etree.Element
	b       Bounds // its bounds, sized (a parent's as its children need)
	concept string
	doc     int
	band    int     // its ArchiMate layer's place from the top (see LayerRank), or the last
	rank    int     // its rank in the container
	pos     float64 // its place in its rank, 0 to 1
	cx      float64 // the centre of its place across the ranks, once placed
	placed  bool
	up, dn  []*lnode // the objects it is connected to in ranks above and below
}

// ledge is a connection between two objects of a container (or objects they hold), from the one
// above to the one below.
type ledge struct{ a, b *lnode }

// upperEnd says whether the target of a relationship of the class goes above its source: what
// serves, realizes or specializes sits below what it serves, realizes or specializes, as the
// ArchiMate framework draws its layers; for the other relationships the source goes above.
func upperEnd(relClass string) bool {
	switch relClass {
	case "ServingRelationship", "RealizationRelationship", "SpecializationRelationship":
		return true
	}
	return false
}

// layoutLayered lays out the objects held by container (a view, a group or a diagram object) and,
// first, what each of them holds. origin is where the first rank starts in the container. It
// returns the extent the objects take (right and bottom edges) and appends the ids of the objects
// it moved or resized.
func (m *Model) layoutLayered(container *etree.Element, conns []*etree.Element, opts LayoutOptions, gap, rowGap int, origin [2]int, moved *[]string) (int, int) {
	var nodes []*lnode
	for _, t := range container.Child {
		c, ok := t.(*etree.Element)
		if !ok || c.Tag != "child" {
			continue
		}
		b, _ := (Object{m, c}).Bounds()
		n := &lnode{e: c, b: sized(b), concept: c.SelectAttrValue("archimateElement", ""), doc: len(nodes)}
		if hasChildObjects(c) {
			w, h := m.layoutLayered(c, conns, opts, gap, rowGap, [2]int{insideMargin, insideTop}, moved)
			n.b.Width, n.b.Height = max(w+insideMargin, DefaultSize.Width), max(h+insideMargin, DefaultSize.Height)
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return origin[0], origin[1]
	}
	// each object held at any depth, as the object of this container that holds it
	of := map[string]*lnode{}
	for _, n := range nodes {
		m.walk(n.e, func(e *etree.Element) {
			if kindOf(e) == KindDiagramObject {
				of[e.SelectAttrValue("id", "")] = n
			}
		})
	}
	var edges []ledge
	seen := map[[2]*lnode]bool{}
	for _, c := range conns {
		a, b := of[c.SelectAttrValue("source", "")], of[c.SelectAttrValue("target", "")]
		if a == nil || b == nil || a == b {
			continue
		}
		if upperEnd(m.classOf(c.SelectAttrValue("archimateRelationship", ""))) {
			a, b = b, a
		}
		if !seen[[2]*lnode{a, b}] && !seen[[2]*lnode{b, a}] {
			seen[[2]*lnode{a, b}] = true
			edges = append(edges, ledge{a, b})
		}
	}
	if opts.Grid {
		edges = nil // one rank in document order, whatever connects
	}
	m.band(nodes, edges, opts)
	for i, e := range edges {
		if e.a.band > e.b.band { // the ArchiMate layers decide first
			edges[i] = ledge{e.b, e.a}
		}
	}
	ranks := rankNodes(nodes, edges)
	for _, e := range edges {
		if e.a.rank < e.b.rank {
			e.a.dn, e.b.up = append(e.a.dn, e.b), append(e.b.up, e.a)
		}
	}
	orderRanks(ranks, edges)
	return m.placeRanks(ranks, opts, gap, rowGap, origin, moved)
}

func hasChildObjects(e *etree.Element) bool {
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok && c.Tag == "child" {
			return true
		}
	}
	return false
}

// band gives each object its ArchiMate layer's place: an element its own; a group or another
// object without an element of its own the highest of what it holds; a junction the highest of
// what it joins; a note or an empty group the last.
func (m *Model) band(nodes []*lnode, edges []ledge, opts LayoutOptions) {
	last := len(layerOrder)
	for _, n := range nodes {
		n.band = last
		if opts.Grid {
			n.band = 0
			continue
		}
		if cl, ok := m.layered(n.concept); ok {
			n.band = LayerRank(cl)
			continue
		}
		m.walk(n.e, func(e *etree.Element) {
			if cl, ok := m.layered(e.SelectAttrValue("archimateElement", "")); ok && kindOf(e) == KindDiagramObject {
				n.band = min(n.band, LayerRank(cl))
			}
		})
	}
	if opts.Grid {
		return
	}
	for _, n := range nodes {
		if m.classOf(n.concept) != "Junction" {
			continue
		}
		for _, e := range edges {
			for _, o := range [][2]*lnode{{e.a, e.b}, {e.b, e.a}} {
				if o[0] == n && m.classOf(o[1].concept) != "Junction" {
					n.band = min(n.band, o[1].band)
				}
			}
		}
	}
}

// layered is the class of an element that has a layer of its own (not a junction, grouping or
// location, which go with what they join or hold).
func (m *Model) layered(concept string) (string, bool) {
	switch cl := m.classOf(concept); cl {
	case "", "Junction", "Grouping", "Location":
		return "", false
	default:
		return cl, true
	}
}

// rankNodes puts the objects in ranks: the bands from the top, and in each band the longest path
// of connections above an object (cycles broken where a depth-first walk in document order meets
// them). It returns the ranks from the top, each in document order.
func rankNodes(nodes []*lnode, edges []ledge) [][]*lnode {
	out := map[*lnode][]*lnode{}
	for _, e := range edges {
		if e.a.band == e.b.band {
			out[e.a] = append(out[e.a], e.b)
		}
	}
	// a depth-first walk: the edges that lead back to an object on the walk's path are left out
	state := map[*lnode]int{} // 1 on the path, 2 done
	var post []*lnode
	kept := map[*lnode][]*lnode{}
	var visit func(n *lnode)
	visit = func(n *lnode) {
		state[n] = 1
		for _, o := range out[n] {
			if state[o] == 1 {
				continue
			}
			kept[n] = append(kept[n], o)
			if state[o] == 0 {
				visit(o)
			}
		}
		state[n] = 2
		post = append(post, n)
	}
	for _, n := range nodes {
		if state[n] == 0 {
			visit(n)
		}
	}
	sub := map[*lnode]int{}
	for i := len(post) - 1; i >= 0; i-- { // reverse post-order: each object after those above it
		n := post[i]
		for _, o := range kept[n] {
			sub[o] = max(sub[o], sub[n]+1)
		}
	}
	depth := map[int]int{} // the ranks of each band
	var bands []int
	for _, n := range nodes {
		if _, ok := depth[n.band]; !ok {
			bands = append(bands, n.band)
		}
		depth[n.band] = max(depth[n.band], sub[n]+1)
	}
	sort.Ints(bands)
	start, at := map[int]int{}, 0
	for _, b := range bands {
		start[b], at = at, at+depth[b]
	}
	ranks := make([][]*lnode, at)
	for _, n := range nodes {
		n.rank = start[n.band] + sub[n]
		ranks[n.rank] = append(ranks[n.rank], n)
	}
	return ranks
}

// orderRanks orders each rank to cross few lines: sweeps down and up, each object at the mean
// place of those it is connected to in the ranks already swept (the barycentre method), keeping
// the order that crosses fewest.
func orderRanks(ranks [][]*lnode, edges []ledge) {
	number := func() {
		for _, r := range ranks {
			for i, n := range r {
				n.pos = (float64(i) + 0.5) / float64(len(r))
			}
		}
	}
	number()
	save := func() [][]*lnode {
		s := make([][]*lnode, len(ranks))
		for i, r := range ranks {
			s[i] = append([]*lnode(nil), r...)
		}
		return s
	}
	best, bestN := save(), crossed(edges)
	sweep := func(r []*lnode, down bool) {
		key := map[*lnode]float64{}
		for _, n := range r {
			key[n] = n.pos
			ns := n.up
			if !down {
				ns = n.dn
			}
			if len(ns) > 0 {
				s := 0.0
				for _, o := range ns {
					s += o.pos
				}
				key[n] = s / float64(len(ns))
			}
		}
		sort.SliceStable(r, func(i, j int) bool { return key[r[i]] < key[r[j]] })
		for i, n := range r {
			n.pos = (float64(i) + 0.5) / float64(len(r))
		}
	}
	for round := 0; round < 6 && bestN > 0; round++ {
		for i := 1; i < len(ranks); i++ {
			sweep(ranks[i], true)
		}
		for i := len(ranks) - 2; i >= 0; i-- {
			sweep(ranks[i], false)
		}
		if n := crossed(edges); n < bestN {
			best, bestN = save(), n
		}
	}
	copy(ranks, best)
	number()
}

// crossed counts the pairs of connections that cross, each drawn straight from its place in its
// rank to the other's.
func crossed(edges []ledge) int {
	n := 0
	for i, e := range edges {
		for _, f := range edges[i+1:] {
			if e.a == f.a || e.a == f.b || e.b == f.a || e.b == f.b {
				continue
			}
			if segmentsMeet([2]float64{e.a.pos, float64(e.a.rank)}, [2]float64{e.b.pos, float64(e.b.rank)},
				[2]float64{f.a.pos, float64(f.a.rank)}, [2]float64{f.b.pos, float64(f.b.rank)}) {
				n++
			}
		}
	}
	return n
}

func segmentsMeet(p, q, r, s [2]float64) bool {
	side := func(a, b, c [2]float64) float64 { return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0]) }
	return side(p, q, r)*side(p, q, s) < 0 && side(r, s, p)*side(r, s, q) < 0
}

// placeRanks gives the objects their places: the ranks one under the other (rows; columns left to
// right), a rank longer than layoutPerRow wrapped; in a rank, each object as near as it can be
// under the mean of those it is connected to above, never closer than gap to the one before.
func (m *Model) placeRanks(ranks [][]*lnode, opts LayoutOptions, gap, rowGap int, origin [2]int, moved *[]string) (int, int) {
	type spot struct {
		n            *lnode
		along, depth int
	}
	var rows [][]spot
	across := 0 // the rows' top, from origin
	var tops []int
	minAlong := 0 // the least along of all, which goes at the origin
	for _, r := range ranks {
		for start := 0; start < len(r); start += layoutPerRow {
			row := r[start:min(start+layoutPerRow, len(r))]
			var out []spot
			next, depth := 0, 0
			for i, n := range row {
				w, h := n.b.Width, n.b.Height
				if opts.LeftToRight {
					w, h = h, w
				}
				at := next
				if len(n.up) > 0 && !opts.Grid {
					s, k := 0.0, 0
					for _, o := range n.up {
						if o.placed {
							s += o.cx
							k++
						}
					}
					if k > 0 {
						want := int(s/float64(k)) - w/2
						if i == 0 || want > at {
							at = want
						}
					}
				}
				out = append(out, spot{n, at, h})
				next, depth = at+w+gap, max(depth, h)
				if len(rows) == 0 && i == 0 || at < minAlong {
					minAlong = at
				}
			}
			for _, s := range out {
				w := s.n.b.Width
				if opts.LeftToRight {
					w = s.n.b.Height
				}
				s.n.cx, s.n.placed = float64(s.along+w/2), true
			}
			rows = append(rows, out)
			tops = append(tops, across)
			across += depth + rowGap
		}
	}
	right, bottom := 0, 0
	for i, row := range rows {
		for _, s := range row {
			a, c := origin[0]+s.along-minAlong, origin[1]+tops[i]
			if opts.LeftToRight {
				a, c = origin[0]+tops[i], origin[1]+s.along-minAlong
			}
			b := Bounds{X: a, Y: c, Width: s.n.b.Width, Height: s.n.b.Height}
			right, bottom = max(right, b.X+b.Width), max(bottom, b.Y+b.Height)
			if m.setPlace(s.n.e, b) {
				*moved = append(*moved, s.n.e.SelectAttrValue("id", ""))
			}
		}
	}
	return right, bottom
}

// setPlace gives a diagram object its place and, where it holds others, its size; it says
// whether anything changed. An object without children keeps its size as written (-1 stays
// Archi's default).
func (m *Model) setPlace(e *etree.Element, b Bounds) bool {
	cur, _ := (Object{m, e}).Bounds()
	changed := false
	if cur.X != b.X || cur.Y != b.Y {
		m.moveTo(e, b.X, b.Y)
		changed = true
	}
	if hasChildObjects(e) && (sized(cur).Width != b.Width || sized(cur).Height != b.Height || cur.Width < 0 || cur.Height < 0) {
		be := e.SelectElement("bounds")
		m.setAttr(be, "width", itoa(b.Width))
		m.setAttr(be, "height", itoa(b.Height))
		changed = true
	}
	return changed
}

// viewConnections are the connections of a view whose ends are diagram objects.
func (m *Model) viewConnections(v *etree.Element) []*etree.Element {
	var out []*etree.Element
	m.walk(v, func(e *etree.Element) {
		if kindOf(e) == KindConnection && strings.TrimSpace(e.SelectAttrValue("source", "")) != "" {
			out = append(out, e)
		}
	})
	return out
}
