package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// NormalizeStrict maps an answer in the strict form (every field present, null where unused) back
// to a canonical plan: nulls of fields the vocabulary knows are dropped, nothing else (Check does
// the same itself; this gives the planner's answer its canonical form on disk). A field an op does not have but
// that holds a value is kept, so that the schema refuses it rather than it being lost. Text that
// is not one JSON object is returned as it is, for extraction to report.
func NormalizeStrict(answer []byte) []byte {
	obj, _, f := Extract(answer, false)
	if f != nil {
		return answer
	}
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber()
	var top map[string]any
	if err := d.Decode(&top); err != nil {
		return answer
	}
	dropNulls(top)
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return answer
	}
	return append(out, '\n')
}

// ToStrict writes a canonical plan in the strict form: every field of every op present, null
// where the action has none. It is NormalizeStrict's inverse, for tests and for planners shown
// examples.
func ToStrict(p *Plan, fields []string) ([]byte, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	for _, k := range []string{"questions", "warnings"} {
		if _, ok := top[k]; !ok {
			top[k] = nil
		}
	}
	acts, _ := top["actions"].([]any)
	for _, a := range acts {
		m := a.(map[string]any)
		for _, f := range fields {
			if _, ok := m[f]; !ok {
				m[f] = nil
			}
		}
	}
	if acts == nil {
		top["actions"] = []any{}
	}
	out, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("strict form: %w", err)
	}
	return out, nil
}
