package query

import (
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// SearchOptions say what to look for. Every word of Text must appear (in any case) in the name,
// the documentation or a property key or value; Type and Folder narrow the objects searched.
type SearchOptions struct {
	Text     string // words
	Type     string // an element or relationship type ("Application Component", "ApplicationComponent"), or "view"
	Folder   string // a folder path: objects in it and below
	Property string // KEY or KEY=VALUE
	Limit    int    // the most results (default 100)
}

// Found is one search result: the object and where the words were found.
type Found struct {
	Ref
	Matched []string `json:"matched,omitempty"` // name, documentation, property:KEY
}

// SearchResult is what search returns: how many objects match, and the first Limit of them, by
// name.
type SearchResult struct {
	FormatVersion string  `json:"format_version"`
	Total         int     `json:"total"`
	Results       []Found `json:"results"`
}

// Search finds elements, relationships and views.
func Search(m *archixml.Model, o SearchOptions) (*SearchResult, error) {
	if o.Limit <= 0 {
		o.Limit = 100
	}
	words := strings.Fields(strings.ToLower(o.Text))
	var want *archixml.ConceptType
	wantView := false
	if o.Type != "" {
		if strings.EqualFold(o.Type, "view") {
			wantView = true
		} else if want = archixml.LookupType(o.Type); want == nil {
			if want = archixml.LookupType(strings.ReplaceAll(o.Type, " ", "")); want == nil {
				return nil, typeError(o.Type)
			}
		}
	}
	folder := strings.Trim(o.Folder, "/")
	key, value, hasValue := strings.Cut(o.Property, "=")
	res := &SearchResult{FormatVersion: FormatVersion, Results: []Found{}}
	var candidates []archixml.Object
	switch {
	case wantView:
		candidates = m.Views()
	case want != nil && want.IsRelationship():
		candidates = m.Relationships()
	case want != nil:
		candidates = m.Elements()
	default:
		candidates = append(append(m.Elements(), m.Relationships()...), m.Views()...)
	}
	for _, c := range candidates {
		if want != nil && c.Class() != want.Class {
			continue
		}
		if folder != "" {
			if p := c.FolderPath(); p != folder && !strings.HasPrefix(p, folder+"/") {
				continue
			}
		}
		if o.Property != "" {
			v, has := c.Property(key)
			if !has || hasValue && v != value {
				continue
			}
		}
		matched, ok := match(c, words)
		if !ok {
			continue
		}
		res.Total++
		res.Results = append(res.Results, Found{Ref: RefOf(c), Matched: matched})
	}
	sort.SliceStable(res.Results, func(i, j int) bool {
		a, b := res.Results[i], res.Results[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	if len(res.Results) > o.Limit {
		res.Results = res.Results[:o.Limit]
	}
	return res, nil
}

// match says whether every word appears somewhere in the object's text, and where.
func match(o archixml.Object, words []string) ([]string, bool) {
	if len(words) == 0 {
		return nil, true
	}
	type field struct{ where, text string }
	fields := []field{{"name", strings.ToLower(o.Name())}, {"documentation", strings.ToLower(o.Documentation())}}
	for _, p := range o.Properties() {
		fields = append(fields, field{"property:" + p.Key, strings.ToLower(p.Key + " " + p.Value)})
	}
	var where []string
	seen := map[string]bool{}
	for _, w := range words {
		found := false
		for _, f := range fields {
			if strings.Contains(f.text, w) {
				found = true
				if !seen[f.where] {
					seen[f.where] = true
					where = append(where, f.where)
				}
			}
		}
		if !found {
			return nil, false
		}
	}
	return where, true
}
