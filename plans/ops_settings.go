package plans

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// The ops of a view as a whole and of multi-valued properties, and what 3.1 adds to older ops'
// handlers.

func (e *engine) duplicateView(i int, a Action, r *ActionResult) {
	v, ok := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	if !ok || e.protected(i, "view_id", v) || !e.checkRefID(i, a) {
		return
	}
	name := str(a.Name)
	if name == "" {
		name = v.Name() + " (copy)"
	} else if e.blank(i, "name", name) {
		return
	}
	r.Description = words("Duplicate view %q (%s) as %q", v.Name(), v.ID(), name)
	id, err := e.m.DuplicateView(v.ID(), name)
	if !e.edit(i, "view_id", err) {
		return
	}
	e.declare(i, a, id)
	e.touchView(id)
	r.Created = []string{id}
	r.Description += words(" (%s)", id)
}

func (e *engine) setConnectionRouter(i int, a Action, r *ActionResult) {
	v, ok := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	if !ok || e.protected(i, "view_id", v) {
		return
	}
	router := str(a.Router)
	value := archixml.Routers[router]
	r.Description = words("Route the connections of view %q (%s) %s", v.Name(), v.ID(), router)
	r.touched = []string{v.ID()}
	before := "manual"
	if v.Attr("connectionRouterType") == archixml.Routers["manhattan"] {
		before = "manhattan"
	}
	r.change(before, router)
	if v.Attr("connectionRouterType") == value {
		e.errorf(i, "router", NoOp, router, "view %q routes its connections %s already", v.Name(), router)
		return
	}
	if e.once(i, "router", "router|"+v.ID(), router, "the router of view "+v.Name()) {
		e.edit(i, "router", e.m.SetConnectionRouter(v.ID(), value))
	}
}

// propertyValues are the values a key has on an object, in file order.
func propertyValues(o archixml.Object, key string) []string {
	var vs []string
	for _, p := range o.Properties() {
		if p.Key == key {
			vs = append(vs, p.Value)
		}
	}
	return vs
}

// changeValues records the values a multi-valued property has before and after: for programs as
// one line each (Go-quoted), for the preview each value shown on its own.
func (r *ActionResult) changeValues(before, after []string) {
	r.change(quotedValues(before), quotedValues(after))
	r.lists = &[2][]string{before, after}
}

func quotedValues(vs []string) string {
	if len(vs) == 0 {
		return "(none)"
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func (e *engine) addPropertyValue(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	key, val := str(a.Key), str(a.Value)
	had := propertyValues(o, key)
	r.Description = words("Add the value %q to property %q of %s", val, key, label(o))
	r.changeValues(had, append(append([]string(nil), had...), val))
	r.touched = []string{o.ID()}
	if e.blank(i, "key", key) {
		return
	}
	for _, v := range had {
		if v == val {
			e.errorf(i, "value", NoOp, val, "property %q of %s has this value already", key, label(o))
			return
		}
	}
	if e.once(i, "value", "propvalue|"+o.ID()+"|"+key+"|"+val, "add", fmt.Sprintf("the value %q of property %q of %s", val, key, label(o))) {
		e.edit(i, "value", e.m.AddPropertyValue(o.ID(), key, val))
	}
}

func (e *engine) removePropertyValue(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	key, val := str(a.Key), str(a.Value)
	had := propertyValues(o, key)
	var left []string
	found := false
	for _, v := range had {
		if v == val && !found {
			found = true
			continue
		}
		left = append(left, v)
	}
	r.Description = words("Remove the value %q of property %q of %s", val, key, label(o))
	r.changeValues(had, left)
	r.touched = []string{o.ID()}
	if !found {
		e.errorf(i, "value", NoOp, val, "property %q of %s has no value %q", key, label(o), val)
		return
	}
	if e.once(i, "value", "propvalue|"+o.ID()+"|"+key+"|"+val, "remove", fmt.Sprintf("the value %q of property %q of %s", val, key, label(o))) {
		e.edit(i, "value", e.m.RemovePropertyValue(o.ID(), key, val))
	}
}

// renamed is the name on_duplicate rename gives a new element or view: the name, then "Name (2)",
// "Name (3)", ... until no object of the class has it.
func (e *engine) renamed(class, name string) string {
	for n := 2; ; n++ {
		cand := fmt.Sprintf("%s (%d)", name, n)
		taken := false
		for _, o := range e.m.Named(class, cand) {
			if _, gone := e.deleted[o.ID()]; !gone {
				taken = true
				break
			}
		}
		if !taken {
			return cand
		}
	}
}

// styleInts are the 3.1 style fields that are numbers: opacity (alpha, 255 Archi's default) and
// line width (1 the default), as attribute and value; "" for the default (no attribute).
func styleInts(a Action) []struct{ field, attr, value, shown string } {
	var out []struct{ field, attr, value, shown string }
	if a.Opacity != nil {
		v := fmt.Sprint(*a.Opacity)
		shown := v
		if *a.Opacity == 255 {
			v = ""
		}
		out = append(out, struct{ field, attr, value, shown string }{"opacity", "alpha", v, shown})
	}
	if a.LineWidth != nil {
		v := fmt.Sprint(*a.LineWidth)
		shown := v
		if *a.LineWidth == 1 {
			v = ""
		}
		out = append(out, struct{ field, attr, value, shown string }{"line_width", "lineWidth", v, shown})
	}
	return out
}

// isDiagramObject says whether an id (or the ref_id of an object the plan made) names a diagram
// object, note or group.
func (e *engine) isDiagramObject(value string) bool {
	if id, ok := e.refs[value]; ok {
		value = id
	}
	o, ok := e.m.Object(value)
	return ok && o.Kind() == archixml.KindDiagramObject
}

// moveInto moves a diagram object into another parent (move_view_object with parent_id, 3.1).
func (e *engine) moveInto(i int, a Action, o archixml.Object, r *ActionResult) {
	v, _ := o.View()
	var p archixml.Object
	ok := false
	if id, isRef := e.refs[*a.ParentID]; (isRef && id == v.ID()) || *a.ParentID == v.ID() {
		p, ok = v, true
	} else {
		p, ok = e.resolveDiagram(i, "parent_id", *a.ParentID, v)
	}
	if !ok {
		return
	}
	cur, _ := o.Parent()
	b, _ := o.Bounds()
	nb := archixml.Bounds{X: intOr(a.X, b.X), Y: intOr(a.Y, b.Y), Width: intOr(a.Width, b.Width), Height: intOr(a.Height, b.Height)}
	where := "the view itself"
	if p.Kind() != archixml.KindView {
		where = diagramLabel(p)
	}
	r.Description = words("Move %s into %s", diagramLabel(o), where)
	r.hasBefore, r.Before = true, fmt.Sprintf("at %d,%d size %dx%d", b.X, b.Y, b.Width, b.Height)
	r.After = fmt.Sprintf("at %d,%d size %dx%d, inside %s", nb.X, nb.Y, nb.Width, nb.Height, where)
	if cur.ID() == p.ID() && nb == b {
		e.errorf(i, "parent_id", NoOp, p.ID(), "%s is in %s already, %s", diagramLabel(o), where, r.Before)
		return
	}
	if !e.once(i, "object_id", "bounds|"+o.ID(), r.After, "the place of "+diagramLabel(o)) {
		return
	}
	if err := e.m.MoveInto(o.ID(), p.ID(), a.X, a.Y); err != nil {
		e.errorf(i, "parent_id", RefWrongKind, p.ID(), "%v", err)
		return
	}
	if a.Width != nil || a.Height != nil {
		e.edit(i, "object_id", e.m.SetBounds(o.ID(), nil, nil, a.Width, a.Height))
	}
	r.changed = []string{o.ID()}
}
