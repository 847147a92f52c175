package inbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Origin is who wrote a plan that archiplan asked for (`archiplan ask`): the intent, the planner
// by its configured name, its kind and model, how the plan was asked for, and how many answers
// it took. It lives under .git/ beside the records, out of every planner's reach, and binds to
// the plan's bytes: a plan file that is not the one the planner answered has no origin.
type Origin struct {
	FormatVersion string    `json:"format_version"`
	Name          string    `json:"name"`
	PlanSHA256    string    `json:"plan_sha256"`
	Intent        string    `json:"intent"`
	Planner       string    `json:"planner"` // "planner" for the default one, else planners.NAME
	Kind          string    `json:"kind"`
	Model         string    `json:"model,omitempty"`
	How           string    `json:"how,omitempty"` // the API and output format, as the planner says
	Answers       int       `json:"answers"`
	At            time.Time `json:"at"`
}

// Line is the origin in one line, for the preview and status.
func (o *Origin) Line() string {
	s := o.Planner
	var more []string
	if o.Kind != "" && o.Kind != o.Planner {
		more = append(more, o.Kind)
	}
	if o.Model != "" {
		more = append(more, o.Model)
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, ", ") + ")"
	}
	return s
}

func (b *Inbox) originPath(name string) string {
	return filepath.Join(b.StateDir, name+".origin.json")
}

// WriteOrigin keeps the origin of a plan that is about to be submitted.
func (b *Inbox) WriteOrigin(o *Origin) error {
	if err := CheckName(o.Name); err != nil {
		return err
	}
	o.FormatVersion = RecordFormat
	data, _ := json.MarshalIndent(o, "", "  ")
	if err := os.MkdirAll(b.StateDir, 0o755); err != nil {
		return err
	}
	return writeAtomic(b.originPath(o.Name), append(data, '\n'))
}

// OriginOf is the origin of NAME's plan when planSHA is the plan it was kept for; nil otherwise
// (no origin, or a plan someone wrote over the one the planner answered).
func (b *Inbox) OriginOf(name, planSHA string) *Origin {
	if CheckName(name) != nil {
		return nil
	}
	data, err := ReadFile(b.originPath(name), MaxContextBytes)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return nil
	}
	var o Origin
	if json.Unmarshal(data, &o) != nil || o.Name != name || o.PlanSHA256 != planSHA {
		return nil
	}
	return &o
}

// removeOrigin forgets NAME's origin (the plan is gone).
func (b *Inbox) removeOrigin(name string) { os.Remove(b.originPath(name)) }

// String is the origin as the preview says it.
func (o *Origin) String() string {
	s := fmt.Sprintf("Asked of the planner %s", o.Line())
	if o.How != "" {
		s += ", " + o.How
	}
	if o.Answers > 1 {
		s += fmt.Sprintf(", after %d answers", o.Answers)
	}
	return s
}
