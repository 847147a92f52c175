package web

import (
	"fmt"
	"github.com/archiplan/archiplan/daemon/web/pages"
	"net/http"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/hidden"
)

// Blame is what a Backend may add to show who changed each object and how: the history of one
// object from the index log --object reads (ledger.ObjectLog), and what a view shows, each
// object linked to its history. The page works without it (no links, no history page).
type Blame interface {
	// ObjectHistory is one object's page: how it is called at HEAD and its commits, newest
	// first; ErrNotFound when it is neither at HEAD nor in any commit.
	ObjectHistory(id string) (*ObjectPage, error)
	// Shown lists the elements and relationships a view at HEAD shows, once each, by name.
	Shown(viewID string) ([]ObjectLink, error)
}

// ObjectPage is the history of one object.
type ObjectPage struct {
	ID, Name, Type string // at HEAD ("" when it is gone)
	Entries        []ledger.ObjectEntry
}

// ObjectLink names one object shown on a view.
type ObjectLink struct{ ID, Name, Type string }

// object is the page of one object's history.
func (s *Server) object(w http.ResponseWriter, r *http.Request) {
	b, ok := s.cfg.Backend.(Blame)
	if !ok {
		s.fail(w, r, fmt.Errorf("object histories: %w", ErrNotFound))
		return
	}
	p, err := b.ObjectHistory(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	title := "History of " + p.ID
	if p.Name != "" {
		title = "History of " + p.Name
	}
	s.render(w, http.StatusOK, "object", struct {
		common
		O *ObjectPage
	}{s.common(title, "views"), p})
}

// shown is what view id shows, for its page ("nil" without Blame).
func (s *Server) shown(id string) []ObjectLink {
	b, ok := s.cfg.Backend.(Blame)
	if !ok {
		return nil
	}
	list, err := b.Shown(id)
	if err != nil {
		return nil
	}
	return list
}

// ObjectHistory implements Blame.
func (l *Local) ObjectHistory(id string) (*ObjectPage, error) {
	p := &ObjectPage{ID: id}
	err := l.led.ReadHead(func(h *ledger.Head) error {
		if o, ok := h.Model.Object(id); ok {
			p.Name, p.Type = hidden.Show(o.Name()), pages.TypeLabel(o) // as every page shows a name
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.Entries, err = ledger.ObjectLog(l.ws, id); err != nil {
		return nil, err
	}
	for i, e := range p.Entries {
		p.Entries[i] = e.Shown() // as the site and log --object show them
	}
	if p.Type == "" && len(p.Entries) == 0 {
		return nil, fmt.Errorf("object %q: %w", id, ErrNotFound)
	}
	return p, nil
}

// Shown implements Blame.
func (l *Local) Shown(viewID string) ([]ObjectLink, error) {
	var out []ObjectLink
	err := l.led.ReadHead(func(h *ledger.Head) error {
		v, ok := h.Model.Object(viewID)
		if !ok || v.Kind() != archixml.KindView {
			return fmt.Errorf("view %q: %w", viewID, ErrNotFound)
		}
		seen := map[string]bool{}
		for _, list := range [][]archixml.Object{v.DiagramObjects(), v.Connections()} {
			for _, d := range list {
				if c, ok := d.Concept(); ok && !seen[c.ID()] {
					seen[c.ID()] = true
					out = append(out, ObjectLink{ID: c.ID(), Name: hidden.Show(c.Name()), Type: pages.TypeLabel(c)})
				}
			}
		}
		return nil
	})
	return out, err
}
