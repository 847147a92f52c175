package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// EventKind is one step of a plan's life in the audit.
type EventKind string

// The events the audit records.
const (
	EventReceived  EventKind = "received"
	EventPreviewed EventKind = "previewed"
	EventAnswered  EventKind = "answered"
	EventApproved  EventKind = "approved"
	EventRejected  EventKind = "rejected"
	EventWithdrawn EventKind = "withdrawn"
	EventApplied   EventKind = "applied"
	EventReverted  EventKind = "reverted"
)

// AuditFormat versions audit records.
const AuditFormat = "1"

// Event is one record of the audit: what happened to which plan, when, the request and the
// planner behind it (from the conversation archiplan keeps), the validation results and the
// outcome. It is committed on refs/archiplan/audit (store.AppendAudit), outside the model's tree.
type Event struct {
	FormatVersion string    `json:"format_version"`
	Event         EventKind `json:"event"`
	Time          string    `json:"time"`
	Name          string    `json:"name"`
	PlanID        string    `json:"plan_id,omitempty"`
	SHA256        string    `json:"sha256,omitempty"`
	Summary       string    `json:"summary,omitempty"`
	Status        string    `json:"status,omitempty"`
	// the request and the planner
	Intent  string `json:"intent,omitempty"`
	Planner string `json:"planner,omitempty"`
	Model   string `json:"model,omitempty"`
	Thread  string `json:"thread,omitempty"`
	Turn    string `json:"turn,omitempty"`
	Follows string `json:"follows,omitempty"`
	// validation: the verdict and the codes found
	Verdict  string   `json:"verdict,omitempty"`
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// the outcome
	Reason    string   `json:"reason,omitempty"`
	Commit    string   `json:"commit,omitempty"`
	By        string   `json:"by,omitempty"`
	Questions []string `json:"questions,omitempty"`
	Answers   []string `json:"answers,omitempty"`
	Plan      string   `json:"plan,omitempty"` // the plan's JSON, on received
}

// WithOutcome adds what a check found.
func (e Event) WithOutcome(o *plans.Outcome) Event {
	if o == nil {
		return e
	}
	if e.SHA256 == "" {
		e.SHA256 = o.SHA256
	}
	if e.Verdict == "" {
		e.Verdict = o.Verdict
	}
	if o.Plan != nil {
		e.Summary, e.Status = o.Plan.Summary, o.Plan.Status
	}
	for _, f := range o.Errors() {
		e.Errors = append(e.Errors, string(f.Code))
	}
	for _, f := range o.Warnings() {
		e.Warnings = append(e.Warnings, string(f.Code))
	}
	return e
}

// Audit records one event: the conversation archiplan keeps of the plan fills in the request and
// the planner, and the record becomes one commit of the audit.
func Audit(ws *store.Workspace, box *inbox.Inbox, e Event) error {
	e.FormatVersion = AuditFormat
	now := time.Now().UTC()
	if e.Time == "" {
		e.Time = now.Format(time.RFC3339Nano)
	}
	if box != nil && e.Name != "" {
		if c, err := box.Conversation(e.Name); err == nil && c != nil {
			e.Intent, e.Planner, e.Model, e.Thread, e.Turn, e.Follows = c.Intent, c.Planner, c.Model, c.Thread, c.Turn, c.Follows
		}
	}
	data, err := json.MarshalIndent(e.bounded(), "", "  ")
	if err != nil {
		return err
	}
	if len(data) > MaxAuditEvent {
		// escaped, the texts still outgrow the record: its facts are kept, its texts are not
		data, err = json.MarshalIndent(Event{FormatVersion: e.FormatVersion, Event: e.Event, Time: e.Time, Name: clipAudit(e.Name),
			PlanID: clipAudit(e.PlanID), SHA256: clipAudit(e.SHA256), Verdict: clipAudit(e.Verdict), Commit: clipAudit(e.Commit),
			Reason: fmt.Sprintf("(an event of %d bytes, over the audit's %d: its texts are not kept)", len(data), MaxAuditEvent)}, "", "  ")
		if err != nil {
			return err
		}
	}
	return ws.AppendAudit(append(data, '\n'), now)
}

// The audit's bounds: an event is at most MaxAuditEvent bytes, whatever a planner wrote. A plan
// over MaxAuditPlan is recorded by its sha256 only (its bytes are the inbox's and, applied, the
// archive's), each other text is cut at MaxAuditText bytes, and a list at MaxAuditItems items,
// each cut said in the text.
const (
	MaxAuditEvent = 1 << 20
	MaxAuditPlan  = 256 << 10
	MaxAuditText  = 8 << 10
	MaxAuditItems = 100
)

// bounded is the event as the audit records it: within MaxAuditEvent.
func (e Event) bounded() Event {
	if len(e.Plan) > MaxAuditPlan {
		e.Plan = fmt.Sprintf("(a plan of %d bytes, over the audit's %d: kept by its sha256 %s only)", len(e.Plan), MaxAuditPlan, e.SHA256)
	}
	for _, f := range []*string{&e.Name, &e.PlanID, &e.SHA256, &e.Summary, &e.Status, &e.Intent, &e.Planner, &e.Model, &e.Thread,
		&e.Turn, &e.Follows, &e.Verdict, &e.Reason, &e.Commit, &e.By} {
		*f = clipAudit(*f)
	}
	for _, l := range []*[]string{&e.Errors, &e.Warnings, &e.Questions, &e.Answers} {
		if len(*l) > MaxAuditItems {
			*l = append((*l)[:MaxAuditItems:MaxAuditItems], fmt.Sprintf("(and %d more, not kept)", len(*l)-MaxAuditItems))
		}
		for i := range *l {
			(*l)[i] = clipAudit((*l)[i])
		}
	}
	return e
}

func clipAudit(s string) string {
	if len(s) <= MaxAuditText {
		return s
	}
	cut := MaxAuditText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more, not kept)", len(s)-cut)
}

// audit records an event of the ledger's; a failure is logged, never the plan's fault.
func (l *Ledger) audit(e Event) {
	if err := Audit(l.cfg.Workspace, l.cfg.Inbox, e); err != nil {
		l.log.Warn("audit not recorded", "event", string(e.Event), "plan", e.Name, "err", err)
	}
}

// AuditLog reads the audit back, oldest first: every plan's events, those rejected and withdrawn
// beside those applied (with the remote's as last synced).
func AuditLog(ws *store.Workspace) ([]Event, error) {
	records, err := ws.AuditRecords()
	if err != nil {
		return nil, err
	}
	out := []Event{}
	for _, r := range records {
		var e Event
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, errors.New("an audit record is not JSON: " + err.Error())
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out, nil
}

// conversationFile is the conversation archiplan keeps of NAME, as archived with an apply.
func (l *Ledger) conversationFile(name string) []byte {
	if l.cfg.Inbox == nil {
		return nil // a ledger without an inbox (apply of a plan file from elsewhere, tests)
	}
	c, err := l.cfg.Inbox.Conversation(name)
	if err != nil || c == nil {
		return nil
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil
	}
	return append(data, '\n')
}

// ArchiveConversation is the file of an applied plan's archive that keeps its conversation: the
// request, the planner, the questions and answers.
const ArchiveConversation = "conversation.json"

// auditPreview records that a plan was received (its bytes are new) and previewed (its bytes or
// its verdict changed since the last preview), not every rewrite of the same preview.
func (l *Ledger) auditPreview(c *Checked, prev, rec *inbox.Record) {
	name := c.Entry.Name
	if prev == nil || prev.PlanSHA256 != rec.PlanSHA256 {
		e := Event{Event: EventReceived, Name: name, PlanID: PlanID(name, rec.PlanSHA256), Plan: string(c.Raw)}.WithOutcome(c.Outcome)
		e.Verdict, e.Errors, e.Warnings = "", nil, nil
		l.audit(e)
	}
	// a preview again on a new HEAD that says the same is no event: a team's busy remote would
	// otherwise write one for every plan waiting at every commit
	if prev == nil || prev.PlanSHA256 != rec.PlanSHA256 || prev.Verdict != rec.Verdict {
		l.audit(Event{Event: EventPreviewed, Name: name, PlanID: PlanID(name, rec.PlanSHA256), Commit: rec.Commit}.WithOutcome(c.Outcome))
	}
}

// Withdrawn records that a plan left the inbox without being applied or rejected (its file was
// deleted), when archiplan had previewed it.
func (l *Ledger) Withdrawn(name string) {
	if l.cfg.Inbox == nil {
		return
	}
	rec, err := l.cfg.Inbox.Record(name)
	if err != nil || rec.PlanSHA256 == "" || rec.Verdict == VerdictRejected {
		return // never previewed, or its rejection is recorded already
	}
	l.audit(Event{Event: EventWithdrawn, Name: name, PlanID: PlanID(name, rec.PlanSHA256), SHA256: rec.PlanSHA256,
		Summary: rec.Summary, Verdict: rec.Verdict, Reason: "the plan file was deleted from the inbox"})
}
