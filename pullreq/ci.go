package pullreq

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/query"
	"github.com/archiplan/archiplan/store"
)

// CommentMarker is the marker of archiplan ci's one comment on a pull request.
const CommentMarker = "preview"

// CI is archiplan ci: the check of one pull request in the forge's CI, on a checkout of its head.
type CI struct {
	Workspace *store.Workspace
	Forge     forge.Forge
	Options   plans.Options // the workspace's policy
	Base      string        // the base commit the pull request is compared with
	Head      string        // the pull request's head commit ("" for the checkout's HEAD)
	Number    int           // the pull request
	// Review is the review of a commit range that edits the model by hand, in Markdown (nil:
	// ModelReview, archiplan diff's words). A swap point for archiplan review.
	Review func(ws *store.Workspace, base, head string) (string, error)
}

// CIResult is what archiplan ci found.
type CIResult struct {
	Plans   map[string]string // NAME -> verdict, for each plan the pull request adds or changes
	Model   bool              // the pull request edits the model by hand
	Errors  []string          // why it is not valid
	Comment string            // the comment written
}

// Valid says whether every plan is valid and the model, where edited, adds no error.
func (r *CIResult) Valid() bool { return len(r.Errors) == 0 }

// Run checks the plans the pull request adds or changes (each against the model at its head,
// previewed by the ledger as the inbox previews it) and a hand edit of the model (its review and
// what Archi's validator finds there that it did not find on the base), writes the preview as one
// comment (edited in place on every push) and sets the head's status.
func (c *CI) Run(ctx context.Context) (*CIResult, error) {
	ws := c.Workspace
	head := c.Head
	if head == "" {
		h, err := ws.Head()
		if err != nil {
			return nil, err
		}
		head = h
	}
	res := &CIResult{Plans: map[string]string{}}
	var b strings.Builder
	names, err := c.changedPlans(head)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		section, verdict, err := c.plan(head, name)
		if err != nil {
			return nil, err
		}
		res.Plans[name] = verdict
		if verdict != plans.VerdictValid {
			res.Errors = append(res.Errors, "plan "+name+": "+verdict)
		}
		b.WriteString(section)
	}
	edited, section, errs, err := c.model(head)
	if err != nil {
		return nil, err
	}
	res.Model = edited
	res.Errors = append(res.Errors, errs...)
	b.WriteString(section)
	if len(names) == 0 && !edited {
		b.WriteString("archiplan: this pull request adds no plan and does not edit " + plans.MDCode(ws.Model) + ".\n")
	}
	top := "**archiplan**: valid"
	if !res.Valid() {
		top = "**archiplan**: not valid (" + plans.MDEscape(strings.Join(res.Errors, "; ")) + ")"
	}
	res.Comment = top + fmt.Sprintf(" at %s.\n\n", plans.MDCode(store.Short(head))) + b.String()
	if c.Forge != nil && c.Number > 0 {
		if err := c.Forge.Comment(ctx, c.Number, CommentMarker, res.Comment); err != nil {
			return res, err
		}
	}
	if c.Forge != nil {
		st := forge.Status{Context: StatusContext, State: forge.StatusSuccess, Description: "valid"}
		if !res.Valid() {
			st.State, st.Description = forge.StatusFailure, oneLine(strings.Join(res.Errors, "; "), 120)
		}
		if err := c.Forge.SetStatus(ctx, head, st); err != nil {
			return res, err
		}
	}
	return res, nil
}

// changedPlans are the NAMEs of the plans under ProposedDir whose plan file the head adds or
// changes against the base.
func (c *CI) changedPlans(head string) ([]string, error) {
	ws := c.Workspace
	dirs, err := ws.DirAt(head, ProposedDir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range dirs {
		if inbox.CheckName(name) != nil {
			continue // no plan of archiplan's: nothing reaches a path or a preview
		}
		file := Dir(name) + "/" + inbox.PlanFile(name)
		now, ok, err := ws.FileAt(head, file)
		if err != nil || !ok {
			continue
		}
		if c.Base != "" {
			if was, ok, _ := ws.FileAt(c.Base, file); ok && bytes.Equal(was, now) {
				continue
			}
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}

// plan previews one plan of the branch as the inbox would: the ledger checks it against the model
// at the checkout's HEAD in an inbox of its own (a temporary folder), and the preview is the one
// it writes. Pictures are linked from the branch only where the branch holds the very bytes
// archiplan drew.
func (c *CI) plan(head, name string) (section, verdict string, err error) {
	ws := c.Workspace
	raw, _, err := ws.FileAt(head, Dir(name)+"/"+inbox.PlanFile(name))
	if err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp("", "archiplan-ci-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, "plans"), 0o755); err != nil {
		return "", "", err
	}
	box := inbox.New(filepath.Join(tmp, "plans"), filepath.Join(tmp, "records"))
	if err := box.Submit(name, raw); err != nil {
		return "", "", err
	}
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: box, Options: c.Options})
	e, err := box.Find(name)
	if err != nil {
		return "", "", err
	}
	chk, err := led.Check(e)
	if err != nil {
		return "", "", err
	}
	rec, err := led.Publish(chk)
	if err != nil {
		return "", "", err
	}
	files, err := box.Verify(rec)
	if err != nil {
		return "", "", err
	}
	preview := strings.Replace(string(files[inbox.PreviewFile(name)]), ledger.ApproveNote(name),
		"archiplan pr "+name+" keeps this pull request; approving it applies the plan.", 1)
	same := map[string][]byte{}
	var differ []string
	for file, data := range files {
		if !strings.HasSuffix(file, ".svg") {
			continue
		}
		if onBranch, ok, _ := ws.FileAt(head, Dir(name)+"/"+file); ok && bytes.Equal(onBranch, data) {
			same[file] = data
		} else {
			differ = append(differ, file)
		}
	}
	if pr, err := c.prURL(); err == nil && pr != "" {
		preview = linkPictures(preview, same, c.Forge.Kind(), pr, head, Dir(name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Plan %s: %s\n\n", plans.MDCode(name), plans.MDEscape(chk.Outcome.Verdict))
	if len(differ) > 0 {
		sort.Strings(differ)
		fmt.Fprintf(&b, "> The branch's pictures are not archiplan's drawing of this plan (%s): they are not shown.\n\n", plans.MDEscape(strings.Join(differ, ", ")))
	}
	b.WriteString(demote(preview))
	b.WriteString("\n")
	return b.String(), chk.Outcome.Verdict, nil
}

func (c *CI) prURL() (string, error) {
	if c.Forge == nil || c.Number <= 0 {
		return "", nil
	}
	pr, err := c.Forge.PR(context.Background(), c.Number)
	return pr.URL, err
}

// demote makes a preview's headings one level deeper, so that several sit under the comment's.
func demote(md string) string {
	lines := strings.Split(md, "\n")
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(l, "#") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}

// model reviews a hand edit of the model between the base and the head: its review, and what
// Archi's validator finds on the result that it did not find on the base (new errors make the
// pull request not valid).
func (c *CI) model(head string) (edited bool, section string, errs []string, err error) {
	ws := c.Workspace
	if c.Base == "" {
		return false, "", nil, nil
	}
	before, okB, err := ws.FileAt(c.Base, ws.Model)
	if err != nil {
		return false, "", nil, err
	}
	after, okA, err := ws.FileAt(head, ws.Model)
	if err != nil {
		return false, "", nil, err
	}
	if okA == okB && bytes.Equal(before, after) {
		return false, "", nil, nil
	}
	review := c.Review
	if review == nil {
		review = ModelReview
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s edited by hand (%s..%s)\n\n", plans.MDCode(ws.Model), plans.MDCode(store.Short(c.Base)), plans.MDCode(store.Short(head)))
	words, err := review(ws, c.Base, head)
	if err != nil {
		return true, "", nil, err
	}
	b.WriteString(words)
	m, lerr := archixml.Load(after)
	if lerr != nil {
		fmt.Fprintf(&b, "\nArchi cannot open the model: %s\n", plans.MDEscape(lerr.Error()))
		return true, b.String(), []string{ws.Model + " cannot be opened"}, nil
	}
	was := map[string]bool{}
	if mb, err := archixml.Load(before); err == nil {
		for _, f := range query.Check(mb).Findings {
			was[string(f.Code)+" "+f.Object+" "+f.View] = true
		}
	}
	res := query.Check(m)
	var fresh []plans.ModelFinding
	for _, f := range res.Findings {
		if !was[string(f.Code)+" "+f.Object+" "+f.View] {
			fresh = append(fresh, f)
		}
	}
	fmt.Fprintf(&b, "\n### Archi's validator\n\n%d error(s), %d warning(s), %d advice on the result; new with this edit:\n\n", res.Errors, res.Warnings, res.Advice)
	if len(fresh) == 0 {
		b.WriteString("- nothing\n")
	}
	newErrors := 0
	for _, f := range fresh {
		fmt.Fprintf(&b, "- %s %s %s: %s\n", plans.MDEscape(string(f.Severity)), plans.MDCode(string(f.Code)), plans.MDCode(f.Object), plans.MDEscape(f.Message))
		if f.Severity == plans.Error {
			newErrors++
		}
	}
	if newErrors > 0 {
		errs = append(errs, fmt.Sprintf("%s: %d new error(s) by Archi's validator", ws.Model, newErrors))
	}
	return true, b.String() + "\n", errs, nil
}

// ModelReview is the review of a commit range's model edit in words: archiplan diff's, each line
// escaped as a preview escapes a model's text.
func ModelReview(ws *store.Workspace, base, head string) (string, error) {
	load := func(commit string) (*archixml.Model, error) {
		data, ok, err := ws.FileAt(commit, ws.Model)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("no %s at %s", ws.Model, store.Short(commit))
		}
		return archixml.Load(data)
	}
	before, err := load(base)
	if err != nil {
		return "", fmt.Errorf("%s at %s: %w", ws.Model, store.Short(base), err)
	}
	after, err := load(head)
	if err != nil {
		return "", fmt.Errorf("%s at %s: %w", ws.Model, store.Short(head), err)
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(diff.Models(before, after).String(), "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		fmt.Fprintf(&b, "%s- %s\n", strings.Repeat("  ", indent/2), plans.MDEscape(strings.TrimSpace(l)))
	}
	return b.String(), nil
}
