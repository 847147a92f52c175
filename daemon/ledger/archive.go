package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// The archive of an applied plan: .archiplan/applied/<id>/ holds these files, committed with the
// change the plan made.
const (
	archivePlan    = "plan.json"
	archivePreview = "preview.md"
	archiveReport  = "report.json"
	archiveInverse = "inverse.json"
)

// archivePath is the path of one file of a plan's archive.
func archivePath(id, file string) string { return ArchiveDir + "/" + id + "/" + file }

// Archived is what the archive of one applied plan holds, as committed.
type Archived struct {
	ID      string
	Commit  string // the commit the archive is read at
	Plan    []byte
	Preview []byte
	Report  []byte
	Inverse *plans.Inverse
	Files   []string // every path of the archive, as committed
}

// ReadArchive reads the archive of plan id as committed at commit: the one reader of the archive.
// It decodes the inverse and judges none of its steps: log and sync read only the plan and the
// ids it touched. Whatever undoes the steps (revert, a re-revert in a sync) proves the inverse
// first (proveInverse), since a commit pulled from a team's remote may carry a crafted one.
func ReadArchive(ws *store.Workspace, commit, id string) (*Archived, error) {
	a := &Archived{ID: id, Commit: commit}
	files, err := ws.DirAt(commit, ArchiveDir+"/"+id)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		a.Files = append(a.Files, archivePath(id, f))
	}
	read := func(file string, required bool) ([]byte, error) {
		data, ok, err := ws.FileAt(commit, archivePath(id, file))
		if err != nil {
			return nil, err
		}
		if !ok && required {
			return nil, fmt.Errorf("commit %s has no %s for %s", short(commit), archivePath(id, file), id)
		}
		return data, nil
	}
	if a.Plan, err = read(archivePlan, true); err != nil {
		return nil, err
	}
	if a.Preview, err = read(archivePreview, false); err != nil {
		return nil, err
	}
	if a.Report, err = read(archiveReport, false); err != nil {
		return nil, err
	}
	raw, err := read(archiveInverse, true)
	if err != nil {
		return nil, err
	}
	a.Inverse, err = decodeInverse(raw, id)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// decodeInverse reads an archived inverse strictly: known fields, format 1.
func decodeInverse(raw []byte, id string) (*plans.Inverse, error) {
	var inv plans.Inverse
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		return nil, fmt.Errorf("%w: read the inverse of %s: %v", ErrBadInverse, id, err)
	}
	if inv.FormatVersion != "1" {
		return nil, fmt.Errorf("%w: the inverse of %s has format_version %q", ErrBadInverse, id, inv.FormatVersion)
	}
	return &inv, nil
}

// proveInverse proves that an inverse is the one of the plan it is archived with, before anything
// uses its steps: applied to after (the model the apply made), the steps must give back before
// (the model it was applied to) byte for byte, or as archiplan writes that model when its file is
// laid out otherwise; and each step must be one an op of the plan declares its edit records
// (plans.CheckInverse, from schemas.Op.Effect). A step nothing asked for, or changed, or a
// missing one, fails the proof, and the error names the first step that does not fit.
func proveInverse(raw []byte, inv *plans.Inverse, before, after []byte) error {
	m, err := archixml.Load(after)
	if err != nil {
		return fmt.Errorf("the model it undoes cannot be read: %v", err)
	}
	return proveUndo(raw, inv, m, before)
}

// proveUndo is the proof on m, the model Load gives for the bytes the apply made; the steps are
// undone on it.
func proveUndo(raw []byte, inv *plans.Inverse, m *archixml.Model, before []byte) error {
	tags, err := m.UndoTags(inv.Steps)
	if err != nil {
		return err
	}
	if err := plans.CheckInverse(raw, inv.Steps, tags); err != nil {
		return err
	}
	if m.SavesAs(before) {
		return nil
	}
	got, err := m.Save()
	if err != nil {
		return err
	}
	parent, err := archixml.Load(before)
	if err != nil {
		return fmt.Errorf("the model before the apply cannot be read: %v", err)
	}
	if canon, err := parent.Save(); err == nil && bytes.Equal(got, canon) {
		return nil
	}
	return fmt.Errorf("it does not give back the model the plan was applied to: %s", misfit(inv.Steps, m, parent))
}

// proveInHand is proveInverse at apply time, on the model in hand: m is the model the apply made
// and after its bytes. Rebased on after, m is the model Load(after) would give (archixml.Rebase
// checks that after reads back as m's tree), so the proof undoes the steps on m itself, where a
// revert would undo them on the committed model, and then undoes its undo; what it proves is what
// proveInverse proves, without parsing and indexing the model again. When m cannot be rebased
// (an archive, a duplicate id), it is proveInverse. kept reports whether m is left the model the
// apply made (its bytes after, as the next apply may take it); when not, the caller drops it. It
// compares m with after when called, and only reads m: the apply calls it while its commit is
// written (a model's size of comparison, 50 ms at 100,000 elements).
func proveInHand(raw []byte, inv *plans.Inverse, m *archixml.Model, before, after []byte) (kept func() bool, err error) {
	if !m.Rebase(after) {
		return func() bool { return true }, proveInverse(raw, inv, before, after)
	}
	restored, err := proveInPlace(raw, inv, m, before)
	if !restored {
		return func() bool { return false }, err
	}
	return func() bool { return m.SavesAs(after) }, err
}

// proveInPlace is proveUndo on m, the model Load gives for the apply's bytes, left as it was: the
// steps are undone on it and that undo undone. restored is false when m could not be put back
// (the caller drops it).
func proveInPlace(raw []byte, inv *plans.Inverse, m *archixml.Model, before []byte) (restored bool, err error) {
	m.Record()
	err = proveUndo(raw, inv, m, before)
	undone := m.Recorded()
	return m.Undo(undone) == nil, err
}

// misfit names the first step whose object differs between what the steps made and the model
// they should have made.
func misfit(steps []archixml.Step, got, want *archixml.Model) string {
	for i, s := range steps {
		a, okA := objectXML(got, s.ID)
		b, okB := objectXML(want, s.ID)
		if s.ID == "" || okA != okB || a != b {
			what := fmt.Sprintf("%q", s.ID)
			if o, ok := want.Object(s.ID); ok {
				what = fmt.Sprintf("%s %q (%s)", o.Class(), o.Name(), s.ID)
			}
			if s.ID == "" {
				what = "the model"
			}
			if s.Key != "" {
				return fmt.Sprintf("step %d (%s %s on %s) leaves it otherwise than before the apply", i, s.Op, s.Key, what)
			}
			return fmt.Sprintf("step %d (%s on %s) leaves it otherwise than before the apply", i, s.Op, what)
		}
	}
	return "a step is missing (every object the steps name is as before the apply, the model is not)"
}

// proveArchived proves an archived inverse against the apply commit's model and its parent's.
// inHand, when not nil, is the model Load gives for the apply commit's model (the ledger's model
// at HEAD, when HEAD is that commit's model): the proof runs on it, which is left as it was, instead
// of reading and parsing that model again; restored is false when it could not be (the caller
// drops it).
func proveArchived(ws *store.Workspace, apply store.CommitInfo, a *Archived, inHand *archixml.Model) (restored bool, err error) {
	bad := func(err error) error {
		return fmt.Errorf("%w: the inverse of %s archived in %s: %v", ErrBadInverse, a.ID, short(apply.Hash), err)
	}
	before, ok, err := ws.ModelAt(apply.Parent)
	if err != nil || !ok {
		return true, fmt.Errorf("the model at %s: %v", short(apply.Parent), err)
	}
	if inHand != nil {
		restored, err := proveInPlace(a.Plan, a.Inverse, inHand, before)
		if err != nil {
			err = bad(err)
		}
		return restored, err
	}
	after, ok, err := ws.ModelAt(apply.Hash)
	if err != nil || !ok {
		return true, fmt.Errorf("the model at %s: %v", short(apply.Hash), err)
	}
	if err := proveInverse(a.Plan, a.Inverse, before, after); err != nil {
		return true, bad(err)
	}
	return true, nil
}

// inverseJSON is an inverse as archived.
func inverseJSON(inv *plans.Inverse) []byte {
	js, _ := json.MarshalIndent(inv, "", " ")
	return append(js, '\n')
}

// archiveFiles are what an apply commits beside the model: the plan, the preview the person
// approved (and its pictures), the report (verdict applied), the inverse.
func archiveFiles(id string, raw, preview, report []byte, pictures map[string][]byte, invJSON []byte) map[string][]byte {
	files := map[string][]byte{
		archivePath(id, archivePlan):    raw,
		archivePath(id, archivePreview): preview,
		archivePath(id, archiveReport):  report,
		archivePath(id, archiveInverse): invJSON,
	}
	for name, data := range pictures {
		files[archivePath(id, name)] = data
	}
	return files
}
