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
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
)

// Conversations is what a Backend may add beside the inbox: the questions a plan asks and the
// answers a person gave (kept under .git/, as archiplan answer keeps them), and the audit of every
// plan's events for the history. The page offers what its Backend implements.
type Conversations interface {
	// Asked is plan NAME's questions (when its status is needs_clarification) and what archiplan
	// keeps of its conversation (nil when nothing).
	Asked(name string) (*Asked, error)
	// Answer records the person's answers to NAME's questions, one for each, in order.
	Answer(name string, answers []string, by string) error
	// Audit is every plan's events, oldest first.
	Audit() ([]ledger.Event, error)
}

// Asked is a plan's questions and its conversation.
type Asked struct {
	Questions    []string
	Conversation *inbox.Conversation
}

// ErrAnswers means the answers given do not answer the plan's questions one for one.
var ErrAnswers = errors.New("ANSWERS_MISMATCH")

// Asked implements Conversations.
func (l *Local) Asked(name string) (*Asked, error) {
	e, err := l.find(name)
	if err != nil {
		return nil, err
	}
	a := &Asked{}
	if raw, err := l.box.ReadPlan(e); err == nil {
		if obj, _, ferr := plans.Extract(raw, false); ferr == nil {
			var p struct {
				Status    string   `json:"status"`
				Questions []string `json:"questions"`
			}
			if json.Unmarshal(obj, &p) == nil && p.Status == plans.StatusNeedsClarification {
				a.Questions = p.Questions
			}
		}
	}
	a.Conversation, err = l.box.Conversation(name)
	return a, err
}

// Answer implements Conversations: the answers are kept as archiplan answer keeps them (the planner
// is asked again by archiplan answer NAME, which takes the answers kept).
func (l *Local) Answer(name string, answers []string, by string) error {
	a, err := l.Asked(name)
	if err != nil {
		return err
	}
	if len(a.Questions) == 0 || len(answers) != len(a.Questions) {
		return fmt.Errorf("%w: %s asks %d question(s)", ErrAnswers, name, len(a.Questions))
	}
	for _, x := range answers {
		if strings.TrimSpace(x) == "" {
			return fmt.Errorf("%w: every question needs an answer", ErrAnswers)
		}
	}
	c := a.Conversation
	if c == nil {
		c = &inbox.Conversation{Name: name}
	}
	c.Questions, c.Answers, c.FollowedBy = a.Questions, answers, ""
	c.AnsweredBy, c.AnsweredAt = by, time.Now().UTC().Format(time.RFC3339)
	if err := l.box.SaveConversation(c); err != nil {
		return err
	}
	if err := ledger.Audit(l.ws, l.box, ledger.Event{Event: ledger.EventAnswered, Name: name, Questions: a.Questions,
		Answers: answers, By: by}); err != nil {
		l.log.Warn("audit not recorded", "plan", name, "err", err)
	}
	l.Notify()
	return nil
}

// Audit implements Conversations: the events with their hidden characters as codes (hidden.Show),
// as every other text of the page: a plan's summary, a reason or an intent is a planner's (or
// anyone's who can push to the audit) and could carry a right-to-left override.
func (l *Local) Audit() ([]ledger.Event, error) {
	events, err := ledger.AuditLog(l.ws)
	for i := range events {
		e := &events[i]
		for _, f := range []*string{&e.Name, &e.PlanID, &e.SHA256, &e.Summary, &e.Status, &e.Intent, &e.Planner, &e.Model, &e.Thread,
			&e.Turn, &e.Follows, &e.Verdict, &e.Reason, &e.Commit, &e.By, &e.Plan} {
			*f = hidden.Show(*f)
		}
		for _, list := range [][]string{e.Errors, e.Warnings, e.Questions, e.Answers} {
			for j := range list {
				list[j] = hidden.Show(list[j])
			}
		}
	}
	return events, err
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	cb, ok := s.cfg.Backend.(Conversations)
	if !ok {
		http.NotFound(w, r)
		return
	}
	name := r.PathValue("name")
	var answers []string
	for i := 0; ; i++ {
		v, ok := r.PostForm["answer"+strconv.Itoa(i)]
		if !ok || len(v) == 0 {
			break
		}
		answers = append(answers, strings.TrimSpace(v[0]))
	}
	by := strings.TrimSpace(r.PostFormValue("reviewer"))
	if by == "" {
		by = "the review page"
	}
	switch err := cb.Answer(name, answers, by); {
	case err == nil:
		s.log.Info("answered from the page", "plan", name)
		s.result(w, http.StatusOK, "Answers kept",
			fmt.Sprintf("The answers to %s are kept. Run archiplan answer %s to ask the planner again; whoever plans next sees them.", name, name), true)
	case errors.Is(err, ErrAnswers):
		s.result(w, http.StatusBadRequest, "Not answered", err.Error(), false)
	default:
		s.fail(w, r, err)
	}
}
