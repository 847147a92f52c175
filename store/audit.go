package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The audit: one git commit per event of a plan's life (received, previewed, answered, approved,
// rejected, withdrawn, applied, reverted) on refs/archiplan/audit, outside the branch and the
// model's tree, so that the team's remote carries it and `git log refs/archiplan/audit` reads it.
// Each commit's tree holds the event's record as event.json; histories from two clones are joined
// by a merge commit, never rewritten.
const (
	AuditRef  = "refs/archiplan/audit"
	auditFile = "event.json"
	// the remote's refs/archiplan/* as last fetched, under refs/archiplan/remotes/<remote>/ (Fetch
	// brings them with the branch)
	auditRemoteRefs = "refs/archiplan/remotes/"
)

func auditRemoteRef(remote string) plumbing.ReferenceName {
	return plumbing.ReferenceName(auditRemoteRefs + remote + "/audit")
}

// AppendAudit adds one record to the audit, as its own commit on top of the audit ref (moved by
// compare-and-swap; retried when another process appended at the same moment).
func (w *Workspace) AppendAudit(record []byte, when time.Time) error {
	return w.AppendAudits(AuditEntry{Record: record, When: when})
}

// AuditEntry is a record to append to the audit and the time of its commit.
type AuditEntry struct {
	Record []byte
	When   time.Time
}

// AppendAudits adds records to the audit, each its own commit, one on top of the other, in their
// order: the ref moves once for them all (an approval's and what came of it are one move, not two
// locks of the ref taken one after the other).
func (w *Workspace) AppendAudits(entries ...AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	var err error
	for try := 0; try < 10; try++ {
		old := ""
		if ref, rerr := w.git().Storer.Reference(AuditRef); rerr == nil {
			old = ref.Hash().String()
		}
		h := old
		for _, e := range entries {
			var parents []plumbing.Hash
			if h != "" {
				parents = []plumbing.Hash{plumbing.NewHash(h)}
			}
			if h, err = w.auditCommit(e.Record, e.When, parents); err != nil {
				return err
			}
		}
		if err = w.moveRef(AuditRef, old, h); err == nil || !errors.Is(err, ErrHeadMoved) {
			return err
		}
	}
	return fmt.Errorf("append to the audit: %w", err)
}

func (w *Workspace) auditCommit(record []byte, when time.Time, parents []plumbing.Hash) (string, error) {
	var tree plumbing.Hash
	var err error
	if record != nil {
		blob, err := w.writeBlob(record)
		if err != nil {
			return "", err
		}
		tree, err = w.writeTree([]object.TreeEntry{{Name: auditFile, Mode: filemode.Regular, Hash: blob}})
		if err != nil {
			return "", err
		}
	} else if tree, err = w.writeTree(nil); err != nil {
		return "", err
	}
	sig := object.Signature{Name: "archiplan", Email: "archiplan@localhost", When: when}
	msg := "archiplan audit\n"
	if record == nil {
		msg = "archiplan audit: join two histories\n"
	}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	obj := w.git().Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return "", fmt.Errorf("encode audit commit: %w", err)
	}
	h, err := w.setObject(obj)
	if err != nil {
		return "", fmt.Errorf("write audit commit: %w", err)
	}
	return h.String(), nil
}

// MaxAuditRecord bounds one record of the audit: anyone who can push to the team's remote can
// write one, and reading it back (log --all) costs what it holds. A record over the bound is not
// read, only reported with its size; archiplan writes none that large.
const MaxAuditRecord = 2 << 20

// AuditRecord is one record of the audit as read back: the commit that holds it and its bytes
// (nil when it is over MaxAuditRecord: Size says how large it is).
type AuditRecord struct {
	Commit string
	Data   []byte
	Size   int64
}

// AuditRecords reads every record of the audit (ours, and the remote's as last fetched), oldest
// first by the time of its commit; none costs more than MaxAuditRecord to read.
func (w *Workspace) AuditRecords() ([]AuditRecord, error) {
	var out []AuditRecord
	err := w.reloading(func() error {
		var err error
		out, err = w.auditRecords()
		return err
	})
	return out, err
}

func (w *Workspace) auditRecords() ([]AuditRecord, error) {
	var starts []plumbing.Hash
	refs, err := w.git().Storer.IterReferences()
	if err != nil {
		return nil, err
	}
	refs.ForEach(func(r *plumbing.Reference) error {
		if n := r.Name().String(); n == AuditRef || strings.HasPrefix(n, auditRemoteRefs) && strings.HasSuffix(n, "/audit") {
			starts = append(starts, r.Hash())
		}
		return nil
	})
	type rec struct {
		when time.Time
		AuditRecord
	}
	var out []rec
	seen := map[plumbing.Hash]bool{}
	stack := starts
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := w.git().CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read the audit at %s: %w", short(h.String()), err)
		}
		stack = append(stack, c.ParentHashes...)
		r, ok, err := w.auditRecord(c)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, rec{c.Author.When, r})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].when.Equal(out[j].when) {
			return out[i].when.Before(out[j].when)
		}
		return out[i].Commit < out[j].Commit
	})
	data := make([]AuditRecord, len(out))
	for i, r := range out {
		data[i] = r.AuditRecord
	}
	return data, nil
}

// auditRecord reads the record an audit commit holds, its size asked of the object database
// before a byte of it is inflated; false for a join (no record).
func (w *Workspace) auditRecord(c *object.Commit) (AuditRecord, bool, error) {
	r := AuditRecord{Commit: c.Hash.String()}
	tree, err := c.Tree()
	if err != nil {
		return r, false, err
	}
	e, err := tree.FindEntry(auditFile)
	if err != nil || !e.Mode.IsFile() {
		return r, false, nil // a join
	}
	sized, ok := w.git().Storer.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	})
	if !ok {
		return r, false, errors.New("the object database cannot tell an object's size")
	}
	if r.Size, err = sized.EncodedObjectSize(e.Hash); err != nil {
		return r, false, err
	}
	if r.Size > MaxAuditRecord {
		return r, true, nil
	}
	blob, err := w.git().BlobObject(e.Hash)
	if err != nil {
		return r, false, err
	}
	rd, err := blob.Reader()
	if err != nil {
		return r, false, err
	}
	defer rd.Close()
	r.Data, err = io.ReadAll(io.LimitReader(rd, MaxAuditRecord+1))
	if err == nil && len(r.Data) > MaxAuditRecord {
		r.Data = nil
	}
	return r, true, err
}

// SyncAudit joins the remote's audit, as the last Fetch brought it, to ours (a merge commit where
// both have events the other lacks) and pushes ours when the remote lacks some of it; never
// forcing: a race lost is fetched, joined and tried again a few times, then left for the next sync.
func (w *Workspace) SyncAudit(ctx context.Context, remote string) error {
	var last error
	for try := 0; try < 3; try++ {
		if try > 0 {
			err := w.call(ctx, "fetch", remote, func(ctx context.Context, c *remoteCall) error {
				return w.git().FetchContext(ctx, &git.FetchOptions{RemoteName: remote, RemoteURL: c.url, Auth: c.auth,
					CABundle: c.caBundle, InsecureSkipTLS: c.insecure, ProxyOptions: c.proxy,
					RefSpecs: []config.RefSpec{config.RefSpec("+refs/archiplan/*:" + auditRemoteRefs + remote + "/*")}})
			})
			if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
				return redacted{fmt.Errorf("fetch the audit from %s: %w", remote, err)}
			}
		}
		if err := w.reloading(func() error { return w.joinAudit(remote) }); err != nil {
			return err
		}
		ours, err := w.git().Storer.Reference(AuditRef)
		if err != nil {
			return nil // nothing recorded here yet
		}
		if theirs, err := w.git().Storer.Reference(auditRemoteRef(remote)); err == nil && theirs.Hash() == ours.Hash() {
			return nil // the remote has all of it
		}
		err = w.call(ctx, "push", remote, func(ctx context.Context, c *remoteCall) error {
			return w.git().PushContext(ctx, &git.PushOptions{RemoteName: remote, RemoteURL: c.url, Auth: c.auth,
				CABundle: c.caBundle, InsecureSkipTLS: c.insecure, ProxyOptions: c.proxy,
				RefSpecs: []config.RefSpec{config.RefSpec(AuditRef + ":" + AuditRef)}})
		})
		if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
			// what the remote now holds, without another fetch
			return w.git().Storer.SetReference(plumbing.NewHashReference(auditRemoteRef(remote), ours.Hash()))
		}
		last = err
	}
	return redacted{fmt.Errorf("push the audit to %s: %w", remote, last)}
}

// joinAudit makes our audit hold the remote's: fast-forward when ours is behind, a merge commit
// when both moved.
func (w *Workspace) joinAudit(remote string) error {
	theirs, err := w.git().Storer.Reference(auditRemoteRef(remote))
	if err != nil {
		return nil
	}
	old := ""
	if ours, err := w.git().Storer.Reference(AuditRef); err == nil {
		old = ours.Hash().String()
	}
	t := theirs.Hash().String()
	switch {
	case old == "":
		return w.moveRef(AuditRef, "", t)
	case old == t:
		return nil
	}
	oc, err := w.git().CommitObject(plumbing.NewHash(old))
	if err != nil {
		return err
	}
	tc, err := w.git().CommitObject(theirs.Hash())
	if err != nil {
		return err
	}
	if in, _ := tc.IsAncestor(oc); in {
		return nil // we have all of theirs
	}
	if in, _ := oc.IsAncestor(tc); in {
		return w.moveRef(AuditRef, old, t)
	}
	h, err := w.auditCommit(nil, time.Now().UTC(), []plumbing.Hash{oc.Hash, tc.Hash})
	if err != nil {
		return err
	}
	return w.moveRef(AuditRef, old, h)
}
