package ledger

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/plans"
)

// NextStep is the one step that leads a plan rejected as NAME (or stuck under it) to a preview
// that can be approved, decided here once for every rejection. A rejected NAME is never previewed
// again as it is, and once previewed valid its words are fixed: renaming it back to NAME.json can
// only give the same verdict or PLAN_WORDS_CHANGED. Submitted again under a new name, the same
// bytes get a preview of their own, bound to nothing earlier; a plan that asks questions needs
// their answers instead, and one the planner refused has nothing in it to apply.
func NextStep(name string, o *plans.Outcome) string {
	if o != nil && o.Plan != nil {
		switch o.Plan.Status {
		case plans.StatusNeedsClarification:
			if len(o.Plan.Questions) > 0 {
				return "answer its questions: archiplan answer " + name + " --answer TEXT (one for each question)"
			}
		case plans.StatusRefusal:
			return "the planner refused this plan, so nothing in it can be applied: ask for a new plan"
		}
	}
	step := "archiplan resubmit " + name + " (it submits the same plan under a new name and previews it; by hand: copy the plan file to a new plans/NEWNAME.json)"
	if o == nil || o.Verdict != plans.VerdictValid {
		step += ", then fix there what its preview lists"
	}
	return step
}

// withStep is a reason for a rejection with the step that follows it.
func withStep(reason, step string) string {
	return strings.TrimRight(reason, ".;: \n") + ". Next: " + step
}

// Uncommitted says what to do while the model file has changes not committed (a save from Archi),
// in the same words wherever it is said: an apply's rejection, approve's refusal, status.
func Uncommitted(model string) string {
	return fmt.Sprintf("%s has uncommitted changes (saved from Archi?), left as they are (%s): commit them (git commit -am MESSAGE) or discard them (git checkout -- %s)",
		model, plans.ModelUncommitted, model)
}
