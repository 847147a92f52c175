package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/web/pages"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.inbox)
	m.HandleFunc("GET /plan/{name}", s.plan)
	m.HandleFunc("GET /plan/{name}/state", s.planState)
	m.HandleFunc("GET /plan/{name}/picture/{file}", s.picture)
	m.HandleFunc("POST /plan/{name}/approve", s.approve)
	m.HandleFunc("POST /plan/{name}/reject", s.reject)
	m.HandleFunc("POST /plan/{name}/answer", s.answer)
	m.HandleFunc("GET /history", s.history)
	m.HandleFunc("POST /history/revert", s.revert)
	m.HandleFunc("GET /views", s.views)
	m.HandleFunc("GET /view/{id}", s.view)
	m.HandleFunc("GET /object/{id}", s.object)
	m.HandleFunc("GET /svg/{id}", s.svg)
	m.HandleFunc("GET /review", s.review)
	m.HandleFunc("GET /review/picture", s.reviewPicture)
	m.HandleFunc("GET /events", s.events)
	m.HandleFunc("GET /static/{file}", s.static)
	s.mux = m
}

// common is what every page's layout needs.
type common = pages.Common

// HooksHeld is what a Backend may also tell: the hooks that wait for the person's trust.
type HooksHeld interface {
	HooksWaiting() []string
}

// Placed is what a Backend may also tell: the workspace (its folder's name) and the model (its
// path there) the page is about, named on every page so that a person with two pages open
// knows which one decides what.
type Placed interface {
	Where() (workspace, model string)
}

func (s *Server) common(title, nav string) common {
	c := common{Title: title, Nav: nav, CSRF: s.csrf, Operator: s.cfg.Operator, Base: s.base}
	if p, ok := s.cfg.Backend.(Placed); ok {
		c.Workspace, c.Model = p.Where()
	}
	if h, ok := s.cfg.Backend.(HooksHeld); ok {
		c.HooksWaiting = h.HooksWaiting()
	}
	return c
}

// statusOf is the HTTP status of a backend's error: 404 for what is not there (or could not be
// named), 500 for the rest.
func statusOf(err error) int {
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrBadName) {
		return http.StatusNotFound
	}
	if errors.Is(err, inbox.ErrNameTaken) { // a planner's file takes NAME.approved or NAME.rejected
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	if status == http.StatusInternalServerError {
		s.log.Error("page", "path", r.URL.Path, "err", err)
	}
	s.result(w, status, "Not available", err.Error(), false)
}

// result draws the answer to an action, or an error.
func (s *Server) result(w http.ResponseWriter, status int, title, message string, ok bool) {
	s.render(w, status, "result", struct {
		common
		Message string
		OK      bool
	}{s.common(title, ""), message, ok})
}

// refused answers an approval or rejection refused: the page, its message starting with the
// code (a Refusal's), or, to a client that asks for JSON, {"ok": false, "code", "message"}.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, status int, title string, err error) {
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		var code string
		if rf := (*Refusal)(nil); errors.As(err, &rf) {
			code = string(rf.Code)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "title": title, "code": code, "message": err.Error()})
		return
	}
	s.result(w, status, title, err.Error(), false)
}

func (s *Server) render(w http.ResponseWriter, status int, page string, data any) {
	var b strings.Builder
	if err := s.pages.Execute(&b, page, data); err != nil {
		s.log.Error("render", "page", page, "err", err)
		http.Error(w, "internal error drawing the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

func (s *Server) inbox(w http.ResponseWriter, r *http.Request) {
	plans, err := s.cfg.Backend.Inbox()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	counts := map[State]int{}
	for _, p := range plans {
		counts[p.State]++
	}
	s.render(w, http.StatusOK, "inbox", struct {
		common
		Plans  []Plan
		Counts map[State]int
	}{s.common("Inbox", "inbox"), plans, counts})
}

func (s *Server) plan(w http.ResponseWriter, r *http.Request) {
	p, err := s.cfg.Backend.Plan(r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	preview, used := pages.Markdown(p.Preview, s.base, p.Name, p.Pictures)
	var more []string // pictures the preview's text does not show
	for _, f := range p.Pictures {
		if !used[f] {
			more = append(more, f)
		}
	}
	var asked *Asked
	if cb, ok := s.cfg.Backend.(Conversations); ok {
		asked, _ = cb.Asked(p.Name)
	}
	s.render(w, http.StatusOK, "plan", struct {
		common
		P        *PlanPage
		Preview  any
		Pictures []string
		Asked    *Asked
	}{s.common("Plan "+p.Name, "inbox"), p, preview, more, asked})
}

func (s *Server) picture(w http.ResponseWriter, r *http.Request) {
	data, err := s.cfg.Backend.Picture(r.PathValue("name"), r.PathValue("file"))
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	writeSVG(w, data)
}

// writeSVG answers a picture, never a document: opened on its own it may run nothing.
func writeSVG(w http.ResponseWriter, data []byte) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(data)
}

// planState is what the plan page's script polls after an event: it tells the page that what it
// shows is no longer what is on disk.
func (s *Server) planState(w http.ResponseWriter, r *http.Request) {
	out := map[string]string{"state": "gone"}
	if p, err := s.cfg.Backend.Plan(r.PathValue("name")); err == nil {
		out = map[string]string{"state": string(p.State), "preview_sha256": p.PreviewSHA256, "verdict": p.Verdict}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	err := s.cfg.Backend.Approve(name, r.PostFormValue("preview_sha256"), strings.TrimSpace(r.PostFormValue("reviewer")))
	switch {
	case err == nil:
		s.log.Info("approved from the page", "plan", name, "reviewer", r.PostFormValue("reviewer"))
		if p, err := s.cfg.Backend.Plan(name); err == nil && p.Waiting != "" {
			s.result(w, http.StatusOK, "Approval recorded", fmt.Sprintf("%s: your approval is recorded (%s).", name, p.Waiting), true)
			return
		}
		s.result(w, http.StatusOK, "Approved", fmt.Sprintf("%s is approved: the daemon applies it now, as one commit (see History).", name), true)
	case errors.Is(err, ErrPreviewChanged), errors.Is(err, ErrNotPending), errors.Is(err, ErrNotApproved):
		s.refused(w, r, http.StatusConflict, "Not approved", err)
	default:
		s.fail(w, r, err)
	}
}

func (s *Server) reject(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	err := s.cfg.Backend.Reject(name, reason, strings.TrimSpace(r.PostFormValue("reviewer")))
	switch {
	case err == nil:
		s.log.Info("rejected from the page", "plan", name)
		s.result(w, http.StatusOK, "Rejected", fmt.Sprintf("%s is rejected; the reason is in its preview and report.", name), true)
	case errors.Is(err, ErrNoReason):
		s.refused(w, r, http.StatusBadRequest, "Not rejected", err)
	case errors.Is(err, ErrNotPending):
		s.refused(w, r, http.StatusConflict, "Not rejected", err)
	default:
		s.fail(w, r, err)
	}
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			s.result(w, http.StatusBadRequest, "No such page", "page is a number from 1", false)
			return
		}
		page = n
	}
	lp, err := s.cfg.Backend.Log(page)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var events []ledger.Event
	if cb, ok := s.cfg.Backend.(Conversations); ok && lp.Page == 1 { // the events go with the first page
		events, _ = cb.Audit()
		for i, j := 0, len(events)-1; i < j; i, j = i+1, j-1 { // newest first, as the commits
			events[i], events[j] = events[j], events[i]
		}
	}
	s.render(w, http.StatusOK, "history", struct {
		common
		*LogPage
		Newer, Older int // the numbers of the pages around it (0: none)
		Events       []ledger.Event
	}{s.common("History", "history"), lp, lp.Page - 1, map[bool]int{true: lp.Page + 1}[lp.Older], events})
}

func (s *Server) revert(w http.ResponseWriter, r *http.Request) {
	target := strings.TrimSpace(r.PostFormValue("target"))
	commit, err := s.cfg.Backend.Revert(target)
	if err != nil {
		s.log.Info("revert refused", "target", target, "err", err)
		s.result(w, http.StatusConflict, "Not reverted", err.Error(), false)
		return
	}
	s.result(w, http.StatusOK, "Reverted", fmt.Sprintf("%s is reverted in commit %s.", target, commit), true)
}

func (s *Server) views(w http.ResponseWriter, r *http.Request) {
	views, err := s.cfg.Backend.Views()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "views", struct {
		common
		Views []View
	}{s.common("Views", "views"), views})
}

func (s *Server) view(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	views, err := s.cfg.Backend.Views()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, v := range views {
		if v.ID == id {
			s.render(w, http.StatusOK, "view", struct {
				common
				V     View
				Shown []ObjectLink // each linked to its history
			}{s.common("View "+v.Name, "views"), v, s.shown(v.ID)})
			return
		}
	}
	s.fail(w, r, fmt.Errorf("view %q: %w", id, ErrNotFound))
}

func (s *Server) svg(w http.ResponseWriter, r *http.Request) {
	at := r.URL.Query().Get("at")
	data, err := s.cfg.Backend.ViewSVG(r.PathValue("id"), at)
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	if at != "" {
		w.Header().Set("Cache-Control", "private, max-age=86400") // a view at a commit never changes
	}
	writeSVG(w, data)
}

// events streams a "change" whenever the backend says the inbox or HEAD may have changed; the
// page's script then fetches itself again. A comment every 25 s keeps proxies from closing it.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch, stop := s.cfg.Backend.Subscribe()
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	fl.Flush()
	ping := time.NewTicker(25 * time.Second)
	defer ping.Stop()
	n := 0
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		case _, ok := <-ch:
			if !ok {
				return
			}
			n++
			fmt.Fprintf(w, "event: change\ndata: %d\n\n", n)
		}
		fl.Flush()
	}
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	data, err := pages.Asset(name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	switch {
	case strings.HasSuffix(name, ".css"):
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case strings.HasSuffix(name, ".js"):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	default:
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}
