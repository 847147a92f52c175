package ledger

import (
	"encoding/json"
	"fmt"

	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// AppliedRefs is the ref_id -> id map of the newest plan named name applied on the branch (not
// reverted since): from its archived report, or, for an archive written before reports kept
// refs, from each action's ref_id and the first id it created. ok is false when no such plan was
// applied.
func AppliedRefs(ws *store.Workspace, name string) (map[string]string, bool, error) {
	entries, err := Log(ws)
	if err != nil {
		return nil, false, err
	}
	reverted := map[string]bool{}
	for _, e := range entries {
		if e.Kind != KindApply && e.Kind != KindGitReapply {
			if e.PlanID != "" {
				reverted[e.PlanID] = true
			}
			continue
		}
		if PlanName(e.PlanID) != name || reverted[e.PlanID] || e.UndoneBy != "" {
			continue
		}
		a, err := ReadArchive(ws, e.Commit, e.PlanID)
		if err != nil {
			return nil, false, err
		}
		var rep plans.Report
		if err := json.Unmarshal(a.Report, &rep); err != nil {
			return nil, false, fmt.Errorf("the report of %s: %w", e.PlanID, err)
		}
		if rep.Refs != nil {
			return rep.Refs, true, nil
		}
		var p struct {
			Actions []struct {
				RefID string `json:"ref_id"`
			} `json:"actions"`
		}
		if err := json.Unmarshal(a.Plan, &p); err != nil {
			return nil, false, fmt.Errorf("the plan of %s: %w", e.PlanID, err)
		}
		refs := map[string]string{}
		for _, ra := range rep.Actions {
			if ra.Index < len(p.Actions) && p.Actions[ra.Index].RefID != "" && len(ra.Created) > 0 {
				refs[p.Actions[ra.Index].RefID] = ra.Created[0]
			}
		}
		return refs, true, nil
	}
	return nil, false, nil
}
