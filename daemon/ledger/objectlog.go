package ledger

import "github.com/archiplan/archiplan/plans"

// ObjectEntry is one commit that created, changed or deleted an object, read from the models
// (the diff of the commit's parent and itself), whoever made it: a plan, Archi, a merge.
type ObjectEntry struct {
	Commit string `json:"commit"`
	Date   string `json:"date"`
	Author string `json:"author"`
	// Changes says how, one line each: renamed, property set, moved on a view, ...
	Changes []string `json:"changes"`
	// PlanID, Summary and ApprovedBy are set when the commit holds the archive of the plan that
	// made it (an apply of archiplan); Intent is the request the plan was asked for, from the
	// conversation archiplan archived with it (its own record, never the plan's words).
	PlanID     string `json:"plan_id,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Intent     string `json:"intent,omitempty"`
	ApprovedBy string `json:"approved_by,omitempty"`
	// Merge says the commit is a merge: its changes are those against its first parent (what
	// the merge brought to the branch).
	Merge bool `json:"merge,omitempty"`
	// MergedBy is, for a commit of a branch that a merge of the line brought (a colleague's
	// apply merged by a git pull, a pull request's), that merge; its changes are those against
	// its own first parent.
	MergedBy string `json:"merged_by,omitempty"`
}

// Shown is the entry as a person reads it outside the preview (a page, a terminal): every
// character that could hide or reorder text written as its code (plans.ShowHidden), in each text
// a planner, a colleague or a commit could have written.
func (e ObjectEntry) Shown() ObjectEntry {
	e.Author, e.PlanID, e.Summary, e.Intent, e.ApprovedBy = plans.ShowHidden(e.Author), plans.ShowHidden(e.PlanID),
		plans.ShowHidden(e.Summary), plans.ShowHidden(e.Intent), plans.ShowHidden(e.ApprovedBy)
	e.Changes = append([]string(nil), e.Changes...)
	for i, c := range e.Changes {
		e.Changes[i] = plans.ShowHidden(c)
	}
	return e
}
