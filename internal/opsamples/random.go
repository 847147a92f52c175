package opsamples

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// Random is a ready plan of one to three actions on objects of m picked by rng, none of them in
// avoid (ids): renames, properties, documentation, new elements (on a view too), new
// relationships, deletions, moves to a folder, diagram objects moved, restyled or removed. tag
// makes its texts and names its own. A merge test applies two such plans on two branches. It
// returns nil when m has nothing left to pick.
func Random(m *archixml.Model, rng *rand.Rand, avoid map[string]bool, tag string) []byte {
	elems, rels, objs, views := pickable(m, avoid)
	if len(elems) == 0 {
		return nil
	}
	pick := func(list []archixml.Object) archixml.Object { return list[rng.IntN(len(list))] }
	used := map[string]bool{}
	free := func(list []archixml.Object) []archixml.Object {
		var out []archixml.Object
		for _, o := range list {
			if !used[o.ID()] {
				out = append(out, o)
			}
		}
		return out
	}
	var actions []map[string]any
	n := 1 + rng.IntN(3)
	for i := 0; len(actions) < n && i < 20; i++ {
		text := fmt.Sprintf("%s %d", tag, i)
		es := free(elems)
		if len(es) == 0 {
			break
		}
		e := pick(es)
		var a []map[string]any
		switch rng.IntN(11) {
		case 0:
			a = acts{act(schemas.RenameElement, "element_id", e.ID(), "new_name", "Renamed "+text)}
		case 1:
			a = acts{act(schemas.SetProperty, "element_id", e.ID(), "key", "Key "+tag, "value", "Value "+text)}
		case 2:
			a = acts{act(schemas.SetDocumentation, "element_id", e.ID(), "documentation", "Doc "+text)}
		case 3:
			a = acts{act(schemas.CreateElement, "type", "Business Actor", "name", "New "+text, "ref_id", "n"+fmt.Sprint(i))}
			if len(views) > 0 {
				a = append(a, act(schemas.AddToView, "view_id", pick(views).ID(), "element_id", "n"+fmt.Sprint(i),
					"x", 5000+rng.IntN(500), "y", 5000+rng.IntN(500), "connect", false))
			}
		case 4:
			if len(m.RelationshipsOf(e.ID())) > 0 && rng.IntN(2) == 0 {
				continue // a delete reaches far: now and then
			}
			a = acts{act(schemas.DeleteElement, "element_id", e.ID())}
		case 5:
			f := free(es)
			o := pick(f)
			if o.ID() == e.ID() {
				continue
			}
			used[o.ID()] = true
			a = acts{act(schemas.CreateRelationship, "source_id", e.ID(), "target_id", o.ID(), "relationship_type", "Association",
				"name", "Rel "+text)}
		case 6:
			top := strings.SplitN(e.FolderPath(), "/", 2)[0]
			a = acts{act(schemas.MoveToFolder, "element_id", e.ID(), "folder_path", top+"/Folder "+tag)}
		case 7, 8, 9:
			ds := free(objs)
			if len(ds) == 0 {
				continue
			}
			d := pick(ds)
			used[d.ID()] = true
			a = viewObjectAction(d, rng)
			if c, ok := d.Concept(); ok {
				used[c.ID()] = true
			}
		case 10:
			rs := free(rels)
			if len(rs) == 0 {
				continue
			}
			r := pick(rs)
			used[r.ID()] = true
			a = acts{act(schemas.DeleteRelationship, "relationship_id", r.ID())}
		}
		used[e.ID()] = true
		actions = append(actions, a...)
	}
	if len(actions) == 0 {
		return nil
	}
	b, err := json.Marshal(map[string]any{"schema_version": schemas.Newest, "status": "ready",
		"summary": "random plan " + tag, "actions": actions})
	if err != nil {
		panic(err)
	}
	return b
}

// pickable is what Random may pick in m, none of it in avoid: the elements but junctions, the
// relationships, the views (of ArchiMate) and the diagram objects on them that show an element.
func pickable(m *archixml.Model, avoid map[string]bool) (elems, rels, objs, views []archixml.Object) {
	for _, e := range m.Elements() {
		if e.Class() != "Junction" && !avoid[e.ID()] {
			elems = append(elems, e)
		}
	}
	for _, r := range m.Relationships() {
		if !avoid[r.ID()] && !avoid[r.SourceID()] && !avoid[r.TargetID()] {
			rels = append(rels, r)
		}
	}
	for _, v := range m.Views() {
		if v.Class() != "ArchimateDiagramModel" || avoid[v.ID()] {
			continue
		}
		views = append(views, v)
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); ok && c.Kind() == archixml.KindElement && !avoid[d.ID()] && !avoid[c.ID()] {
				objs = append(objs, d)
			}
		}
	}
	return elems, rels, objs, views
}

// viewObjectAction moves, restyles or removes diagram object d, as rng picks.
func viewObjectAction(d archixml.Object, rng *rand.Rand) acts {
	switch rng.IntN(3) {
	case 0:
		return acts{act(schemas.MoveViewObject, "object_id", d.ID(), "x", rng.IntN(900), "y", rng.IntN(900), "width", 120+rng.IntN(80), "height", 55)}
	case 1:
		return acts{act(schemas.StyleViewObject, "object_id", d.ID(), "fill_color", fmt.Sprintf("#%06x", rng.IntN(1<<24)))}
	default:
		return acts{act(schemas.RemoveFromView, "object_id", d.ID())}
	}
}
