package ledger

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Kinds of log entries.
const (
	KindApply     = "apply"
	KindRevert    = "revert"
	KindGitRevert = "git-revert"
	// KindGitReapply is a plain `git revert` of a plan's revert: the plan applied again, as the
	// models show (its archived inverse, proved on the commit, undoes exactly what it changed)
	KindGitReapply = "git-reapply"
)

// Entry is one applied or reverted plan, read back from git.
type Entry struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Kind    string `json:"kind"` // apply, revert, git-revert, git-reapply
	PlanID  string `json:"plan_id"`
	Summary string `json:"summary"`
	Author  string `json:"author"`
	// ApprovedBy, for an apply, is the person its commit names as the one who approved it
	ApprovedBy string `json:"approved_by,omitempty"`
	Reverts    string `json:"reverts,omitempty"` // the commit a revert undoes
	// UndoneBy, for an apply, is a later commit not made by archiplan (not an apply or revert the
	// log lists, whatever its trailers claim) that put back what the plan changed (Archi saving
	// its in-memory model over the apply, say): the plan is no longer in the model although no
	// revert says so.
	UndoneBy string `json:"undone_by,omitempty"`
}

// Log reads the applied and reverted plans of the branch, newest first.
func Log(ws *store.Workspace) ([]Entry, error) {
	l, err := LogChecked(ws)
	if err != nil {
		return nil, err
	}
	return l.Entries, nil
}

// Logged is the log as read back: the plans applied and reverted, and apart, the commits whose
// trailers claim an apply or a revert that the commit does not hold.
type Logged struct {
	Entries    []Entry   `json:"entries"`
	Unverified []Claimed `json:"unverified"`
}

// Claimed is a commit whose trailers (or git revert message) claim what it does not hold, and why.
type Claimed struct {
	Entry
	Why string `json:"why"`
}

// LogChecked is Log with the commits it leaves out, for a reader that shows them apart.
func LogChecked(ws *store.Workspace) (*Logged, error) {
	hist, err := ws.History(nil)
	if err != nil {
		return nil, err
	}
	entries, claims := logOf(ws, hist)
	// the applies and reverts a merge brought from its other side (a colleague's, merged by a
	// plain git pull) are the branch's too; whether a later commit undid one is asked from the
	// merge that brought it on (UndoneOnSide)
	side, err := ws.SideCommits(hist)
	if err != nil {
		return nil, err
	}
	if len(side) > 0 {
		se, sc := logOf(ws, side)
		UndoneOnSide(ws, hist, side, se, append(entries[:len(entries):len(entries)], se...))
		entries = newestFirst(ws, entries, se)
		claims = append(claims, sc...)
	}
	return &Logged{Entries: entries, Unverified: claims}, nil
}

// newestFirst is the entries of the line and of the merged sides in one list, newest first by
// date; those of the same second (a colleague's apply merged, and one of the line's) by ancestry:
// a side's entry comes before the line's entries it descends from, as the line's and each side's
// own already do.
func newestFirst(ws *store.Workspace, line, side []Entry) []Entry {
	onSide := make(map[string]bool, len(side))
	for _, e := range side {
		onSide[e.Commit] = true
	}
	entries := append(line, side...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Date > entries[j].Date })
	for i := 0; i < len(entries); {
		k := i + 1
		for k < len(entries) && entries[k].Date == entries[i].Date {
			k++
		}
		sameSecond(ws, entries[i:k], onSide)
		i = k
	}
	return entries
}

// sameSecond orders run (entries of one second, the line's first, then the sides') by ancestry:
// each side's entry just before the first of the line's that it descends from.
func sameSecond(ws *store.Workspace, run []Entry, onSide map[string]bool) {
	var line, side []Entry
	for _, e := range run {
		if onSide[e.Commit] {
			side = append(side, e)
		} else {
			line = append(line, e)
		}
	}
	if len(line) == 0 || len(side) == 0 {
		return
	}
	out := run[:0]
	n := 0
	for _, s := range side {
		for n < len(line) {
			if base, err := ws.MergeBase(line[n].Commit, s.Commit); err == nil && base == line[n].Commit {
				break // s descends from it, and from the older ones after it
			}
			out = append(out, line[n])
			n++
		}
		out = append(out, s)
	}
	copy(run[len(out):], line[n:]) // the line's oldest, which every side's entry placed descends from
}

// onBranch walks the branch's history until match: the first-parent line, then the commits its
// merges brought from their other sides (ws.SideCommits). It gives the history walked with the
// commit matched last, or, when none matched, without one. A match on a side comes after the
// commits of its side that are newer (those its merge brought with it).
func onBranch(ws *store.Workspace, match func(store.CommitInfo) bool) ([]store.CommitInfo, error) {
	hist, err := ws.History(match)
	if err != nil || len(hist) > 0 && match(hist[len(hist)-1]) {
		return hist, err
	}
	side, err := ws.SideCommits(hist)
	if err != nil {
		return nil, err
	}
	for i, c := range side {
		if match(c) {
			// the commits its side made after it come with it, newest first: what the side did
			// to it (a revert, a record removed) before the merge brought both
			for _, d := range side[:i] {
				if d.Via == c.Via {
					hist = append(hist, d)
				}
			}
			return append(hist, c), nil
		}
	}
	return hist, nil
}

// LogOf is Log of a history already read (ws.History's, newest first), for a reader that needs
// the history too and would otherwise walk it twice. hist may be the newest part of the history
// only (a page of it): what an entry says depends on later commits only, and the apply a
// git revert undoes, when older than hist, is read from git.
func LogOf(ws *store.Workspace, hist []store.CommitInfo) []Entry {
	entries, _ := logOf(ws, hist)
	return entries
}

// logOf reads the entries of hist, and apart the commits whose trailers claim an apply or a
// revert they do not hold: anyone who can commit can write a trailer, so an entry is listed only
// when its commit holds what archiplan's apply or revert holds (heldApply, heldRevert).
func logOf(ws *store.Workspace, hist []store.CommitInfo) ([]Entry, []Claimed) {
	blobs := map[string]string{} // commit -> its model's blob
	for _, c := range hist {
		blobs[c.Hash] = c.ModelBlob
	}
	parentBlob := func(c store.CommitInfo) string {
		if b, ok := blobs[c.Parent]; ok || c.Parent == "" {
			return b
		}
		p, _ := ws.Info(c.Parent) // older than a page
		blobs[c.Parent] = p.ModelBlob
		return p.ModelBlob
	}
	applies := map[string]string{} // apply commit -> plan id, of the applies the commit holds
	notHeld := map[string]string{} // apply commit -> why it does not hold the apply it claims
	for _, c := range hist {
		if id := c.Trailers[store.TrailerPlanID]; id != "" {
			if why := heldApply(ws, c, parentBlob(c), id, c.Trailers[store.TrailerPlanSHA256]); why != "" {
				notHeld[c.Hash] = why
			} else {
				applies[c.Hash] = id
			}
		}
	}
	for _, c := range hist {
		if _, ok := applies[c.GitReverts]; c.GitReverts != "" && !ok {
			if info, err := ws.Info(c.GitReverts); err == nil && info.Hash == c.GitReverts && info.Trailers[store.TrailerPlanID] != "" {
				id := info.Trailers[store.TrailerPlanID]
				if heldApply(ws, info, parentBlob(info), id, info.Trailers[store.TrailerPlanSHA256]) == "" {
					applies[c.GitReverts] = id
				}
			}
		}
	}
	reverted := map[string]bool{} // plan ids reverted by archiplan or git
	entries, claims := []Entry{}, []Claimed{}
	for i, c := range hist {
		var e Entry
		switch {
		case c.Trailers[store.TrailerPlanID] != "":
			e = logEntryOf(c, KindApply, c.Trailers[store.TrailerPlanID])
			if why := notHeld[c.Hash]; why != "" {
				claims = append(claims, Claimed{Entry: e, Why: why})
				continue
			}
			if !reverted[e.PlanID] {
				e.UndoneBy = undoneBy(ws, hist[:i], c, borneOut(entries))
			}
		case c.Trailers[store.TrailerRevertsPlan] != "":
			e = logEntryOf(c, KindRevert, c.Trailers[store.TrailerRevertsPlan])
			if why := heldRevert(ws, c, parentBlob(c), e.PlanID); why != "" {
				claims = append(claims, Claimed{Entry: e, Why: why})
				continue
			}
			reverted[e.PlanID] = true
		case c.GitReverts != "" && applies[c.GitReverts] == "" && reapplies(ws, c) != "":
			e = logEntryOf(c, KindGitReapply, reapplies(ws, c)) // (rare: proved twice)
		case applies[c.GitReverts] != "":
			e = logEntryOf(c, KindGitRevert, applies[c.GitReverts])
			if why := heldRevert(ws, c, parentBlob(c), e.PlanID); why != "" {
				claims = append(claims, Claimed{Entry: e, Why: why})
				continue
			}
			reverted[e.PlanID] = true
		default:
			continue
		}
		entries = append(entries, e)
	}
	return entries, claims
}

// reapplies is the plan a plain `git revert` of its revert applies again ("" when c is not one):
// the commit it reverts holds the revert of a plan (heldRevert), and c holds the plan's apply
// again, as the models decide: it adds the plan's archive back, and the inverse archived there,
// proved on c's model, gives back its parent's (c's change is exactly the plan's).
func reapplies(ws *store.Workspace, c store.CommitInfo) string {
	id := revertedIn(ws, c.GitReverts)
	if id == "" || archivedIn(ws, c, id, "") != "" {
		return ""
	}
	a, err := ReadArchive(ws, c.Hash, id)
	if err != nil {
		return ""
	}
	if _, err := proveArchived(ws, c, a, nil); err != nil {
		return ""
	}
	return id
}

// revertedIn is the plan commit holds the revert of: archiplan's (its Reverts-Plan trailer) or a
// plain git revert of the plan's apply, borne out by the commit (heldRevert); "" when none.
func revertedIn(ws *store.Workspace, commit string) string {
	r, err := ws.Info(commit)
	if err != nil || r.Hash != commit {
		return ""
	}
	id := r.Trailers[store.TrailerRevertsPlan]
	if id == "" && r.GitReverts != "" {
		if a, err := ws.Info(r.GitReverts); err == nil && a.Hash == r.GitReverts {
			id = a.Trailers[store.TrailerPlanID]
		}
	}
	if id == "" || heldRevert(ws, r, "", id) != "" {
		return ""
	}
	return id
}

// logEntryOf is the entry a commit of that kind makes, as its message says.
func logEntryOf(c store.CommitInfo, kind, id string) Entry {
	e := Entry{Commit: c.Hash, Date: c.When.UTC().Format("2006-01-02T15:04:05Z"), Author: c.Author, Kind: kind, PlanID: id}
	switch kind {
	case KindApply:
		e.Summary, e.ApprovedBy = strings.TrimPrefix(c.Subject, "plan: "), c.Trailers[store.TrailerApprovedBy]
	case KindRevert:
		e.Reverts, e.Summary = c.Trailers[store.TrailerRevertsCommit], strings.TrimPrefix(c.Subject, "revert: ")
	default:
		e.Reverts, e.Summary = c.GitReverts, c.Subject
	}
	return e
}

// heldApply says why commit c does not hold the apply of plan id its trailers claim ("" when it
// does): archiplan's apply adds the plan's archive, of the bytes whose digest it names (when
// digest is given), and its model is the archived plan applied to its parent's (the models
// decide: an apply amended with its change undone, or a colleague's commit that archives a plan
// of their own beside another change, holds no apply). The proof is made once per commit and
// kept under .git (modelHoldsApply), where neither a planner nor a colleague writes.
func heldApply(ws *store.Workspace, c store.CommitInfo, _, id, digest string) string {
	if why := archivedIn(ws, c, id, digest); why != "" {
		return why
	}
	raw, ok, err := ws.FileAt(c.Hash, archivePath(id, archivePlan))
	if err != nil || !ok || !modelHoldsApply(ws, c, id, raw) {
		return fmt.Sprintf("commit %s archives the plan, but its model is not the plan applied to its parent's", short(c.Hash))
	}
	return ""
}

// archivedIn says why commit c does not add the archive of plan id ("" when it does), of the
// bytes whose digest it names (when digest is given): what heldApply asks before the models.
// A trailer on a hand-made commit, or one naming a plan an earlier commit archived, holds none
// of that. A plan whose actions undo each other changes no byte of the model and is still an
// apply.
func archivedIn(ws *store.Workspace, c store.CommitInfo, id, digest string) string {
	raw, ok, err := ws.FileAt(c.Hash, archivePath(id, archivePlan))
	if err != nil || !ok {
		return fmt.Sprintf("commit %s names the plan but does not archive it", short(c.Hash))
	}
	if digest != "" && (plans.SHA256(raw) != digest || PlanID(PlanName(id), digest) != id) {
		return fmt.Sprintf("commit %s archives other plan bytes under that id", short(c.Hash))
	}
	if c.Parent != "" {
		if _, had, _ := ws.FileAt(c.Parent, archivePath(id, archivePlan)); had {
			return fmt.Sprintf("commit %s names a plan archived before it, by an earlier commit", short(c.Hash))
		}
	}
	return ""
}

// heldRevert says why commit c does not hold the revert of plan id it claims ("" when it does):
// a revert, archiplan's or git's, removes the plan's archive (the model changes unless the plan
// changed none of it).
func heldRevert(ws *store.Workspace, c store.CommitInfo, _, id string) string {
	if c.Parent == "" {
		return fmt.Sprintf("commit %s reverts a plan before any apply", short(c.Hash))
	}
	_, had, err := ws.FileAt(c.Parent, archivePath(id, archivePlan))
	_, has, err2 := ws.FileAt(c.Hash, archivePath(id, archivePlan))
	if err != nil || err2 != nil || !had || has {
		return fmt.Sprintf("commit %s does not remove the plan's archive", short(c.Hash))
	}
	return ""
}

// UndoneOnSide sets, on each apply of se (the entries LogOf made of side, the commits the merges
// of line brought from their other sides), the later commit that undid it, unless a revert of the
// plan came after it (all: every entry of the branch). The later commits are the side's own
// after the apply, the merge that brought the apply, compared with the side's tip (a merge that
// kept its first parent's model, git merge -s ours, brings the commit and drops its change), and
// line's commits after that merge; LogOf's own answer for them compared commits of different sides: dropped.
func UndoneOnSide(ws *store.Workspace, line, side []store.CommitInfo, se, all []Entry) {
	info := make(map[string]store.CommitInfo, len(side))
	for _, c := range side {
		info[c.Hash] = c
	}
	at := make(map[string]int, len(line))
	for k, c := range line {
		at[c.Hash] = k
	}
	held := borneOut(all)
	for i := range se {
		se[i].UndoneBy = ""
		c, ok := info[se[i].Commit]
		k, merged := at[c.Via]
		if se[i].Kind != KindApply || !ok || !merged || revertedAfter(all, se[i]) {
			continue
		}
		// the side's own commits after the apply come before the merge: the one that undid it
		// there is named, not the merge that brought both
		se[i].UndoneBy = undoneBy(ws, append(line[:k+1:k+1], sideAfter(side, info, c)...), c, held)
	}
}

// sideAfter is the first-parent line of apply's side from the tip its merge brought down to
// apply, newest first, apply left out; nil when apply is not on that line.
func sideAfter(side []store.CommitInfo, info map[string]store.CommitInfo, apply store.CommitInfo) []store.CommitInfo {
	var out []store.CommitInfo
	for _, t := range side {
		if t.Via != apply.Via {
			continue
		}
		for h := t.Hash; h != ""; h = info[h].Parent {
			if h == apply.Hash {
				return out
			}
			if _, ok := info[h]; !ok {
				return nil
			}
			out = append(out, info[h])
		}
		return nil
	}
	return nil
}

// revertedAfter says whether a revert of e's plan (archiplan's or git's) is among all, dated from
// e's on.
func revertedAfter(all []Entry, e Entry) bool {
	for _, r := range all {
		if r.Kind != KindApply && r.PlanID == e.PlanID && r.Date >= e.Date {
			return true
		}
	}
	return false
}

// borneOut is the set of commits of entries, the applies and reverts their commits hold (logOf
// lists no other): what undoneBy takes for archiplan's own.
func borneOut(entries []Entry) map[string]bool {
	held := make(map[string]bool, len(entries))
	for _, e := range entries {
		held[e.Commit] = true
	}
	return held
}

// undoneBy finds the later commit, not archiplan's, after which every object the plan changed is
// again as it was before the plan, and stays so to the newest of later: the plan silently undone.
// A change put back since (a colleague's save, a plan) is not undone, whoever undid it before.
// later is newest first. archiplan's are the commits of held, the applies and reverts the log
// lists (their commits hold what they say): a commit whose trailers or git revert line claim
// what it does not hold is asked like any other (the words pick where to look; the models
// decide). Only models that change are read, and archiplan's only once the plan is undone.
func undoneBy(ws *store.Workspace, later []store.CommitInfo, apply store.CommitInfo, held map[string]bool) string {
	var changed []store.CommitInfo // oldest first
	suspect := false
	for i := len(later) - 1; i >= 0; i-- {
		c := later[i]
		if c.ModelBlob != "" && c.ModelBlob != parentBlob(later, i, apply) {
			changed = append(changed, c)
			suspect = suspect || !held[c.Hash]
		}
	}
	if !suspect {
		return ""
	}
	id := apply.Trailers[store.TrailerPlanID]
	a, err := ReadArchive(ws, apply.Hash, id)
	if err != nil || len(a.Inverse.Touched) == 0 {
		return ""
	}
	before, err := modelAt(ws, apply.Parent)
	if err != nil {
		return ""
	}
	undoer := ""
	for _, c := range changed {
		if held[c.Hash] && undoer == "" {
			continue // archiplan's, while the plan holds: a plan's own change, never a silent undo
		}
		after, err := modelAt(ws, c.Hash)
		if err != nil {
			continue
		}
		same := true
		for _, t := range a.Inverse.Touched {
			x, okX := objectXML(before, t)
			y, okY := objectXML(after, t)
			if okX != okY || x != y {
				same = false
				break
			}
		}
		switch {
		case !same:
			undoer = "" // put back, or changed again: not undone (so far)
		case undoer == "" && !held[c.Hash]:
			undoer = c.Hash
		}
	}
	return undoer
}

// parentBlob is the model blob of the commit before later[i] (later newest first, apply before
// them all).
func parentBlob(later []store.CommitInfo, i int, apply store.CommitInfo) string {
	if i+1 < len(later) {
		return later[i+1].ModelBlob
	}
	return apply.ModelBlob
}

func modelAt(ws *store.Workspace, commit string) (*archixml.Model, error) {
	data, ok, err := ws.ModelAt(commit)
	if err != nil || !ok {
		return nil, err
	}
	return archixml.Load(data)
}

// heldModels remembers, per commit and plan, whether the commit's model is the plan applied to
// its parent's: a commit never changes, and the proof parses a model.
var heldModels sync.Map

// modelHoldsApply says whether c's model is raw, plan id, applied to c's parent's: the bytes the
// applied model saves as are the commit's (a zipped model compared as its archive is, SavesAs).
// The answer is kept under .git (noteProof): an apply notes its own commit as it makes it, and a
// commit pulled from a team's remote is proved once, by the first reader that asks.
func modelHoldsApply(ws *store.Workspace, c store.CommitInfo, id string, raw []byte) bool {
	key := ws.Root + "\x00" + c.Hash + "\x00" + id + "\x00" + plans.SHA256(raw)
	if ok, seen := heldModels.Load(key); seen {
		return ok.(bool)
	}
	if held, known := knownProof(ws, c.Hash, id, raw); known {
		heldModels.Store(key, held)
		return held
	}
	held := false
	if before, ok, err := ws.ModelAt(c.Parent); err == nil && ok && c.Parent != "" {
		after, ok, err := ws.ModelAt(c.Hash)
		if err != nil || !ok {
			return false
		}
		if m, err := archixml.Load(before); err == nil {
			if _, _, err := plans.Apply(raw, m, plans.Options{}); err == nil {
				held = m.SavesAs(after)
			}
		}
	} else if err != nil {
		return false // not known: asked again
	}
	heldModels.Store(key, held)
	noteProof(ws, c.Hash, id, raw, held)
	return held
}

// proofsDir holds the proofs of applies, one file per commit: under .git, where a planner (who
// writes the inbox) and a colleague (who pushes commits) cannot write; the person can, as they
// can run any git command.
const proofsDir = "archiplan/proofs"

// proofLine is what a proof file holds of plan id, raw, in commit: held or not.
func proofLine(id string, raw []byte, held bool) string {
	word := "not"
	if held {
		word = "held"
	}
	return word + " " + id + " " + plans.SHA256(raw) + "\n"
}

// knownProof reads the proof of commit's apply of plan id, raw, kept by noteProof (known: one is).
// A file that is a link, not a file, too large or about another plan is no proof.
func knownProof(ws *store.Workspace, commit, id string, raw []byte) (held, known bool) {
	if !commitName(commit) {
		return false, false
	}
	data, err := readCapped(ws.GitPath(filepath.Join(filepath.FromSlash(proofsDir), commit)), 512)
	if err != nil {
		return false, false
	}
	switch string(data) {
	case proofLine(id, raw, true):
		return true, true
	case proofLine(id, raw, false):
		return false, true
	}
	return false, false
}

// commitName says whether s is a commit's full hash (SHA-1 or SHA-256), so a file name.
func commitName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// noteProof keeps the proof of commit's apply of plan id, raw (whether its model is the plan
// applied to its parent's); a failure only costs the proof again.
func noteProof(ws *store.Workspace, commit, id string, raw []byte, held bool) {
	if !commitName(commit) {
		return
	}
	// synced as the commit's files are (a proof is a cache: a lost one is proved again), not
	// always: two fsyncs per approval otherwise, where git's default makes none
	_ = ws.WriteGitFile(filepath.Join(filepath.FromSlash(proofsDir), commit), []byte(proofLine(id, raw, held)))
}

// AppliedAs are the applies of the branch of plans submitted as NAME, newest first (none when the
// log cannot be read: the callers only add advice).
func AppliedAs(ws *store.Workspace, name string) []Entry {
	entries, err := Log(ws)
	if err != nil {
		return nil
	}
	var named []Entry
	for _, e := range entries {
		if e.Kind == KindApply && PlanName(e.PlanID) == name && e.PlanID != name {
			named = append(named, e)
		}
	}
	return named
}

// Gone says where plan NAME went when an approval or rejection finds it no longer in the inbox
// and it was applied (AppliedAs): "" when it was not. The command line and the review page say
// it in these words (a second approval, a page drawn before another person approved).
func Gone(ws *store.Workspace, name string) string {
	named := AppliedAs(ws, name)
	if len(named) == 0 {
		return ""
	}
	e := named[0] // the last apply under NAME
	return fmt.Sprintf("%s was applied as %s in commit %s, and left the inbox then: nothing waits for a decision (archiplan log and the page's History list it)",
		name, e.PlanID, short(e.Commit))
}
