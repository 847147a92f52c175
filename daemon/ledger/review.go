package ledger

import (
	"errors"
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
	"github.com/archiplan/archiplan/store"
)

// ErrBadRange means a review's REV or BASE..HEAD names no commit, or no model to compare.
var ErrBadRange = errors.New("not a commit or range to review")

// Review is a commit or a range of commits previewed as a plan is: every change in words,
// pictures of the changed views, and the findings of Archi's validator the range adds. It is
// read from the two models (the diff of BASE and HEAD), never from what the commits say about
// themselves, so commits made in Archi read like archiplan's own.
type Review struct {
	Spec     string // as asked: REV or BASE..HEAD
	Base     string // the commit compared against: REV's first parent, or BASE and HEAD's merge base
	Head     string
	Commits  []store.CommitInfo // the range's commits, oldest first
	Diff     *diff.Result
	Added    []plans.ModelFinding // Archi's validator findings at HEAD and not at BASE
	Views    []plans.ViewChange
	Same     bool // the range leaves the model as it was
	Markdown []byte
	// Words is Markdown without the pictures' section, for a terminal: it names the changed
	// views and says how to get their pictures
	Words []byte
	// Pictures are the files the Markdown's Views section names, written beside it
	Pictures map[string][]byte
	section  string
}

// ReviewRange reviews REV (against its first parent) or BASE..HEAD (HEAD against the newest
// commit both hold, as a pull request shows a branch). name prefixes the pictures' files.
func ReviewRange(ws *store.Workspace, spec, name string) (*Review, error) {
	r := &Review{Spec: spec}
	baseRev, headRev, isRange := strings.Cut(spec, "..")
	if !isRange {
		headRev = spec
	}
	if strings.HasPrefix(headRev, ".") || (isRange && (baseRev == "" || headRev == "")) {
		return nil, fmt.Errorf("%q: give REV or BASE..HEAD: %w", spec, ErrBadRange)
	}
	var err error
	if r.Head, err = ws.ResolveCommit(headRev); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRange, err)
	}
	if isRange {
		b, err := ws.ResolveCommit(baseRev)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadRange, err)
		}
		if r.Base, err = ws.MergeBase(b, r.Head); err != nil || r.Base == "" {
			return nil, fmt.Errorf("%s and %s share no commit: %w", baseRev, headRev, ErrBadRange)
		}
	} else {
		info, err := ws.Info(r.Head)
		if err != nil {
			return nil, err
		}
		if info.Parent == "" {
			return nil, fmt.Errorf("%s is the first commit, it has no parent to compare with: %w", spec, ErrBadRange)
		}
		r.Base = info.Parent
	}
	if r.Commits, err = ws.CommitsBetween(r.Base, r.Head); err != nil {
		return nil, err
	}
	bdata, bok, err := ws.ModelAt(r.Base)
	if err != nil {
		return nil, err
	}
	hdata, hok, err := ws.ModelAt(r.Head)
	if err != nil {
		return nil, err
	}
	if !bok {
		return nil, fmt.Errorf("no %s at %s: %w", ws.Model, short(r.Base), ErrBadRange)
	}
	if !hok {
		return nil, fmt.Errorf("no %s at %s: %w", ws.Model, short(r.Head), ErrBadRange)
	}
	r.Same = string(bdata) == string(hdata)
	if r.Same {
		r.Markdown = r.words(ws.Model, "")
		r.Words = r.Markdown
		return r, nil
	}
	base, err := archixml.Load(bdata)
	if err != nil {
		return nil, fmt.Errorf("the model at %s: %w", short(r.Base), err)
	}
	head, err := archixml.Load(hdata)
	if err != nil {
		return nil, fmt.Errorf("the model at %s: %w", short(r.Head), err)
	}
	r.Diff = diff.Models(base, head)
	r.Added = addedFindings(base, head)
	r.Views = reviewViews(r.Diff, head)
	pics := newPictures(name)
	pics.subject, pics.unit = "the range", "change"
	pics.changedViews(&plans.Outcome{Views: r.Views}, head)
	pics.draw(head, true)
	pics.draw(base, false)
	r.Pictures, r.section = pics.files()
	r.Markdown = r.words(ws.Model, r.section)
	r.Words = r.words(ws.Model, "")
	if r.section != "" {
		var names []string
		for _, id := range r.Diff.Views() {
			if v, ok := head.Object(id); ok {
				names = append(names, v.Name())
			}
		}
		r.Words = append(r.Words, fmt.Sprintf("\n## Views\n\nThe range changes the drawing of %s: `-o FILE` writes the review with their pictures beside it.\n",
			viewNames(names))...)
	}
	return r, nil
}

// words is the review in Markdown, everything from a model or a commit escaped as a plan's
// preview escapes it.
func (r *Review) words(model, pictures string) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Review: %s\n\n", plans.MDCode(r.Spec))
	w("What %s changes in %s, read from the models at %s and %s (what a commit says of itself decides nothing). ",
		plans.MDCode(r.Spec), plans.MDCode(model), plans.MDCode(short(r.Base)), plans.MDCode(short(r.Head)))
	w("Changes are numbered from 0.\n\n")
	w("## Commits (%d)\n\n", len(r.Commits))
	for _, c := range r.Commits {
		w("- %s %s: %s\n", plans.MDCode(short(c.Hash)), plans.MDEscape(c.Author), plans.MDEscape(c.Subject))
	}
	w("\n")
	if r.Same {
		w("The range does not change %s: nothing to review.\n", plans.MDCode(model))
		return []byte(b.String())
	}
	w("## Changes (%d)\n\n", len(r.Diff.Changes))
	for i, ch := range r.Diff.Changes {
		w("- **\\[%d\\]** %s\n", i, plans.MDProse(ch.Text))
		for _, d := range ch.Diagram {
			w("  - %s\n", plans.MDProse(d.Text))
		}
	}
	w("\n## Archi's validator\n\n")
	if len(r.Added) == 0 {
		w("The range adds no finding of Archi's validator (findings at %s that were not at %s).\n", plans.MDCode(short(r.Head)), plans.MDCode(short(r.Base)))
	} else {
		w("What Archi's validator finds at %s and did not at %s (%d):\n\n", plans.MDCode(short(r.Head)), plans.MDCode(short(r.Base)), len(r.Added))
		for _, f := range r.Added {
			w("- %s %s: %s\n", f.Severity, f.Code, plans.MDEscape(f.Message))
		}
	}
	b.WriteString(pictures)
	return []byte(b.String())
}

// addedFindings are the findings of Archi's validator on head that base did not have: the same
// check on the same object (and view) at both is one finding, whatever its words (a rename
// changes them).
func addedFindings(base, head *archixml.Model) []plans.ModelFinding {
	type key struct{ code, object, view string }
	had := map[key]bool{}
	for _, f := range plans.ValidateModel(base) {
		had[key{string(f.Code), f.Object, f.View}] = true
	}
	var out []plans.ModelFinding
	for _, f := range plans.ValidateModel(head) {
		if !had[key{string(f.Code), f.Object, f.View}] {
			out = append(out, f)
		}
	}
	return out
}

// diffPictured is the attribute, node or text of schemas.Pictured that a diff's field names,
// where their names differ: the pictures' legend says a commit's changes in the words it says a
// plan's, from one table.
var diffPictured = map[string]string{
	"position": "x", "size": "width", "class": "xsi:type", "type": "xsi:type", "shows": "archimateElement",
	"bendpoints": "bendpoint", "features": "feature", "properties": "property",
}

// pictured is the legend's word for a diff's field ("" for what no view draws).
func pictured(field string) string {
	if field == "parent" {
		return plans.ViewRenested
	}
	if strings.HasPrefix(field, "property:") {
		field = "property"
	}
	if k, ok := diffPictured[field]; ok {
		field = k
	}
	w, ok := schemas.Pictured[field]
	if w == schemas.PictureObject {
		return ""
	}
	if !ok {
		return "changed"
	}
	return w
}

// reviewViews are the changes a diff makes on views, as a plan's actions' are (plans.ViewChange),
// numbered by the diff's change they belong to: drawn objects added, removed, moved into another
// parent or changed, a view's own drawn settings, and what shows a concept that changed.
func reviewViews(r *diff.Result, head *archixml.Model) []plans.ViewChange {
	var out []plans.ViewChange
	seen := map[plans.ViewChange]bool{}
	emit := func(c plans.ViewChange) {
		if c.View != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for i, ch := range r.Changes {
		switch ch.Kind {
		case diff.KindView:
			switch ch.Op {
			case diff.Added:
				emit(plans.ViewChange{Action: i, View: ch.ID, What: plans.ViewAdded})
				continue
			case diff.Removed:
				emit(plans.ViewChange{Action: i, View: ch.ID, What: plans.ViewRemoved})
				continue
			}
			for _, f := range ch.Fields {
				if w := schemas.Pictured[f.Name]; w != "" && w != schemas.PictureObject && f.Name != "name" {
					emit(plans.ViewChange{Action: i, View: ch.ID, What: w}) // the view's router
				}
			}
			for _, d := range ch.Diagram {
				switch d.Op {
				case diff.Added:
					emit(plans.ViewChange{Action: i, View: ch.ID, Object: d.ID, What: plans.ViewAdded})
				case diff.Removed:
					emit(plans.ViewChange{Action: i, View: ch.ID, Object: d.ID, What: plans.ViewRemoved})
				default:
					for _, f := range d.Fields {
						if w := pictured(f.Name); w != "" {
							emit(plans.ViewChange{Action: i, View: ch.ID, Object: d.ID, What: w})
						}
					}
				}
			}
		case diff.KindElement, diff.KindRelationship:
			if ch.Op != diff.Changed {
				continue // drawn or taken off views: the views' own changes say so
			}
			for _, f := range ch.Fields {
				w := pictured(f.Name)
				if w == "" || w == "changed" {
					continue
				}
				for _, ref := range head.ReferencesTo(ch.ID) {
					if k := ref.Kind(); k != archixml.KindDiagramObject && k != archixml.KindConnection {
						continue
					}
					if v, ok := ref.View(); ok {
						emit(plans.ViewChange{Action: i, View: v.ID(), Object: ref.ID(), What: w, Shown: true})
					}
				}
			}
		}
	}
	return out
}
