package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// ArchiveDir is where applied plans are kept, committed with the change they made.
const ArchiveDir = "plans/applied"

// Verdicts the apply path adds to the checker's.
const (
	VerdictStale    = "stale"
	VerdictRejected = "rejected"
	VerdictApplied  = "applied"
)

var (
	// ErrRefused means the plan was not applied; the Result's report says why.
	ErrRefused = errors.New("plan refused")
	// ErrAlreadyApplied means these very plan bytes were applied before; Result.Commit names it.
	ErrAlreadyApplied = errors.New("plan already applied")
)

// Request is one approved plan to apply.
type Request struct {
	Name string // the plan's name (NAME of plans/NAME.json), part of its id
	File string // the plan file's path, for hooks and reports
	Raw  []byte // the plan's bytes, as approved
	// Previewed, when the plan was previewed, is the report of that preview: the plan must be
	// the same bytes, and the model the same blob.
	Previewed *plans.Report
	// ReportFile is where the report will be (for hooks); may be empty.
	ReportFile string
	Options    plans.Options
	ApprovedBy store.Signature
	Hooks      hooks.Runner
	Now        func() time.Time
}

// Result is what an apply did.
type Result struct {
	PlanID   string
	Commit   string // the apply commit (or, with ErrAlreadyApplied, the earlier one)
	Outcome  *plans.Outcome
	Report   *plans.Report
	Preview  []byte
	HookNote string // output of the hooks, for people
}

// PlanID is a plan's id: its name and the start of its hash, so that the same bytes are known
// again under any name.
func PlanID(name, sha256 string) string { return name + "-" + sha256[:12] }

// Apply is the one apply path, shared by the command line and the daemon: under the workspace's
// lock, against the model at HEAD, it refuses a plan that is not the bytes previewed, a stale
// one, one applied before, one that is not valid and ready, a dirty model, or a pre-apply veto;
// otherwise it commits the new model and the plan's archive as one commit, and runs post-apply.
func Apply(ctx context.Context, ws *store.Workspace, req Request) (*Result, error) {
	lock, err := ws.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if _, err := ws.Recover(); err != nil {
		return nil, fmt.Errorf("recover an interrupted apply: %w", err)
	}
	head, err := ws.ReadModel()
	if err != nil {
		return nil, err
	}
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	info := plans.ModelInfo{Path: ws.Model, Commit: head.Commit, Blob: head.Blob}
	res := &Result{}
	refuse := func(o *plans.Outcome, verdict, reason string) (*Result, error) {
		if o == nil {
			o = &plans.Outcome{SHA256: sha(req.Raw), Verdict: verdict}
		}
		res.Outcome = o
		res.Report = o.Report(path.Base(req.File), info)
		res.Report.Verdict, res.Report.Reason = verdict, reason
		res.Preview = append(o.Preview(path.Base(req.File), info), []byte("\n## Not applied\n\n"+reason+"\n")...)
		return res, fmt.Errorf("%w: %s", ErrRefused, reason)
	}
	digest := sha(req.Raw)
	res.PlanID = PlanID(req.Name, digest)
	if p := req.Previewed; p != nil {
		if p.Plan.SHA256 != digest {
			return refuse(nil, VerdictRejected, "the plan changed after its preview: approve only what was previewed (rename it back to .json to preview it again)")
		}
		if p.Model.Blob != "" && p.Model.Blob != head.Blob {
			return refuse(nil, VerdictStale, fmt.Sprintf("the model changed since the preview (blob %s then, %s at HEAD %s now): rename it back to .json to preview it again",
				short(p.Model.Blob), short(head.Blob), short(head.Commit)))
		}
	}
	if prior, err := appliedBefore(ws, head.Commit, digest); err != nil {
		return nil, err
	} else if prior != "" {
		res.Commit = prior
		return res, fmt.Errorf("%w: %s in commit %s", ErrAlreadyApplied, res.PlanID, short(prior))
	}
	if head.Dirty {
		return refuse(nil, VerdictRejected, fmt.Sprintf("%s has uncommitted changes (saved from Archi?): commit or discard them first; they are left as they are", ws.Model))
	}
	m, err := archixml.Load(head.Data)
	if err != nil {
		return nil, fmt.Errorf("load %s at %s: %w", ws.Model, short(head.Commit), err)
	}
	opts := req.Options
	opts.Seed = digest + head.Blob
	o, inv, err := plans.Apply(req.Raw, m, opts)
	if err != nil {
		return refuse(o, VerdictRejected, err.Error())
	}
	res.Outcome = o
	env := map[string]string{
		"ARCHIPLAN_PLAN": req.File, "ARCHIPLAN_PLAN_ID": res.PlanID, "ARCHIPLAN_PLAN_SHA256": digest,
		"ARCHIPLAN_REPORT": req.ReportFile, "ARCHIPLAN_MODEL": ws.Model, "ARCHIPLAN_BASE_COMMIT": head.Commit,
	}
	pre, err := req.Hooks.Run(ctx, hooks.PreApply, ws.Root, env)
	if pre.Ran {
		res.HookNote = "pre-apply: " + strings.TrimSpace(pre.Output)
	}
	if err != nil {
		return refuse(o, VerdictRejected, fmt.Sprintf("the pre-apply hook failed: %v\n\n%s", err, pre.Output))
	}
	if pre.ExitCode != 0 {
		return refuse(o, VerdictRejected, fmt.Sprintf("vetoed by the pre-apply hook (exit %d):\n\n%s", pre.ExitCode, strings.TrimSpace(pre.Output)))
	}
	files, report, preview, err := applyFiles(ws, m, o, inv, req.Raw, res.PlanID, path.Base(req.File), info)
	if err != nil {
		return nil, err
	}
	commit, err := ws.Publish(store.Change{Base: head.Commit, Files: files, Message: applyMessage(o, res.PlanID, digest, head.Commit, req.ApprovedBy),
		Author: req.ApprovedBy, When: now()})
	if errors.Is(err, store.ErrHeadMoved) {
		return refuse(o, VerdictStale, err.Error())
	}
	if err != nil && commit == "" {
		return nil, err
	}
	res.Commit, res.Report, res.Preview = commit, report, preview
	env["ARCHIPLAN_COMMIT"] = commit
	post, herr := req.Hooks.Run(ctx, hooks.PostApply, ws.Root, env)
	if post.Ran {
		res.HookNote = strings.TrimSpace(res.HookNote + "\npost-apply: " + strings.TrimSpace(post.Output))
	}
	if herr != nil {
		res.HookNote += fmt.Sprintf("\npost-apply: %v", herr)
	}
	return res, err
}

// applyFiles are what an apply commits: the new model and the plan's archive.
func applyFiles(ws *store.Workspace, m *archixml.Model, o *plans.Outcome, inv *plans.Inverse, raw []byte, id, file string,
	info plans.ModelInfo) (map[string][]byte, *plans.Report, []byte, error) {
	data, err := m.Save()
	if err != nil {
		return nil, nil, nil, err
	}
	report := o.Report(file, info)
	report.Verdict = VerdictApplied
	preview := o.Preview(file, info)
	invJSON, _ := json.MarshalIndent(inv, "", " ")
	dir := ArchiveDir + "/" + id
	return map[string][]byte{
		ws.Model:              data,
		dir + "/plan.json":    raw,
		dir + "/preview.md":   preview,
		dir + "/report.json":  report.JSON(),
		dir + "/inverse.json": append(invJSON, '\n'),
	}, report, preview, nil
}

// appliedBefore finds these plan bytes in the archive at HEAD.
func appliedBefore(ws *store.Workspace, head, digest string) (string, error) {
	names, err := ws.DirAt(head, ArchiveDir)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if strings.HasSuffix(n, "-"+digest[:12]) {
			hist, err := ws.History(func(c store.CommitInfo) bool { return c.Trailers[store.TrailerPlanID] == n })
			if err != nil {
				return "", err
			}
			return hist[len(hist)-1].Hash, nil
		}
	}
	return "", nil
}

func applyMessage(o *plans.Outcome, id, digest, base string, by store.Signature) string {
	var b strings.Builder
	summary := strings.TrimSpace(strings.SplitN(o.Plan.Summary, "\n", 2)[0])
	if summary == "" {
		summary = id
	}
	fmt.Fprintf(&b, "plan: %s\n\n", summary)
	for _, r := range o.Results {
		fmt.Fprintf(&b, "- %s\n", r.Description)
	}
	fmt.Fprintf(&b, "\n%s: %s\n%s: %s\n%s: %s\n%s: %s <%s>\n", store.TrailerPlanID, id, store.TrailerPlanSHA256, digest,
		store.TrailerBaseCommit, base, store.TrailerApprovedBy, by.Name, by.Email)
	return b.String()
}

func sha(b []byte) string { return plans.SHA256(b) }

func short(h string) string { return store.Short(h) }
