package plans

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mtibben/confusables"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/schemas"
)

// handler is one op: it checks an action against the model as the actions before it left it,
// performs it through archixml's journaled edits (so that the journal is its inverse), and says
// in the result what it did, with names resolved, and which ids it read and changed. The fields
// an action gives are shown from the op's definition (given), so a handler says only what it
// finds in the model.
type handler func(e *engine, i int, a Action, r *ActionResult)

// handlers holds the one handler of each op of schemas.Ops (TestHandlers_MatchOps).
var handlers = map[schemas.OpName]handler{
	schemas.RenameElement:       (*engine).renameElement,
	schemas.SetProperty:         (*engine).setProperty,
	schemas.RemoveProperty:      (*engine).removeProperty,
	schemas.SetDocumentation:    (*engine).setDocumentation,
	schemas.CreateElement:       (*engine).createElement,
	schemas.CreateRelationship:  (*engine).createRelationship,
	schemas.UpdateRelationship:  (*engine).updateRelationship,
	schemas.DeleteElement:       (*engine).deleteElement,
	schemas.DeleteRelationship:  (*engine).deleteRelationship,
	schemas.SetSpecialization:   (*engine).setSpecialization,
	schemas.ChangeType:          (*engine).changeType,
	schemas.MergeElements:       (*engine).mergeElements,
	schemas.CreateView:          (*engine).createView,
	schemas.DeleteView:          (*engine).deleteView,
	schemas.AddToView:           (*engine).addToView,
	schemas.AddConnectionToView: (*engine).addConnection,
	schemas.RemoveFromView:      (*engine).removeFromView,
	schemas.MoveViewObject:      (*engine).moveViewObject,
	schemas.StyleViewObject:     (*engine).styleViewObject,
	schemas.CreateNote:          (*engine).createNote,
	schemas.CreateGroup:         (*engine).createGroup,
	schemas.LayoutView:          (*engine).layoutView,
	schemas.MoveToFolder:        (*engine).moveToFolder,
	schemas.CreateFolder:        (*engine).createFolder,
	schemas.DuplicateView:       (*engine).duplicateView,
	schemas.SetConnectionRouter: (*engine).setConnectionRouter,
	schemas.AddPropertyValue:    (*engine).addPropertyValue,
	schemas.RemovePropertyValue: (*engine).removePropertyValue,
}

// propertyHolders are the kinds that carry properties and documentation in Archi.
var propertyHolders = []archixml.Kind{archixml.KindElement, archixml.KindRelationship, archixml.KindView, archixml.KindFolder}

// blank refuses text that is only spaces where a value is needed (empty text the schema refuses).
func (e *engine) blank(i int, field, value string) bool {
	if strings.TrimSpace(value) == "" {
		e.errorf(i, field, TextBlank, value, "%s is empty or only spaces", field)
		return true
	}
	return false
}

// duplicateName warns when a created element or view takes the name and type of an object the
// model (or the plan) already has; it returns the first such object, for on_duplicate.
func (e *engine) duplicateName(i int, class, name, what string, warn bool) (archixml.Object, bool) {
	same, like := e.byName(class, name)
	for _, o := range same {
		if _, gone := e.deleted[o.ID()]; gone {
			continue
		}
		if warn {
			e.errorf(i, "name", DuplicateName, name, "%s already exists; this makes a second %s of that name", label(o), what)
		}
		return o, true
	}
	if warn {
		e.confusable(i, like, name, what)
	}
	return archixml.Object{}, false
}

// byName is what the model holds of the class under a name: the objects with exactly this name,
// ordered by id as Named orders them, and those whose names read alike (Alike, by skeleton), in
// document order. Both come from the model's one index of skeletons (equal names have equal
// skeletons), not from a second index of every name (at 100,000 elements each is a walk of the
// model and a map of its names, a twentieth of a 100-rename apply's CPU).
func (e *engine) byName(class, name string) (same, like []archixml.Object) {
	like = e.m.Alike(class, name, &skeletonFold)
	for _, o := range like {
		if o.Name() == name {
			same = append(same, o)
		}
	}
	slices.SortFunc(same, func(a, b archixml.Object) int { return strings.Compare(a.ID(), b.ID()) })
	return same, like
}

// confusable warns (DUPLICATE_NAME) when a created element or view takes a name that reads like
// the name of an existing object of its type: equal after Unicode's confusable folding (UTS #39
// skeletons: "Сustomer" with a Cyrillic С beside "Customer"). It is never taken for that object
// (on_duplicate reuses only an equal name). The model keeps the index of skeletons (Alike), up
// to date with the plan's own edits before this one.
func (e *engine) confusable(i int, like []archixml.Object, name, what string) {
	for _, o := range like {
		if _, gone := e.deleted[o.ID()]; gone || o.Name() == name {
			continue
		}
		e.errorf(i, "name", DuplicateName, name, "%s has a name that looks the same (%s beside %s); this makes a second %s that reads alike",
			label(o), quoteASCII(name), quoteASCII(o.Name()), what)
		return
	}
}

// skeletonFold is the one Fold the model's index of skeletons is kept by.
var skeletonFold archixml.Fold = skeleton

// skeleton is a name's UTS #39 skeleton without the characters a person cannot see (hidden), as
// UTS #39 leaves out the default-ignorable ones: "Customer" with a zero-width space or a tag
// character after it reads as "Customer".
func skeleton(name string) string {
	if s, ok := asciiSkeleton(name); ok {
		return s
	}
	return confusables.Skeleton(strings.Map(func(r rune) rune {
		if hidden.Is(r) {
			return -1
		}
		return r
	}, name))
}

// onDuplicate handles a create whose object exists already (existing): with on_duplicate error
// it refuses, with reuse its ref_id names the existing object. It returns true when the action is
// done without creating anything.
func (e *engine) onDuplicate(i int, a Action, r *ActionResult, existing archixml.Object) bool {
	switch str(a.OnDuplicate) {
	case "error":
		e.errorf(i, "on_duplicate", DuplicateRefused, existing.ID(), "%s already exists and on_duplicate is error", label(existing))
		return true
	case "reuse":
		if a.RefID != nil {
			e.refs[*a.RefID] = existing.ID()
		}
		r.Description = "Reuse " + label(existing) + " (it exists already)"
		r.touched, r.reused = []string{existing.ID()}, true
		return true
	}
	return false
}

// checkViewRef declares a ref_id an action gives what it draws, after checking it.
func (e *engine) refFor(i int, a Action, id string) {
	e.created[id] = true
	if a.RefID != nil {
		e.refs[*a.RefID] = id
	}
}

// placement reads where an action puts something on view v: the parent it nests in (parent_id)
// and its bounds (x, y, width, height; the size defaults to size), nil when the plan gives no x
// and y. It adds both to the action's description.
func (e *engine) placement(i int, a Action, v archixml.Object, size archixml.Bounds, r *ActionResult) (string, *archixml.Bounds, bool) {
	parent := ""
	if a.ParentID != nil {
		p, ok := e.resolveDiagram(i, "parent_id", *a.ParentID, v)
		if !ok {
			return "", nil, false
		}
		parent = p.ID()
		r.Description += ", inside " + diagramLabel(p)
	}
	if a.X == nil && a.Y == nil {
		return parent, nil, true
	}
	b := archixml.Bounds{X: intOr(a.X, 0), Y: intOr(a.Y, 0), Width: intOr(a.Width, size.Width), Height: intOr(a.Height, size.Height)}
	r.After = fmt.Sprintf("at %d,%d size %dx%d", b.X, b.Y, b.Width, b.Height)
	return parent, &b, true
}

// holders are the bounds of a diagram object or group and of what holds it, up to the view: an
// object put inside it without a place may grow them (grown says how).
func (e *engine) holders(parent string) []archixml.Object {
	var out []archixml.Object
	for o, ok := e.m.Object(parent); ok && o.Kind() == archixml.KindDiagramObject; o, ok = o.Parent() {
		out = append(out, o)
	}
	return out
}

// grown says which holders an edit made larger, as ", NAME grown from 277x150 to 288x160"; before
// are their bounds before it.
func grown(hs []archixml.Object, before []archixml.Bounds) string {
	var b strings.Builder
	for i, h := range hs {
		now, _ := h.Bounds()
		if now != before[i] {
			fmt.Fprintf(&b, ", %s grown from %dx%d to %dx%d to hold it", diagramLabel(h), before[i].Width, before[i].Height, now.Width, now.Height)
		}
	}
	return b.String()
}

func boundsOf(hs []archixml.Object) []archixml.Bounds {
	out := make([]archixml.Bounds, len(hs))
	for i, h := range hs {
		out[i], _ = h.Bounds()
	}
	return out
}

// resolveDiagram resolves a diagram object, note, group (or, with conns, a connection) on a view;
// v may be invalid when any view will do. The scope of a context holds views, not what they show:
// a diagram component is in scope when its view is.
func (e *engine) resolveDiagram(i int, field, value string, v archixml.Object, kinds ...archixml.Kind) (archixml.Object, bool) {
	if len(kinds) == 0 {
		kinds = []archixml.Kind{archixml.KindDiagramObject}
	}
	scope := e.scope
	e.scope = nil
	o, ok := e.resolve(i, field, value, kinds...)
	e.scope = scope
	if !ok {
		return o, false
	}
	ov, _ := o.View()
	if v.Valid() && ov.ID() != v.ID() {
		e.errorf(i, field, RefWrongKind, value, "%s is on view %q, not on view %q", diagramLabelIn(o), ov.Name(), v.Name())
		return o, false
	}
	if e.scope != nil && !e.created[o.ID()] && !e.scope[ov.ID()] {
		e.errorf(i, field, PolicyOutOfScope, value, "%s lies on view %q, outside the plan's context", diagramLabelIn(o), ov.Name())
		return o, false
	}
	if e.protected(i, field, ov) {
		return o, false
	}
	return o, true
}

// diagramLabel names a diagram component by what it shows, and an element's or relationship's
// figure by the view it is on.
func diagramLabel(o archixml.Object) string {
	if c, ok := o.Concept(); ok {
		if v, ok := o.View(); ok {
			return words("%s on view %q (%s)", label(c), v.Name(), o.ID())
		}
	}
	return diagramLabelIn(o)
}

// diagramLabelIn names a diagram component in a sentence that names its view.
func diagramLabelIn(o archixml.Object) string {
	switch o.Class() {
	case "Note":
		return fmt.Sprintf("note (%s)", o.ID())
	case "Group":
		return words("group %q (%s)", o.Name(), o.ID())
	}
	if c, ok := o.Concept(); ok {
		return fmt.Sprintf("%s on the view (%s)", label(c), o.ID())
	}
	kind := "diagram object"
	if o.Kind() == archixml.KindConnection {
		kind = "connection"
	}
	return fmt.Sprintf("%s %s", kind, o.ID())
}

// labelOf is a concept's type as jArchi and planners write it ("Business Actor").
func labelOf(o archixml.Object) string {
	if t := o.Type(); t != nil && t.Label != "" {
		return t.Label
	}
	return archixml.TypeWords(o.Class())
}

// asciiSkeletons are the skeletons of the printable ASCII characters, "" for those whose skeleton
// is not ASCII ("%" is "º/₀"): confusables.Skeleton's, written out (TestSkeleton_ASCIIAsUTS39 checks
// them against it) so that a name in ASCII never builds the confusables' table of 6,300 runes.
var asciiSkeletons = [0x80]string{
	' ': " ", '!': "!", '"': "''", '#': "#", '$': "$", '&': "&", '\'': "'", '(': "(",
	')': ")", '*': "*", '+': "+", ',': ",", '-': "-", '.': ".", '/': "/", '0': "O",
	'1': "l", '2': "2", '3': "3", '4': "4", '5': "5", '6': "6", '7': "7", '8': "8",
	'9': "9", ':': ":", ';': ";", '<': "<", '=': "=", '>': ">", '?': "?", '@': "@",
	'A': "A", 'B': "B", 'C': "C", 'D': "D", 'E': "E", 'F': "F", 'G': "G", 'H': "H",
	'I': "l", 'J': "J", 'K': "K", 'L': "L", 'M': "M", 'N': "N", 'O': "O", 'P': "P",
	'Q': "Q", 'R': "R", 'S': "S", 'T': "T", 'U': "U", 'V': "V", 'W': "W", 'X': "X",
	'Y': "Y", 'Z': "Z", '[': "[", '\\': "\\", ']': "]", '^': "^", '_': "_", '`': "'",
	'a': "a", 'b': "b", 'c': "c", 'd': "d", 'e': "e", 'f': "f", 'g': "g", 'h': "h",
	'i': "i", 'j': "j", 'k': "k", 'l': "l", 'm': "rn", 'n': "n", 'o': "o", 'p': "p",
	'q': "q", 'r': "r", 's': "s", 't': "t", 'u': "u", 'v': "v", 'w': "w", 'x': "x",
	'y': "y", 'z': "z", '{': "{", '|': "l", '}': "}", '~': "~",
}

// asciiSkeleton is skeleton(name) for a name of ASCII characters whose skeletons are ASCII too
// (nearly every name): UTS #39 maps a string character by character between two NFDs, and NFD
// leaves ASCII as it is, so the skeleton is the characters' skeletons one after the other, hidden
// ones left out. ok is false for any other name (a hundred thousand names are a tenth of a second
// through the general path, on every plan that renames or creates).
func asciiSkeleton(name string) (string, bool) {
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 0x80:
			return "", false
		case hidden.Is(rune(c)):
		case asciiSkeletons[c] == "":
			return "", false
		default:
			b.WriteString(asciiSkeletons[c])
		}
	}
	return b.String(), true
}

// quoteASCII quotes a name as hidden.Quote does, and writes every other character outside ASCII
// as its code too (a Cyrillic С as \u{0421}): what a confusable warning shows, so two names
// that read alike are told apart, in the one form of a code.
func quoteASCII(s string) string {
	q := hidden.Quote(s)
	if !strings.ContainsFunc(q, func(r rune) bool { return r >= 0x80 }) {
		return q
	}
	var b strings.Builder
	for _, r := range q {
		if r >= 0x80 {
			b.WriteString(hidden.Code(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
