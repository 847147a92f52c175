package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/archiplan/archiplan/store"
)

// reviewDir holds, under .git/ where planners cannot write, who approved a plan from the page:
// the name the reviewer gave, bound to the plan's bytes.
const reviewDir = "archiplan-review"

type reviewRecord struct {
	PlanSHA256 string `json:"plan_sha256"`
	Reviewer   string `json:"reviewer"`
}

// CleanReviewer makes a reviewer's name safe for a commit trailer: printable characters on one
// line, no angle brackets, at most 100 runes.
func CleanReviewer(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n >= 100 {
			break
		}
		switch {
		case r == '<' || r == '>' || r == '(' || r == ')':
			continue
		case unicode.IsSpace(r):
			r = ' '
		case !unicode.IsPrint(r):
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// recordReviewer keeps the reviewer of a plan's bytes for the daemon's apply to read.
func recordReviewer(ws *store.Workspace, name, planSHA256, reviewer string) error {
	path := ws.GitPath(filepath.Join(reviewDir, name+".json"))
	if reviewer == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, _ := json.Marshal(reviewRecord{PlanSHA256: planSHA256, Reviewer: reviewer})
	return store.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// Signer says who approved a plan: the daemon's user, plus the reviewer's name when the plan was
// approved from the page with one (and these very bytes were approved). The record is used once.
type Signer struct {
	Workspace *store.Workspace
	Operator  store.Signature
}

// ApprovedBy is the signature an apply of plan NAME with these bytes records.
func (s Signer) ApprovedBy(name, planSHA256 string) store.Signature {
	path := s.Workspace.GitPath(filepath.Join(reviewDir, name+".json"))
	data, err := os.ReadFile(path)
	if err != nil {
		return s.Operator
	}
	var r reviewRecord
	if json.Unmarshal(data, &r) != nil || r.PlanSHA256 != planSHA256 || CleanReviewer(r.Reviewer) == "" {
		return s.Operator
	}
	_ = os.Remove(path)
	return WithReviewer(s.Operator, r.Reviewer)
}

// WithReviewer is the daemon's user with the reviewer's name added, as Approved-By shows it.
func WithReviewer(op store.Signature, reviewer string) store.Signature {
	reviewer = CleanReviewer(reviewer)
	if reviewer == "" {
		return op
	}
	op.Name = fmt.Sprintf("%s (reviewer: %s, via the review page)", op.Name, reviewer)
	return op
}
