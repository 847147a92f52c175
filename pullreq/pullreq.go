// Package pullreq turns a plan into a pull request on the team's forge and applies it when the
// forge says a person approved it: the forge authenticates the reviewer and holds the discussion,
// archiplan keeps the promise. A plan's branch (archiplan/plan/NAME) holds the plan, its preview
// and the preview's pictures under .archiplan/proposed/NAME/; the pull request's description is
// that preview, made by the ledger as for the inbox (never a second renderer). The binding an
// approval needs (plan bytes, model, policy, preview) is the ledger's record under .git/; what
// this package adds there is which pull request and head show it (.git/archiplan/pr/NAME.json).
package pullreq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

const (
	// BranchPrefix starts the branch of a plan's pull request: the rest is the plan's NAME, which
	// matches the inbox's safe pattern (letters, digits, - and _), so the branch needs no quoting.
	BranchPrefix = "archiplan/plan/"
	// ProposedDir holds, on a plan's branch, one folder per plan: the plan, its preview and its
	// pictures, so that the forge shows them.
	ProposedDir = ".archiplan/proposed"
	// StatusContext is the commit status archiplan sets on a plan's head (and archiplan ci on a
	// pull request's).
	StatusContext = "archiplan/preview"
	// marker is the invisible first line of a description archiplan wrote.
	marker = "<!-- archiplan:pull-request -->"
)

// Branch is the branch of plan NAME's pull request.
func Branch(name string) string { return BranchPrefix + name }

// Dir is plan NAME's folder on its branch.
func Dir(name string) string { return ProposedDir + "/" + name }

// Flow is the pull-request workflow of one workspace on one forge.
type Flow struct {
	Ledger *ledger.Ledger
	Forge  forge.Forge
	Remote string // the git remote that is the forge's repository ("origin")
	Base   string // the branch pull requests go into ("" for the workspace's branch)
	// Approvers, when not empty, are the forge accounts whose approval counts (the owners rules
	// of policy/ narrow it further, per plan); empty: anyone but the pull request's author.
	Approvers []string
	Logger    *slog.Logger
	Now       func() time.Time
	// Between, when set, runs the flow's writes to the inbox (a preview, an approval and its
	// apply) between a daemon's passes (daemon.Exclusive), never during one.
	Between func(func() error) error
}

func (f *Flow) between(fn func() error) error {
	if f.Between == nil {
		return fn()
	}
	return f.Between(fn)
}

// State is what archiplan keeps of a plan's pull request, beside the ledger's record of the
// preview it shows: which pull request, the head and base it was previewed on.
type State struct {
	Name    string    `json:"name"`
	Number  int       `json:"number"`
	URL     string    `json:"url"`
	Branch  string    `json:"branch"`
	Head    string    `json:"head"`    // the branch's commit archiplan pushed (what a review must approve)
	Base    string    `json:"base"`    // the base commit the plan was previewed on
	Preview string    `json:"preview"` // the SHA-256 of the preview the description shows
	Plan    string    `json:"plan"`    // the plan's SHA-256
	Policy  string    `json:"policy"`
	Verdict string    `json:"verdict"`
	Changes []string  `json:"changes,omitempty"`
	Stale   string    `json:"stale,omitempty"`   // why the pull request was marked stale
	Applied string    `json:"applied,omitempty"` // the apply commit
	At      time.Time `json:"at"`
	// Reverts is set on a revert's pull request: the id of the applied plan it undoes (Name is
	// that id too); RevertsCommit is the plan's apply commit, Blob the model the revert writes
	// on Base, what the person read and what the revert must write.
	Reverts       string `json:"reverts,omitempty"`
	RevertsCommit string `json:"reverts_commit,omitempty"`
	Blob          string `json:"blob,omitempty"`
}

// again is the command that previews st's pull request again.
func (st *State) again() string {
	if st.Reverts != "" {
		return "archiplan pr --revert " + st.Reverts
	}
	return "archiplan pr " + st.Name
}

func (f *Flow) log() *slog.Logger {
	if f.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return f.Logger
}

func (f *Flow) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

func (f *Flow) ws() *store.Workspace { return f.Ledger.Workspace() }

func (f *Flow) statePath(name string) string {
	return f.ws().GitPath(filepath.Join("archiplan", "pr", name+".json"))
}

// Load is the state of NAME's pull request (nil, nil when archiplan opened none).
func (f *Flow) Load(name string) (*State, error) {
	if err := inbox.CheckName(name); err != nil {
		return nil, err
	}
	return loadState(f.statePath(name))
}

// loadState reads a state archiplan kept (nil, nil when there is none).
func loadState(path string) (*State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &st, nil
}

func (f *Flow) save(st *State) error {
	p := f.statePath(st.Name)
	if st.Reverts != "" {
		p = f.revertPath(st.Reverts)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// Names are the plans with a pull request archiplan opened, sorted.
func (f *Flow) Names() ([]string, error) {
	return listStates(filepath.Dir(f.statePath("x")), func(n string) bool { return inbox.CheckName(n) == nil })
}

// listStates are the names of the states kept in dir that ok accepts, sorted.
func listStates(dir string, ok func(string) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var out []string
	for _, e := range entries {
		if n, isJSON := strings.CutSuffix(e.Name(), ".json"); isJSON && ok(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, err
}

// Open previews plan NAME of the inbox (as the daemon does: the ledger checks it and records what
// the preview binds), commits the plan, its preview and pictures on the base it was previewed
// on, pushes that to the plan's branch and opens its pull request, or, when one is open, updates
// its description and says what changed since the last preview. The head's status says the
// verdict.
func (f *Flow) Open(ctx context.Context, name string) (*State, error) {
	e, err := f.pending(name)
	if err != nil {
		return nil, err
	}
	c, rec, files, err := f.preview(e)
	if err != nil {
		return nil, err
	}
	return f.openPreviewed(ctx, name, c, rec, files)
}

// Deliver is deliver: pull-request for one plan of the inbox, whoever put it there (the daemon's
// pass, ask, MCP's submit_plan): a plan previewed valid becomes a pull request (Open), unless its
// pull request shows that very preview already. A plan nobody previewed yet (no daemon runs) is
// previewed first, as the daemon would. The state is nil when the plan is not valid: it waits in
// the inbox, where its preview says why.
func (f *Flow) Deliver(ctx context.Context, name string) (*State, error) {
	e, err := f.pending(name)
	if err != nil {
		return nil, err
	}
	rec, err := f.Ledger.Inbox().Record(name)
	var c *ledger.Checked
	var files map[string][]byte
	if errors.Is(err, inbox.ErrNotPreviewed) {
		c, rec, files, err = f.preview(e)
	}
	if err != nil {
		return nil, err
	}
	if rec.Verdict != plans.VerdictValid {
		return nil, nil // nothing a person could approve
	}
	if st, _ := f.Load(name); st != nil && st.Preview == rec.Outputs[inbox.PreviewFile(name)] && st.Stale == "" {
		return st, nil // its pull request shows this preview
	}
	if c == nil {
		return f.Open(ctx, name)
	}
	return f.openPreviewed(ctx, name, c, rec, files)
}

// pending is plan NAME of the inbox, refused unless it waits there.
func (f *Flow) pending(name string) (inbox.Entry, error) {
	if err := inbox.CheckName(name); err != nil {
		return inbox.Entry{}, err
	}
	e, err := f.Ledger.Inbox().Find(name)
	if err != nil {
		return e, err
	}
	if e.State != inbox.Pending {
		return e, fmt.Errorf("%s is %s: only a plan waiting in the inbox (%s) becomes a pull request", name, e.State, inbox.PlanFile(name))
	}
	return e, nil
}

// preview is the ledger's preview of a plan of the inbox, as the daemon makes it, and its files.
func (f *Flow) preview(e inbox.Entry) (c *ledger.Checked, rec *inbox.Record, files map[string][]byte, err error) {
	err = f.between(func() (err error) {
		if c, err = f.Ledger.Check(e); err != nil {
			return err
		}
		if rec, err = f.Ledger.Publish(c); err != nil {
			return err
		}
		files, err = f.Ledger.Inbox().Verify(rec)
		return err
	})
	return c, rec, files, err
}

// openPreviewed is Open once the plan is previewed.
func (f *Flow) openPreviewed(ctx context.Context, name string, c *ledger.Checked, rec *inbox.Record, files map[string][]byte) (*State, error) {
	if rec.Outputs[inbox.PreviewFile(name)] == "" {
		// published as a rejection (its bytes changed after a valid preview): nothing to review
		return nil, fmt.Errorf("%s was rejected: %s says why", name, inbox.PreviewFile(name))
	}
	prev, err := f.Load(name)
	if err != nil {
		return nil, err
	}
	// the branch: the base previewed on, and the plan's folder
	dir := Dir(name)
	tree := map[string][]byte{dir + "/" + inbox.PlanFile(name): c.Raw}
	for file, data := range files {
		if file == inbox.ReportFile(name) {
			continue
		}
		tree[dir+"/"+file] = data
	}
	msg := "proposed plan: " + oneLine(rec.Summary, 200) + "\n\nPlan " + name + " (sha256 " + rec.PlanSHA256 + "), previewed on " + rec.Commit +
		". archiplan applies it when this pull request is approved; merging this branch by hand applies nothing.\n"
	st := &State{Name: name, Branch: Branch(name), Base: rec.Commit, Preview: rec.Outputs[inbox.PreviewFile(name)],
		Plan: rec.PlanSHA256, Policy: rec.Policy, Verdict: rec.Verdict, Changes: rec.Changes}
	return f.propose(ctx, st, prev, tree, files, "plan "+name+": "+oneLine(rec.Summary, 120), msg)
}

// propose shows st's preview as a pull request: unless the open one shows it on that base already,
// it commits tree on the base previewed, pushes it to st's branch, opens the pull request (or
// edits the open one's description: files are the preview's), sets the head's status and keeps
// st. prev is what the pull request showed before (nil: nothing).
func (f *Flow) propose(ctx context.Context, st, prev *State, tree, files map[string][]byte, title, msg string) (*State, error) {
	if prev != nil && prev.Applied == "" && prev.Stale == "" && prev.Preview == st.Preview && prev.Base == st.Base {
		// the same preview on the same base: the pull request shows it already, and a new head
		// would void the approvals of this one
		if pr, err := f.Forge.PR(ctx, prev.Number); err == nil && pr.State == "open" && pr.HeadSHA == prev.Head {
			return prev, nil
		}
	}
	if prev != nil && prev.Head != "" {
		// a re-preview is a new head, never the earlier one again (the same plan, base and
		// second would give the same commit, and the approvals of that head would count again)
		msg += "\nPreviewed again after " + prev.Head + ".\n"
	}
	head, err := f.ws().WriteCommit(store.Change{Base: st.Base, Files: tree,
		Message: msg,
		Author:  store.Signature{Name: "archiplan", Email: "archiplan@localhost"}, When: f.now()})
	if err != nil {
		return nil, err
	}
	if err := f.ws().PushBranch(ctx, f.Remote, head, st.Branch, ""); err != nil {
		return nil, err
	}
	st.Head, st.At = head, f.now().UTC()
	var pr forge.PR
	open, found, err := f.Forge.FindPR(ctx, st.Branch)
	if err != nil {
		return nil, err
	}
	if found {
		pr = open
	} else {
		base := f.Base
		if base == "" {
			if base, err = f.ws().BranchName(); err != nil {
				return nil, err
			}
		}
		// opened with the words; the pictures' links need the pull request's address
		body := f.description(st, files, "", changedSince(prev, st))
		if pr, err = f.Forge.OpenPR(ctx, forge.NewPR{Title: title, Body: body, Head: st.Branch, Base: base}); err != nil {
			return nil, err
		}
	}
	st.Number, st.URL = pr.Number, pr.URL
	if err := f.Forge.EditPR(ctx, pr.Number, title, f.description(st, files, pr.URL, changedSince(prev, st))); err != nil {
		return nil, err
	}
	if err := f.Forge.SetStatus(ctx, head, verdictStatus(st)); err != nil {
		return nil, err
	}
	if err := f.save(st); err != nil {
		return nil, err
	}
	f.log().Info("pull request", "plan", st.Name, "reverts", st.Reverts, "number", pr.Number, "head", store.Short(head), "verdict", st.Verdict)
	return st, nil
}

func verdictStatus(st *State) forge.Status {
	what := "plan " + st.Name
	if st.Reverts != "" {
		what = "the revert of " + st.Reverts
	}
	if st.Verdict == plans.VerdictValid {
		return forge.Status{Context: StatusContext, State: forge.StatusSuccess, Description: what + " is valid: approve to apply"}
	}
	return forge.Status{Context: StatusContext, State: forge.StatusFailure, Description: what + ": " + st.Verdict}
}

// description is a pull request's description: archiplan's lines on top (what an approval does,
// what changed since the last preview, stale when it is), then the ledger's preview, its pictures
// linked to the files on the branch's commit (prURL "" before the pull request exists: no links).
func (f *Flow) description(st *State, files map[string][]byte, prURL string, changed []string) string {
	var b strings.Builder
	b.WriteString(marker + "\n")
	if st.Stale != "" {
		fmt.Fprintf(&b, "> **Stale**: %s\n\n", plans.MDEscape(st.Stale))
	}
	what, commit := "plan "+plans.MDCode(st.Name), "apply commit"
	dir, preview := Dir(st.Name), strings.Replace(string(files[inbox.PreviewFile(st.Name)]), ledger.ApproveNote(st.Name),
		"To apply it, approve this pull request.", 1)
	if st.Reverts != "" {
		what, commit = "revert of plan "+plans.MDCode(st.Reverts)+" (applied in "+plans.MDCode(store.Short(st.RevertsCommit))+")", "revert commit"
		dir, preview = RevertDir(st.Reverts), string(files[revertPreview])
	}
	fmt.Fprintf(&b, "**archiplan %s**, previewed on %s (branch head %s).\n\n", what, plans.MDCode(store.Short(st.Base)), plans.MDCode(store.Short(st.Head)))
	if st.Verdict == plans.VerdictValid && st.Stale == "" {
		b.WriteString("Approve this pull request (a review) to apply it: archiplan then makes the " + commit + ", with your account in " +
			"`Approved-By`, and merges. An approval counts only on this head; a push after it voids it, and so does a move of the base.\n\n")
		if st.Reverts != "" {
			b.WriteString("The commit the review names is the revert as archiplan makes it, on no branch: approved, it is made again " +
				"on the same base with your account, and only if it writes the very model shown.\n\n")
		}
	}
	if len(changed) > 0 {
		b.WriteString("**Previewed again**:\n\n")
		for _, c := range changed {
			b.WriteString("- " + c + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("---\n\n")
	if prURL != "" {
		preview = linkPictures(preview, files, f.Forge.Kind(), prURL, st.Head, dir)
	}
	b.WriteString(preview)
	return b.String()
}

// linkPictures points a preview's picture references (the lines "[FILE]: FILE" the ledger writes,
// FILE of the safe pattern) at the files on the branch's commit, as the forge serves them raw.
func linkPictures(preview string, files map[string][]byte, kind, prURL, commit, dir string) string {
	repo := repoURL(kind, prURL)
	if repo == "" {
		return preview
	}
	for file := range files {
		if !strings.HasSuffix(file, ".svg") {
			continue
		}
		def := "\n[" + file + "]: " + file + "\n"
		preview = strings.ReplaceAll(preview, def, "\n["+file+"]: "+rawURL(kind, repo, commit, dir+"/"+file)+"\n")
	}
	return preview
}

// repoURL is a repository's page from one of its pull requests' pages ("" when not recognised).
func repoURL(kind, prURL string) string {
	u, err := url.Parse(prURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return ""
	}
	for _, sep := range []string{"/-/merge_requests/", "/pulls/", "/pull/"} {
		if i := strings.LastIndex(prURL, sep); i > 0 {
			return prURL[:i]
		}
	}
	return ""
}

// rawURL is where a forge serves a file of a commit as it is.
func rawURL(kind, repo, commit, path string) string {
	switch kind {
	case "github":
		return repo + "/raw/" + commit + "/" + path
	case "gitlab":
		return repo + "/-/raw/" + commit + "/" + path
	}
	return repo + "/raw/commit/" + commit + "/" + path // Gitea, Forgejo
}

// changedSince says, for a re-preview, what moved since the description last shown.
func changedSince(prev, now *State) []string {
	if prev == nil || prev.Head == now.Head {
		return nil
	}
	var out []string
	if prev.Base != now.Base {
		out = append(out, fmt.Sprintf("the base moved from %s to %s", plans.MDCode(store.Short(prev.Base)), plans.MDCode(store.Short(now.Base))))
	}
	if prev.Policy != now.Policy {
		out = append(out, "the policy changed")
	}
	if prev.Plan != now.Plan {
		out = append(out, "the plan changed")
	}
	if prev.Verdict != now.Verdict {
		out = append(out, fmt.Sprintf("the verdict was %s, it is %s", plans.MDEscape(prev.Verdict), plans.MDEscape(now.Verdict)))
	}
	was := map[string]bool{}
	for _, c := range prev.Changes {
		was[c] = true
	}
	is := map[string]bool{}
	for _, c := range now.Changes {
		is[c] = true
		if !was[c] {
			out = append(out, "now: "+plans.MDEscape(c))
		}
	}
	for _, c := range prev.Changes {
		if !is[c] {
			out = append(out, "no longer: "+plans.MDEscape(c))
		}
	}
	if len(out) > 0 && sameWords(prev.Changes, now.Changes) {
		out = append(out, "every change reads as before")
	}
	out = append(out, "approvals given before this preview are void: approve this head")
	return out
}

func sameWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// oneLine is a plan's text as one line of a title or subject: hidden characters shown as their
// codes (as the preview shows them), at most n bytes.
func oneLine(s string, n int) string {
	s = plans.ShowHidden(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	if s == "" {
		s = "(no summary)"
	}
	return s
}
