package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

var (
	// ErrPushRejected means the remote moved: the push was not a fast-forward. Nothing was forced.
	ErrPushRejected = errors.New("the remote moved; push rejected")
	// ErrUnreachable means the remote could not be reached; local work goes on and is pushed later.
	ErrUnreachable = errors.New("the remote is unreachable")
	// ErrDiverged means local commits that are not archiplan's sit beside the remote's new ones:
	// archiplan never merges or resets them; a person does.
	ErrDiverged = errors.New("the branch and the remote have diverged")
)

// RemoteState is what status shows of the remote: the last fetch and push, and their errors.
type RemoteState struct {
	LastFetch      time.Time `json:"last_fetch,omitempty"`
	LastFetchError string    `json:"last_fetch_error,omitempty"`
	LastPush       time.Time `json:"last_push,omitempty"`
	LastPushError  string    `json:"last_push_error,omitempty"`
}

func (w *Workspace) remoteStatePath() string { return w.GitPath("archiplan-remote.json") }

// RemoteState reads what was recorded of the remote.
func (w *Workspace) RemoteState() RemoteState {
	var s RemoteState
	if data, err := os.ReadFile(w.remoteStatePath()); err == nil {
		_ = json.Unmarshal(data, &s)
	}
	return s
}

// credentials in a URL (https://user:token@host) never reach a log, a report or status
var urlCredentials = regexp.MustCompile(`(://[^/@\s]*?):[^@/\s]+@`)

// Redact removes credentials from a URL or an error message holding one.
func Redact(s string) string { return urlCredentials.ReplaceAllString(s, "$1:***@") }

// redacted is an error whose message has no credentials.
type redacted struct{ err error }

func (r redacted) Error() string { return Redact(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

func (w *Workspace) recordRemote(update func(*RemoteState)) {
	s := w.RemoteState()
	update(&s)
	s.LastFetchError, s.LastPushError = Redact(s.LastFetchError), Redact(s.LastPushError)
	data, _ := json.Marshal(s)
	_ = WriteFileAtomic(w.remoteStatePath(), data, 0o644)
}

// auth is how git users expect to authenticate: the SSH agent (or ARCHIPLAN_SSH_KEY, a key file)
// for ssh remotes, a token from ARCHIPLAN_GIT_TOKEN (user ARCHIPLAN_GIT_USER, default "git") for
// https. Nothing of it is ever logged or written.
func (w *Workspace) auth(remote string) (transport.AuthMethod, error) {
	r, err := w.git().Remote(remote)
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", remote, err)
	}
	url := r.Config().URLs[0]
	switch {
	case strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://"):
		if token := os.Getenv("ARCHIPLAN_GIT_TOKEN"); token != "" {
			user := os.Getenv("ARCHIPLAN_GIT_USER")
			if user == "" {
				user = "git"
			}
			return &githttp.BasicAuth{Username: user, Password: token}, nil
		}
		return nil, nil
	case strings.HasPrefix(url, "ssh://") || strings.Contains(url, "@") && strings.Contains(url, ":") && !strings.Contains(url, "://"):
		user := "git"
		if ep, err := transport.NewEndpoint(url); err == nil && ep.User != "" {
			user = ep.User
		}
		if key := os.Getenv("ARCHIPLAN_SSH_KEY"); key != "" {
			return gitssh.NewPublicKeysFromFile(user, key, os.Getenv("ARCHIPLAN_SSH_KEY_PASSPHRASE"))
		}
		return gitssh.NewSSHAgentAuth(user)
	}
	return nil, nil // a path or file:// remote
}

// unreachable tells a network failure from a refusal.
func unreachable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	s := err.Error()
	for _, m := range []string{"connection refused", "no such host", "does not appear to be a git repository",
		"repository not found", "no such file or directory", "timeout", "EOF", "unexpected client error"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return errors.Is(err, transport.ErrRepositoryNotFound)
}

// Fetch fetches the remote's branches into its remote-tracking refs.
func (w *Workspace) Fetch(ctx context.Context, remote string) error {
	auth, err := w.auth(remote)
	if err != nil {
		return err
	}
	err = w.git().FetchContext(ctx, &git.FetchOptions{RemoteName: remote, Auth: auth,
		RefSpecs: []config.RefSpec{config.RefSpec("+refs/heads/*:refs/remotes/" + remote + "/*")}})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		err = nil
	}
	w.recordRemote(func(s *RemoteState) {
		if err == nil {
			s.LastFetch, s.LastFetchError = time.Now().UTC(), ""
		} else {
			s.LastFetchError = err.Error()
		}
	})
	if err != nil {
		if unreachable(err) {
			return redacted{fmt.Errorf("fetch %s: %v: %w", remote, err, ErrUnreachable)}
		}
		return redacted{fmt.Errorf("fetch %s: %w", remote, err)}
	}
	return nil
}

// RemoteHead is the commit the remote's copy of the branch was at when last fetched ("" if none).
func (w *Workspace) RemoteHead(remote string) (string, error) {
	branch, err := w.branch()
	if err != nil {
		return "", err
	}
	ref, err := w.git().Reference(plumbing.NewRemoteReferenceName(remote, branch.Short()), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return ref.Hash().String(), nil
}

// AheadBehind counts the commits the branch has that the remote has not, and the other way.
func (w *Workspace) AheadBehind(remote string) (ahead, behind int, err error) {
	head, err := w.Head()
	if err != nil {
		return 0, 0, err
	}
	rh, err := w.RemoteHead(remote)
	if err != nil || rh == "" || head == "" {
		return 0, 0, err
	}
	base, err := w.MergeBase(head, rh)
	if err != nil {
		return 0, 0, err
	}
	if ahead, err = w.countFirstParent(head, base); err != nil {
		return 0, 0, err
	}
	behind, err = w.countFirstParent(rh, base)
	return ahead, behind, err
}

// MergeBase is the newest commit both histories hold ("" when none).
func (w *Workspace) MergeBase(a, b string) (string, error) {
	ca, err := w.git().CommitObject(plumbing.NewHash(a))
	if err != nil {
		return "", err
	}
	cb, err := w.git().CommitObject(plumbing.NewHash(b))
	if err != nil {
		return "", err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil || len(bases) == 0 {
		return "", err
	}
	return bases[0].Hash.String(), nil
}

func (w *Workspace) countFirstParent(from, to string) (int, error) {
	n := 0
	for h := from; h != to && h != ""; n++ {
		c, err := w.git().CommitObject(plumbing.NewHash(h))
		if err != nil {
			return 0, err
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0].String()
	}
	return n, nil
}

// CommitsBetween lists the first-parent commits after base up to head, oldest first.
func (w *Workspace) CommitsBetween(base, head string) ([]CommitInfo, error) {
	hist, err := w.historyFrom(head, func(c CommitInfo) bool { return c.Parent == base || c.Hash == base })
	if err != nil {
		return nil, err
	}
	if len(hist) > 0 && hist[len(hist)-1].Hash == base {
		hist = hist[:len(hist)-1]
	}
	for i, j := 0, len(hist)-1; i < j; i, j = i+1, j-1 {
		hist[i], hist[j] = hist[j], hist[i]
	}
	return hist, nil
}

// Push pushes the branch to the remote, never forcing: a remote that moved gives
// ErrPushRejected, one that cannot be reached ErrUnreachable.
func (w *Workspace) Push(ctx context.Context, remote string) error {
	branch, err := w.branch()
	if err != nil {
		return err
	}
	auth, err := w.auth(remote)
	if err != nil {
		return err
	}
	spec := config.RefSpec(branch.String() + ":" + branch.String())
	err = w.git().PushContext(ctx, &git.PushOptions{RemoteName: remote, RefSpecs: []config.RefSpec{spec}, Auth: auth})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		err = nil
	}
	w.recordRemote(func(s *RemoteState) {
		if err == nil {
			s.LastPush, s.LastPushError = time.Now().UTC(), ""
		} else {
			s.LastPushError = err.Error()
		}
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, git.ErrNonFastForwardUpdate) || strings.Contains(err.Error(), "non-fast-forward") ||
		strings.Contains(err.Error(), "fetch first") || strings.Contains(err.Error(), "rejected") ||
		// another push holds the remote's ref at this moment: the same as losing the race
		strings.Contains(err.Error(), "failed to update ref") || strings.Contains(err.Error(), "cannot lock ref"):
		return fmt.Errorf("push %s: %w", remote, ErrPushRejected)
	case unreachable(err):
		return redacted{fmt.Errorf("push %s: %v: %w", remote, err, ErrUnreachable)}
	}
	return redacted{fmt.Errorf("push %s: %w", remote, err)}
}

// MoveBranch moves the branch from one commit to another (compare-and-swap on from) and brings
// the work tree to it: the files that differ are written or removed, and the index rewritten.
// It refuses when the model file has uncommitted changes. Hold the lock.
func (w *Workspace) MoveBranch(from, to string) error {
	if from == to {
		return nil
	}
	if dirty, err := w.Dirty(w.blobAt(from)); err != nil {
		return err
	} else if dirty {
		return fmt.Errorf("move %s to %s: %w", short(from), short(to), ErrDirty)
	}
	files, err := w.diffFiles(from, to)
	if err != nil {
		return err
	}
	branch, err := w.branch()
	if err != nil {
		return err
	}
	if err := w.beginInflight(from, to, files); err != nil {
		return err
	}
	if err := w.moveRef(branch, from, to); err != nil {
		w.endInflight()
		return err
	}
	if err := w.Checkout(to, files); err != nil {
		if errors.Is(err, ErrIndexStale) {
			w.endInflight() // the work tree is done; the marker has the index repaired
		}
		return err
	}
	w.endInflight()
	return nil
}

func (w *Workspace) blobAt(commit string) string {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return ""
	}
	t, err := c.Tree()
	if err != nil {
		return ""
	}
	e, err := t.FindEntry(w.Model)
	if err != nil {
		return ""
	}
	return e.Hash.String()
}

// diffFiles lists the files that differ between two commits: content at to, or nil where gone.
func (w *Workspace) diffFiles(from, to string) (map[string][]byte, error) {
	tree := func(h string) (*object.Tree, error) {
		c, err := w.git().CommitObject(plumbing.NewHash(h))
		if err != nil {
			return nil, err
		}
		return c.Tree()
	}
	a, err := tree(from)
	if err != nil {
		return nil, err
	}
	b, err := tree(to)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, ch := range changes {
		if ch.To.Name == "" {
			files[ch.From.Name] = nil
			continue
		}
		f, err := b.TreeEntryFile(&ch.To.TreeEntry)
		if err != nil {
			return nil, err
		}
		s, err := f.Contents()
		if err != nil {
			return nil, err
		}
		files[ch.To.Name] = []byte(s)
		if ch.From.Name != "" && ch.From.Name != ch.To.Name {
			files[ch.From.Name] = nil
		}
	}
	return files, nil
}
