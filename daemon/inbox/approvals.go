package inbox

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Need is an approval a plan needs by the workspace's owners and rules (the ledger fills it in
// from the check): Count distinct approvals from the people in From (anyone when empty).
type Need struct {
	Rule    string   `json:"rule"`
	Count   int      `json:"count"`
	From    []string `json:"from,omitempty"`
	Message string   `json:"message,omitempty"`
}

// Approval is one person's approval of a plan that needs several, bound to the preview read.
type Approval struct {
	By      string    `json:"by"`
	Preview string    `json:"preview"` // the SHA-256 of the NAME.preview.md approved
	At      time.Time `json:"at"`
}

var (
	// ErrNoApprover means a plan that needs its owners' approvals was approved by nobody named.
	ErrNoApprover = errors.New("this plan needs its owners' approvals: say who approves")
	// ErrApprovedBy means the same person approved the plan already.
	ErrApprovedBy = errors.New("approved by this person already")
)

// Missing is what needs still lack given the approvals: for each need that is not met, how many
// approvals more, from whom.
func Missing(needs []Need, approvals []Approval) []Need {
	var out []Need
	for _, n := range needs {
		got := 0
		for _, a := range approvals {
			if len(n.From) == 0 || contains(n.From, a.By) {
				got++
			}
		}
		if got < n.Count {
			m := n
			m.Count = n.Count - got
			out = append(out, m)
		}
	}
	return out
}

// MissingWords says in one line whose approvals a plan still needs ("" when none).
func MissingWords(missing []Need) string {
	var parts []string
	for _, n := range missing {
		who := "anyone"
		if len(n.From) > 0 {
			who = strings.Join(n.From, " or ")
		}
		parts = append(parts, fmt.Sprintf("%d more from %s (%s)", n.Count, who, n.Rule))
	}
	return strings.Join(parts, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Approvers are the people who approved a plan so far.
func (r *Record) Approvers() []string {
	var out []string
	for _, a := range r.Approvals {
		out = append(out, a.By)
	}
	return out
}

// approveAs records who approves a plan that needs its owners' approvals. It returns true when
// the approvals are complete (the plan may be renamed approved), false when the plan waits for
// more; the record is written either way.
func (b *Inbox) approveAs(rec *Record, previewSHA, who string) (bool, error) {
	if len(rec.Needs) == 0 {
		return true, nil
	}
	who = strings.TrimSpace(who)
	if who == "" {
		return false, ErrNoApprover
	}
	for _, a := range rec.Approvals {
		if a.By == who {
			return false, fmt.Errorf("%s: %w (%s); still missing: %s", rec.Name, ErrApprovedBy, who, MissingWords(Missing(rec.Needs, rec.Approvals)))
		}
	}
	rec.Approvals = append(rec.Approvals, Approval{By: who, Preview: previewSHA, At: time.Now().UTC()})
	return len(Missing(rec.Needs, rec.Approvals)) == 0, nil
}
