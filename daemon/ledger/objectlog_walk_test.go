package ledger

import (
	"encoding/json"
	"fmt"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/store"
)

// objectLogWalk is ObjectLog without the index, as it was before it: the reference the index is
// held to, and what it is measured against. Every
// commit whose model differs from its parent's in the object, or in a diagram object or
// connection showing it (moved, restyled, added to or removed from a view).
func objectLogWalk(ws *store.Workspace, id string) ([]ObjectEntry, error) {
	hist, err := ws.History(nil)
	if err != nil {
		return nil, err
	}
	side, err := ws.SideCommits(hist)
	if err != nil {
		return nil, err
	}
	var out []ObjectEntry
	var prev *archixml.Model
	prevBlob := ""
	for i := len(hist) - 1; i >= 0; i-- {
		c := hist[i]
		// the commits its merge brought, oldest first, each against its own first parent
		for j := len(side) - 1; j >= 0; j-- {
			if s := side[j]; s.Via == c.Hash {
				p, err := ws.Info(s.Parent)
				if err != nil {
					return nil, err
				}
				before, after, err := modelAt2(ws, p.Hash, s.Hash)
				if err != nil {
					return nil, err
				}
				if lines := objectChanges(before, after, id); len(lines) > 0 && p.ModelBlob != s.ModelBlob {
					e := walkEntry(ws, s, lines)
					e.MergedBy = c.Hash
					out = append(out, e)
				}
			}
		}
		if c.ModelBlob == prevBlob {
			continue
		}
		var cur *archixml.Model
		if c.ModelBlob != "" {
			data, ok, err := ws.ModelAt(c.Hash)
			if err != nil {
				return nil, err
			}
			if ok {
				if cur, err = archixml.LoadOwned(data); err != nil {
					return nil, fmt.Errorf("the model at %s: %w", short(c.Hash), err)
				}
			}
		}
		prevBlob = c.ModelBlob
		lines := objectChanges(prev, cur, id)
		prev = cur
		if len(lines) == 0 {
			continue
		}
		out = append(out, walkEntry(ws, c, lines))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// walkEntry is the walk's entry of commit c, with the words lines.
func walkEntry(ws *store.Workspace, c store.CommitInfo, lines []string) ObjectEntry {
	e := ObjectEntry{Commit: c.Hash, Date: c.When.UTC().Format("2006-01-02T15:04:05Z"), Author: c.Author, Changes: lines}
	if pid := c.Trailers[store.TrailerPlanID]; pid != "" {
		if plan, ok, _ := ws.FileAt(c.Hash, archivePath(pid, archivePlan)); ok {
			var p struct {
				Summary string `json:"summary"`
			}
			_ = json.Unmarshal(plan, &p)
			e.PlanID, e.Summary, e.ApprovedBy = pid, p.Summary, c.Trailers[store.TrailerApprovedBy]
			e.Intent = archivedIntent(ws, c.Hash, pid)
		}
	}
	return e
}

// modelAt2 reads the models at two commits (nil where a commit has none).
func modelAt2(ws *store.Workspace, a, b string) (*archixml.Model, *archixml.Model, error) {
	x, err := modelAt(ws, a)
	if err != nil {
		return nil, nil, err
	}
	y, err := modelAt(ws, b)
	return x, y, err
}

// objectChanges says what changed between two models (either may be nil: no model) in the
// object and in what shows it on views.
func objectChanges(before, after *archixml.Model, id string) []string {
	switch {
	case after == nil && before == nil:
		return nil
	case before == nil:
		if o, ok := after.Object(id); ok {
			return []string{"created as " + diff.Label(o)}
		}
		return nil
	case after == nil:
		if o, ok := before.Object(id); ok {
			return []string{"deleted " + diff.Label(o) + " (the model left)"}
		}
		return nil
	}
	_, inBefore := before.Object(id)
	_, inAfter := after.Object(id)
	if !inBefore && !inAfter {
		return nil
	}
	var lines []string
	for _, ch := range diff.Models(before, after).Changes {
		if ch.ID == id {
			lines = append(lines, ch.Text)
		}
		if ch.Kind != diff.KindView {
			continue
		}
		for _, d := range ch.Diagram {
			if d.ID == id || shows(after, d.ID, id) || shows(before, d.ID, id) {
				lines = append(lines, d.Text+" on view \""+ch.Name+"\"")
			}
		}
	}
	return lines
}

// shows reports whether the diagram object or connection obj shows the concept id in m.
func shows(m *archixml.Model, obj, id string) bool {
	o, ok := m.Object(obj)
	if !ok {
		return false
	}
	c, ok := o.Concept()
	return ok && c.ID() == id
}
