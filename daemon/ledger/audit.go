package ledger

import (
	"encoding/json"
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
	entry, err := auditEntry(box, e)
	if err != nil {
		return err
	}
	return ws.AppendAudit(entry.Record, entry.When)
}

// auditEntry is an event as the audit records it, and the time of its commit: the event's time
// when it has one (an approval said with what came of it, in one move of the audit's ref), now
// otherwise.
func auditEntry(box *inbox.Inbox, e Event) (store.AuditEntry, error) {
	e.FormatVersion = AuditFormat
	now := time.Now().UTC()
	if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
		now = t
	} else {
		e.Time = now.Format(time.RFC3339Nano)
	}
	if box != nil && e.Name != "" {
		if c, err := box.Conversation(e.Name); err == nil && c != nil {
			e.Intent, e.Planner, e.Model, e.Thread, e.Turn, e.Follows = c.Intent, c.Planner, c.Model, c.Thread, c.Turn, c.Follows
		}
	}
	data, err := json.MarshalIndent(e.bounded(), "", "  ")
	if err == nil && len(data) >= store.MaxAuditRecord && e.Plan != "" {
		// a plan within its bound can still escape to more than a record may hold: the archive
		// keeps an applied plan's bytes; the event keeps its digest
		e.Plan = ""
		data, err = json.MarshalIndent(e.bounded(), "", "  ")
	}
	if err != nil {
		return store.AuditEntry{}, err
	}
	if len(data) > MaxAuditEvent {
		// escaped, the texts still outgrow the record: its facts are kept, its texts are not
		data, err = json.MarshalIndent(Event{FormatVersion: e.FormatVersion, Event: e.Event, Time: e.Time, Name: clipAudit(e.Name),
			PlanID: clipAudit(e.PlanID), SHA256: clipAudit(e.SHA256), Verdict: clipAudit(e.Verdict), Commit: clipAudit(e.Commit),
			Reason: fmt.Sprintf("(an event of %d bytes, over the audit's %d: its texts are not kept)", len(data), MaxAuditEvent)}, "", "  ")
		if err != nil {
			return store.AuditEntry{}, err
		}
	}
	return store.AuditEntry{Record: append(data, '\n'), When: now}, nil
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

// audit records events of the ledger's, in their order, in one move of the audit's ref; a failure
// is logged, never the plan's fault.
func (l *Ledger) audit(events ...Event) {
	entries := make([]store.AuditEntry, 0, len(events))
	for _, e := range events {
		entry, err := auditEntry(l.cfg.Inbox, e)
		if err != nil {
			l.log.Warn("audit not recorded", "event", string(e.Event), "plan", e.Name, "err", err)
			continue
		}
		entries = append(entries, entry)
	}
	if err := l.cfg.Workspace.AppendAudits(entries...); err != nil && len(events) > 0 {
		l.log.Warn("audit not recorded", "event", string(events[0].Event), "plan", events[0].Name, "events", len(entries), "err", err)
	}
}

// AuditLog reads the audit back, oldest first: every plan's events, those rejected and withdrawn
// beside those applied (with the remote's as last synced), apart from those the branch does not
// bear out (ReadAudit's Unverified).
func AuditLog(ws *store.Workspace) ([]Event, error) {
	a, err := ReadAudit(ws)
	if err != nil {
		return nil, err
	}
	return a.Events, nil
}

// Audited is the audit as read back: the events shown as what happened, and apart, those that
// claim what the branch does not show.
type Audited struct {
	Events     []Event      `json:"events"`
	Unverified []Unverified `json:"unverified"`
}

// Unverified is an event of the audit the branch does not bear out, and why; or a record that
// could not be read as an event (too large, not JSON), with its audit commit.
type Unverified struct {
	Event
	AuditCommit string `json:"audit_commit"`
	Why         string `json:"why"`
}

// ReadAudit reads the audit back and checks it against the branch. Anyone who can push to the
// team's remote can write an event, so an event that says a plan was approved, applied or
// reverted is shown as fact only where a commit of the branch holds it: the plan's archive (the
// plan's id, its bytes' digest) and a change of the model, and for an approval the approver that
// commit names. Its commit is then the one the branch holds (an apply made again on top of the
// remote names the commit it left). Other events (received, previewed, answered, rejected,
// withdrawn) claim nothing of the branch and are shown as recorded.
func ReadAudit(ws *store.Workspace) (*Audited, error) {
	records, err := ws.AuditRecords()
	if err != nil {
		return nil, err
	}
	hist, err := ws.History(nil)
	if err != nil {
		return nil, err
	}
	// a plan applied on a branch that was merged (a colleague's git pull, a pull request) is the
	// branch's too: its commit lies on a merge's other side
	side, err := ws.SideCommits(hist)
	if err != nil {
		return nil, err
	}
	v := newAuditCheck(ws, append(hist, side...))
	a := &Audited{Events: []Event{}, Unverified: []Unverified{}}
	for _, r := range records {
		var e Event
		switch {
		case r.Data == nil:
			a.Unverified = append(a.Unverified, Unverified{AuditCommit: r.Commit,
				Why: fmt.Sprintf("a record of %d bytes, over the limit of %d: not read", r.Size, store.MaxAuditRecord)})
			continue
		case json.Unmarshal(r.Data, &e) != nil:
			a.Unverified = append(a.Unverified, Unverified{AuditCommit: r.Commit, Why: "a record that is not an event (not JSON)"})
			continue
		}
		if why := v.check(&e); why != "" {
			a.Unverified = append(a.Unverified, Unverified{Event: e, AuditCommit: r.Commit, Why: why})
			continue
		}
		a.Events = append(a.Events, e)
	}
	sort.SliceStable(a.Events, func(i, j int) bool { return a.Events[i].Time < a.Events[j].Time })
	sort.SliceStable(a.Unverified, func(i, j int) bool { return a.Unverified[i].Time < a.Unverified[j].Time })
	return a, nil
}

// auditCheck answers, for the events of one reading of the audit, which commit of the branch
// holds a plan's apply (each asked of git once).
type auditCheck struct {
	ws      *store.Workspace
	blobs   map[string]string             // commit -> the model's blob there
	applies map[string][]store.CommitInfo // plan id -> the commits whose trailer names it
	reverts map[string][]store.CommitInfo // plan id -> the commits whose trailer reverts it
	holds   map[string]string             // commit + plan digest -> "" or why not
}

func newAuditCheck(ws *store.Workspace, hist []store.CommitInfo) *auditCheck {
	v := &auditCheck{ws: ws, blobs: map[string]string{}, applies: map[string][]store.CommitInfo{},
		reverts: map[string][]store.CommitInfo{}, holds: map[string]string{}}
	for _, c := range hist {
		v.blobs[c.Hash] = c.ModelBlob
		if id := c.Trailers[store.TrailerPlanID]; id != "" {
			v.applies[id] = append(v.applies[id], c)
		}
		if id := c.Trailers[store.TrailerRevertsPlan]; id != "" {
			v.reverts[id] = append(v.reverts[id], c)
		}
	}
	return v
}

// check says why the branch does not bear an event out; "" when it does (or the event claims
// nothing of it). It sets the event's commit to the one the branch holds.
func (v *auditCheck) check(e *Event) string {
	switch e.Event {
	case EventApproved, EventApplied:
		c, why := v.applied(e.PlanID, e.SHA256)
		if why != "" {
			return why
		}
		if why := v.says(e, c, c, ""); why != "" {
			return why
		}
		if e.Event == EventApplied {
			e.Commit = c.Hash
		}
	case EventReverted:
		for _, c := range v.reverts[e.PlanID] {
			if apply, why := v.applied(e.PlanID, ""); why == "" && c.ModelBlob != v.blobs[c.Parent] {
				if why := v.says(e, apply, c, "reverts commit "+c.Trailers[store.TrailerRevertsCommit]); why != "" {
					return why
				}
				e.Commit = c.Hash
				return ""
			}
		}
		return "no commit of the branch reverts the plan's apply"
	}
	return ""
}

// says checks what an approval, apply or revert event says against the branch: the person the
// commit that made it names (by: the apply, or the revert), the plan's summary (none for a revert)
// and the conversation the apply's archive keeps, and the reason archiplan gives (for a revert,
// the commit it reverts). A colleague who copies a real event and changes its words gets it shown
// apart.
func (v *auditCheck) says(e *Event, apply, by store.CommitInfo, reason string) string {
	made := "applied"
	if by.Hash != apply.Hash {
		made = "reverts"
	}
	if who := by.Trailers[store.TrailerApprovedBy]; who != e.By {
		return fmt.Sprintf("commit %s, which %s the plan, names another person (%q)", short(by.Hash), made, who)
	}
	var plan struct {
		Summary string `json:"summary"`
	}
	if made == "applied" {
		raw, _, _ := v.ws.FileAt(apply.Hash, archivePath(e.PlanID, archivePlan))
		_ = json.Unmarshal(raw, &plan)
	}
	var conv inbox.Conversation
	if data, ok, _ := v.ws.FileAt(apply.Hash, archivePath(e.PlanID, ArchiveConversation)); ok {
		_ = json.Unmarshal(data, &conv)
	}
	for _, f := range []struct{ what, said, holds string }{
		{"summary", e.Summary, plan.Summary}, {"intent", e.Intent, conv.Intent}, {"planner", e.Planner, conv.Planner},
		{"model", e.Model, conv.Model}, {"thread", e.Thread, conv.Thread}, {"turn", e.Turn, conv.Turn},
		{"follows", e.Follows, conv.Follows}, {"reason", e.Reason, reason},
	} {
		if f.said != clipAudit(f.holds) {
			holder := apply.Hash
			if f.what == "reason" {
				holder = by.Hash
			}
			return fmt.Sprintf("its %s is not what commit %s holds (%q)", f.what, short(holder), clipAudit(f.holds))
		}
	}
	if len(e.Errors) > 0 || len(e.Questions) > 0 || len(e.Answers) > 0 || e.Plan != "" {
		return "archiplan's approvals, applies and reverts name no errors, questions or plan text"
	}
	return ""
}

// applied is the commit of the branch that applied a plan: its trailer names the plan, its
// archive holds the plan's bytes (of that digest, when one is given), and its model changed.
func (v *auditCheck) applied(id, digest string) (store.CommitInfo, string) {
	if id == "" {
		return store.CommitInfo{}, "the event names no plan"
	}
	why := "no commit of the branch applied the plan"
	for _, c := range v.applies[id] {
		key := c.Hash + " " + digest
		w, ok := v.holds[key]
		if !ok {
			w = v.holdsApply(c, id, digest)
			v.holds[key] = w
		}
		if w == "" {
			return c, ""
		}
		why = w
	}
	return store.CommitInfo{}, why
}

func (v *auditCheck) holdsApply(c store.CommitInfo, id, digest string) string {
	return heldApply(v.ws, c, v.blobs[c.Parent], id, digest)
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
	var events []Event
	if prev == nil || prev.PlanSHA256 != rec.PlanSHA256 {
		e := Event{Event: EventReceived, Name: name, PlanID: PlanID(name, rec.PlanSHA256), Plan: string(c.Raw)}.WithOutcome(c.Outcome)
		e.Verdict, e.Errors, e.Warnings = "", nil, nil
		events = append(events, e)
	}
	// a preview again on a new HEAD that says the same is no event: a team's busy remote would
	// otherwise write one for every plan waiting at every commit
	if prev == nil || prev.PlanSHA256 != rec.PlanSHA256 || prev.Verdict != rec.Verdict {
		events = append(events, Event{Event: EventPreviewed, Name: name, PlanID: PlanID(name, rec.PlanSHA256), Commit: rec.Commit}.WithOutcome(c.Outcome))
	}
	l.audit(events...) // one move of the audit's ref for both
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
