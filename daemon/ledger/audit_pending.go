package ledger

import (
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/store"
)

// An apply's events (the approval, what came of it) are recorded after its commit, under the
// workspace's lock. A process killed between the two would leave an apply the audit never heard
// of, and `log --all` would show no one approving it. So the approval is written down first, in
// .git (outside the inbox), and the file is removed once the audit holds the events; whoever
// takes the lock next and finds it rebuilds them (RecoverAudit). It is synced as the commit is
// (store's Syncing: as git's core.fsync says), so it survives whatever the commit survives: a
// power cut that keeps the commit keeps the note, and with git's default, under which neither
// is synced, it costs no fsync (it made two per approval, 8 ms each on a busy disk, where
// the rest of the apply made none).

// pendingFile is the approval an apply in flight writes down before it commits.
const pendingFile = "archiplan-audit-pending.json"

// pendingAudit is what an apply in flight wrote down: the plan, and the approval event when the
// apply is a person's approval (nil for a plan applied from the command line without a preview).
type pendingAudit struct {
	Name     string `json:"name"`
	PlanID   string `json:"plan_id"`
	By       string `json:"by"`
	Approved *Event `json:"approved,omitempty"`
}

// notePending writes down the apply about to be made, before its commit. A failure is logged:
// the apply goes on, as an audit that cannot be written never stops one.
func (l *Ledger) notePending(p pendingAudit) {
	data, err := json.Marshal(p)
	if err == nil {
		err = l.cfg.Workspace.WriteGitFile(pendingFile, data)
	}
	if err != nil {
		l.log.Warn("the approval is not written down before its commit", "plan", p.Name, "err", err)
	}
}

func (l *Ledger) donePending() { os.Remove(l.cfg.Workspace.GitPath(pendingFile)) }

// RecoverAudit finishes the audit of an apply a crash cut off after its commit: when the branch
// holds the apply written down (the models decide: the commit archives the plan's bytes) and
// the audit has no "applied" event for it, the approval and the apply are recorded, the apply's
// event rebuilt from its commit (its time, its approver, its summary and the conversation it
// archives). An apply that never committed leaves nothing to record: its approval waits in the
// inbox and is recorded when it is applied. Hold the workspace's lock. It reports whether it
// recorded events.
func RecoverAudit(ws *store.Workspace) (bool, error) {
	path := ws.GitPath(pendingFile)
	// .git is the person's, yet read as the inbox is (no link followed, no pipe waited on, capped):
	// a daemon starts here, and a note is never larger than the events it holds
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer os.Remove(path)
	if !st.Mode().IsRegular() {
		return false, nil // written as a file: a link or a pipe is not ours
	}
	data, err := readCapped(path, 2*MaxAuditEvent)
	if err != nil {
		return false, nil // a file that does not read whole is not ours
	}
	var p pendingAudit
	if json.Unmarshal(data, &p) != nil || inbox.CheckName(p.Name) != nil || PlanName(p.PlanID) != p.Name {
		return false, nil // written atomically: a file that does not read is not ours
	}
	hist, err := onBranch(ws, func(c store.CommitInfo) bool { return c.Trailers[store.TrailerPlanID] == p.PlanID })
	if err != nil || len(hist) == 0 {
		return false, err
	}
	c := hist[len(hist)-1] // the newest apply of the plan: the same plan applied again after its revert is another
	// the models decide (heldApply): an apply commit amended before this recovery (the change
	// undone, the message and archive kept) is not recorded as the plan's apply
	if c.Trailers[store.TrailerPlanID] != p.PlanID || heldApply(ws, c, "", p.PlanID, c.Trailers[store.TrailerPlanSHA256]) != "" {
		return false, nil // not applied: the approval is recorded when it is
	}
	records, err := ws.AuditRecords()
	if err != nil {
		return false, err
	}
	for _, r := range records {
		var e Event
		if r.Data != nil && json.Unmarshal(r.Data, &e) == nil && e.Event == EventApplied && e.PlanID == p.PlanID && e.Commit == c.Hash {
			return false, nil // recorded before the crash
		}
	}
	when := c.When.UTC().Format(time.RFC3339Nano)
	if p.Approved != nil && p.Approved.Time > when {
		when = p.Approved.Time // git keeps whole seconds: the apply is not said before its approval
	}
	applied := Event{Event: EventApplied, Time: when, Name: p.Name,
		PlanID: p.PlanID, SHA256: c.Trailers[store.TrailerPlanSHA256], Verdict: VerdictApplied, Commit: c.Hash,
		By: c.Trailers[store.TrailerApprovedBy]}
	var plan struct {
		Summary string `json:"summary"`
		Status  string `json:"status"`
	}
	if raw, ok, _ := ws.FileAt(c.Hash, archivePath(p.PlanID, archivePlan)); ok {
		_ = json.Unmarshal(raw, &plan)
	}
	applied.Summary, applied.Status = plan.Summary, plan.Status
	var conv inbox.Conversation
	if raw, ok, _ := ws.FileAt(c.Hash, archivePath(p.PlanID, ArchiveConversation)); ok && json.Unmarshal(raw, &conv) == nil {
		applied.Intent, applied.Planner, applied.Model, applied.Thread, applied.Turn, applied.Follows =
			conv.Intent, conv.Planner, conv.Model, conv.Thread, conv.Turn, conv.Follows
	}
	var entries []store.AuditEntry
	for _, e := range []*Event{p.Approved, &applied} {
		if e == nil {
			continue
		}
		if e.Event == EventApproved {
			// the approval as written down, with what its commit holds of the request (the
			// conversation left the inbox with the apply)
			e.Intent, e.Planner, e.Model, e.Thread, e.Turn, e.Follows = applied.Intent, applied.Planner, applied.Model, applied.Thread, applied.Turn, applied.Follows
		}
		entry, err := auditEntry(nil, *e)
		if err != nil {
			return false, err
		}
		entries = append(entries, entry)
	}
	return true, ws.AppendAudits(entries...)
}

// Recover finishes what a crashed process left (the work tree of an apply, its audit), under the
// workspace's lock: a daemon does it as it starts, before anyone reads the audit.
func (l *Ledger) Recover() error { return l.locked(func() error { return nil }) }
