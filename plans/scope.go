package plans

import (
	"encoding/json"
	"fmt"
)

// ScopeFromContext returns the ids a planning context (NAME.context.json) lists: its elements,
// relationships and views. A plan with a context may touch only those, and what it creates.
func ScopeFromContext(data []byte) ([]string, error) {
	var ctx struct {
		Elements      []struct{ ID string } `json:"elements"`
		Relationships []struct{ ID string } `json:"relationships"`
		Views         []struct{ ID string } `json:"views"`
	}
	if err := json.Unmarshal(data, &ctx); err != nil {
		return nil, fmt.Errorf("read planning context: %w", err)
	}
	ids := []string{}
	for _, e := range ctx.Elements {
		ids = append(ids, e.ID)
	}
	for _, r := range ctx.Relationships {
		ids = append(ids, r.ID)
	}
	for _, v := range ctx.Views {
		ids = append(ids, v.ID)
	}
	return ids, nil
}
