package query

import (
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planctx"
)

// ViewSummary is one view with its viewpoint as Archi names it and what it holds.
type ViewSummary struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Folder    string        `json:"folder"`
	Type      string        `json:"type"` // ArchiMate View, Sketch, Canvas
	Viewpoint ViewpointName `json:"viewpoint"`
	planctx.ViewCounts
	Objects int `json:"objects"` // every diagram object
}

// Summary counts what a view holds.
func Summary(v archixml.Object) ViewSummary {
	counts, n := planctx.CountView(v)
	return ViewSummary{ID: v.ID(), Name: v.Name(), Folder: v.FolderPath(), Type: viewKind(v), Viewpoint: ViewpointOf(v),
		ViewCounts: counts, Objects: n}
}

// ViewsResult lists every view, by folder and name.
type ViewsResult struct {
	FormatVersion string        `json:"format_version"`
	Views         []ViewSummary `json:"views"`
}

// Views lists every view of the model.
func Views(m *archixml.Model) *ViewsResult {
	res := &ViewsResult{FormatVersion: FormatVersion, Views: []ViewSummary{}}
	for _, v := range m.Views() {
		res.Views = append(res.Views, Summary(v))
	}
	sort.SliceStable(res.Views, func(i, j int) bool {
		a, b := res.Views[i], res.Views[j]
		if a.Folder != b.Folder {
			return a.Folder < b.Folder
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	return res
}

// FolderSummary is one folder and what it holds directly.
type FolderSummary struct {
	ID            string `json:"id"`
	Path          string `json:"path"`
	Type          string `json:"type"` // the top-level folder's type: business, application, ..., diagrams
	Elements      int    `json:"elements"`
	Relationships int    `json:"relationships"`
	Views         int    `json:"views"`
	Folders       int    `json:"folders"`
}

// FoldersResult lists every folder, by path.
type FoldersResult struct {
	FormatVersion string          `json:"format_version"`
	Folders       []FolderSummary `json:"folders"`
}

// Folders lists the model's folders.
func Folders(m *archixml.Model) *FoldersResult {
	res := &FoldersResult{FormatVersion: FormatVersion, Folders: []FolderSummary{}}
	for _, f := range m.Folders() {
		s := FolderSummary{ID: f.ID(), Path: f.FolderPath(), Type: f.TopFolderType()}
		for _, c := range f.Children() {
			switch c.Kind() {
			case archixml.KindElement:
				s.Elements++
			case archixml.KindRelationship:
				s.Relationships++
			case archixml.KindView:
				s.Views++
			case archixml.KindFolder:
				s.Folders++
			}
		}
		res.Folders = append(res.Folders, s)
	}
	sort.SliceStable(res.Folders, func(i, j int) bool { return res.Folders[i].Path < res.Folders[j].Path })
	return res
}

// Stats counts a model.
type Stats struct {
	FormatVersion   string  `json:"format_version"`
	Model           string  `json:"model"`
	Elements        int     `json:"elements"`
	Relationships   int     `json:"relationships"`
	Views           int     `json:"views"`
	Folders         int     `json:"folders"`
	Specializations int     `json:"specializations"`
	ByLayer         []Count `json:"by_layer"`
	ByType          []Count `json:"by_type"`
	ByViewpoint     []Count `json:"by_viewpoint"`
}

// StatsOf counts the model's objects, by layer, type and (views) viewpoint.
func StatsOf(m *archixml.Model) *Stats {
	s := &Stats{FormatVersion: FormatVersion, Model: m.Name(), Elements: len(m.Elements()), Relationships: len(m.Relationships()),
		Views: len(m.Views()), Folders: len(m.Folders()), Specializations: len(m.Profiles())}
	layers, types, vps := map[string]int{}, map[string]int{}, map[string]int{}
	for _, o := range append(m.Elements(), m.Relationships()...) {
		if t := o.Type(); t != nil {
			types[t.Label]++
			if t.IsRelationship() {
				layers["Relationships"]++
			} else {
				layers[t.Layer]++
			}
		}
	}
	for _, v := range m.Views() {
		if v.Class() == "ArchimateDiagramModel" {
			vps[archixml.ViewpointOf(v.Attr("viewpoint")).Name]++
		} else {
			vps[viewKind(v)]++
		}
	}
	s.ByLayer, s.ByType, s.ByViewpoint = counts(layers), counts(types), counts(vps)
	return s
}

func counts(m map[string]int) []Count {
	out := []Count{}
	for k, v := range m {
		out = append(out, Count{Name: k, Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return strings.Compare(out[i].Name, out[j].Name) < 0
	})
	return out
}

// CheckResult is what Archi's validator would report: the findings, how many of each severity,
// and the checks run (with the checker of Archi's each one follows).
type CheckResult struct {
	FormatVersion string               `json:"format_version"`
	Errors        int                  `json:"errors"`
	Warnings      int                  `json:"warnings"`
	Advice        int                  `json:"advice"`
	Findings      []plans.ModelFinding `json:"findings"`
	Checks        []plans.ArchiCheck   `json:"checks"`
}

// Check runs Archi's checks on the model. A model Archi cannot open at all (a duplicate id, a
// dangling reference: archixml.Check) is one error, MODEL_INVALID, as a plan's check reports it
// (plans.CheckModel), and no checker runs.
func Check(m *archixml.Model) *CheckResult {
	if err := archixml.Check(m); err != nil {
		return &CheckResult{FormatVersion: FormatVersion, Errors: 1, Checks: plans.ArchiChecks, Findings: []plans.ModelFinding{{
			Code: plans.ModelInvalid, Severity: plans.Error, Object: m.ID(), Name: m.Name(),
			Message: "the model cannot be opened by Archi: " + err.Error()}}}
	}
	res := &CheckResult{FormatVersion: FormatVersion, Findings: nonNil(plans.ValidateModel(m)), Checks: plans.ArchiChecks}
	for _, f := range res.Findings {
		switch f.Severity {
		case plans.Error:
			res.Errors++
		case plans.Warning:
			res.Warnings++
		default:
			res.Advice++
		}
	}
	return res
}

// Count is a name and how many.
type Count = planctx.CountEntry
