package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/archiplan/archiplan/internal/lazyre"
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
	// Remote is the remote all of this is of ("" in a record written before it was kept)
	Remote         string    `json:"remote,omitempty"`
	LastFetch      time.Time `json:"last_fetch,omitempty"`
	LastFetchError string    `json:"last_fetch_error,omitempty"`
	LastFetchCode  string    `json:"last_fetch_code,omitempty"`
	LastPush       time.Time `json:"last_push,omitempty"`
	LastPushError  string    `json:"last_push_error,omitempty"`
	LastPushCode   string    `json:"last_push_code,omitempty"`
	// Pushing is the commit a push was started with, and when, until it is known to have landed
	// or failed: a process killed after the remote took the push but before it heard so finds it
	// on the remote at the next fetch, and records the push then.
	Pushing   string    `json:"pushing,omitempty"`
	PushingAt time.Time `json:"pushing_at,omitempty"`
	// RetryAfter: after a credential or verification failure (Failures in a row) the remote is not
	// tried again before then, except by `archiplan sync`
	RetryAfter time.Time `json:"retry_after,omitempty"`
	Failures   int       `json:"failures,omitempty"`
	// Refused is why the remote's head (RefusedCommit) was not brought into the work tree; the
	// workspace serves at its own head meanwhile
	Refused       string `json:"refused,omitempty"`
	RefusedCommit string `json:"refused_commit,omitempty"`
	// PolicyNote says how a pulled commit loosened the configuration's policy, and which
	PolicyNote string `json:"policy_note,omitempty"`
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
var urlCredentials = lazyre.New(`(://[^/@\s]*?):[^@/\s]+@`)

// Redact removes credentials from a URL or an error message holding one.
func Redact(s string) string { return urlCredentials.ReplaceAllString(s, "$1:***@") }

// redacted is an error whose message has no credentials.
type redacted struct{ err error }

func (r redacted) Error() string { return Redact(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

var remoteStateMu sync.Mutex

// RemoteStateOf is what was recorded of the named remote: nothing when what was recorded is of
// another (the configuration names another remote now).
func (w *Workspace) RemoteStateOf(remote string) RemoteState {
	s := w.RemoteState()
	if s.Remote != "" && s.Remote != remote {
		return RemoteState{Remote: remote}
	}
	return s
}

// useRemote makes the record one of remote: what was recorded of another remote (its times,
// errors and backoff) is dropped, never shown or waited out as this one's.
func (w *Workspace) useRemote(remote string) {
	if s := w.RemoteState(); s.Remote == remote {
		return
	}
	w.recordRemote(func(s *RemoteState) {
		if s.Remote != "" && s.Remote != remote {
			*s = RemoteState{}
		}
		s.Remote = remote
	})
}

func (w *Workspace) recordRemote(update func(*RemoteState)) {
	remoteStateMu.Lock()
	defer remoteStateMu.Unlock()
	s := w.RemoteState()
	update(&s)
	s.LastFetchError, s.LastPushError = Redact(s.LastFetchError), Redact(s.LastPushError)
	data, _ := json.Marshal(s)
	_ = w.writeFile(w.remoteStatePath(), data, 0o644)
}

// NoteRefused records that the remote's head was not brought into the work tree, and why ("" to
// clear it once the head moved past it).
func (w *Workspace) NoteRefused(commit, why string) {
	if st := w.RemoteState(); st.RefusedCommit == commit && st.Refused == why {
		return // as recorded: no write on every tick
	}
	w.recordRemote(func(s *RemoteState) { s.RefusedCommit, s.Refused = commit, why })
}

// NotePolicy records how a pulled commit loosened the policy ("" clears it).
func (w *Workspace) NotePolicy(note string) {
	w.recordRemote(func(s *RemoteState) { s.PolicyNote = note })
}

// TryNow lifts the backoff after a credential or verification failure: a person asked (archiplan
// sync), or changed the set-up.
func (w *Workspace) TryNow() {
	w.recordRemote(func(s *RemoteState) { s.RetryAfter = time.Time{} })
}

// isSSH says whether a remote URL is an ssh one (ssh://, or git's scp-like user@host:path).
func isSSH(url string) bool {
	return strings.HasPrefix(url, "ssh://") || strings.HasPrefix(url, "git+ssh://") ||
		!strings.Contains(url, "://") && strings.Contains(url, ":") && !strings.HasPrefix(url, "/") &&
			(strings.Contains(url, "@") || !strings.Contains(strings.SplitN(url, ":", 2)[0], "/"))
}

// remoteCall is how one fetch or push reaches the remote: the URL go-git dials, the credentials and
// the TLS and proxy options, made from the user's git and ssh set-up.
type remoteCall struct {
	url      string
	auth     transport.AuthMethod
	caBundle []byte
	insecure bool
	proxy    transport.ProxyOptions
	ssh      *sshTarget
	https    bool
	local    bool // a path or file:// remote: git-upload-pack or git-receive-pack run here
	close    func()
}

// dialOpts prepares a call to the remote: ssh remotes as the user's OpenSSH set-up resolves them
// (~/.ssh/config, GIT_SSH_COMMAND's options, the agent, ARCHIPLAN_SSH_KEY, the default keys,
// known_hosts); https remotes with git's CA settings and a credential from ARCHIPLAN_GIT_TOKEN,
// the URL, or git's credential helpers. Nothing of it is ever logged or written.
func (w *Workspace) dialOpts(remote, proxyURL string) (*remoteCall, error) {
	r, err := w.git().Remote(remote)
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", remote, err)
	}
	url := r.Config().URLs[0]
	c := &remoteCall{url: url, close: func() {}}
	switch {
	case strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://"):
		c.https = true
		hs, err := w.httpSetupFor(url)
		if err != nil {
			return nil, fmt.Errorf("http.sslCAInfo: %w", err)
		}
		c.caBundle, c.insecure = hs.caBundle, hs.insecure
		if token := os.Getenv("ARCHIPLAN_GIT_TOKEN"); token != "" {
			user := os.Getenv("ARCHIPLAN_GIT_USER")
			if user == "" {
				user = "git"
			}
			c.auth = &githttp.BasicAuth{Username: user, Password: token}
		} else if ep, err := transport.NewEndpoint(url); err == nil && ep.Password == "" {
			if a := w.credentialFill(url); a != nil {
				c.auth = a
			}
		}
	case isSSH(url):
		t, err := resolveSSH(url)
		if err != nil {
			return nil, err
		}
		a := newSSHAuth(t)
		c.ssh, c.auth, c.url, c.close = t, a, t.url(), a.close
		c.proxy = transport.ProxyOptions{URL: proxyURL}
	}
	c.local = true // a path or file:// remote
	return c, nil
}

// unreachable tells a network failure from a refusal.
func unreachable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	s := err.Error()
	for _, m := range []string{"connection refused", "no such host", "does not appear to be a git repository",
		"repository not found", "no such file or directory", "timeout", "EOF", "unexpected client error",
		"connection reset", "broken pipe", "use of closed network connection"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return errors.Is(err, transport.ErrRepositoryNotFound)
}

// call runs one fetch or push against the remote: within the workspace's timeouts, after the
// backoff of an earlier credential or verification failure, its failure classified.
func (w *Workspace) call(ctx context.Context, op, remote string, fn func(ctx context.Context, c *remoteCall) error) error {
	if st := w.RemoteState(); time.Now().Before(st.RetryAfter) && !w.setupChanged() {
		last := st.LastFetchError
		if st.LastPushCode != "" && backsOff(st.LastPushCode) {
			last = st.LastPushError
		}
		return &RemoteError{Op: op, Remote: remote, Code: CodeBackoff,
			Reason: fmt.Sprintf("not tried until %s after %d failures (%s)", st.RetryAfter.Local().Format("15:04:05"), st.Failures, last),
			Fix:    "fix the cause, then archiplan sync tries at once"}
	}
	opts := w.net.orDefault()
	var rc *remoteCall
	var sess *netSession
	err := withNet(ctx, opts, func(ctx context.Context, s *netSession, proxyURL string) error {
		sess = s
		var err error
		if rc, err = w.dialOpts(remote, proxyURL); err != nil {
			return err
		}
		defer rc.close()
		if rc.local {
			// a local remote's git-receive-pack (or upload-pack) leaves a child of its own holding
			// the pipes; go-git, told to stop one mid-push, kills the parent and waits on the pipes
			// forever (a daemon stopped during a push to a shared folder never stopped). On the
			// local disk there is no hung server to give up on: the call runs to its end.
			ctx = context.WithoutCancel(ctx)
		}
		return fn(ctx, rc)
	})
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		w.recordRemote(func(s *RemoteState) { s.Failures, s.RetryAfter = 0, time.Time{} })
		return err
	}
	if errors.Is(err, git.ErrNonFastForwardUpdate) {
		return err
	}
	t := &sshTarget{}
	if rc != nil && rc.ssh != nil {
		t = rc.ssh
	}
	e := classify(op, remote, err, t, sess, opts)
	if e.Code == CodeAuth && rc != nil && rc.https {
		forgetCredential(rc.url)
	}
	if backsOff(e.Code) {
		setup := credentialSetup(w)
		w.failedSetup.Store(&setup)
		w.recordRemote(func(s *RemoteState) {
			s.Failures++
			s.RetryAfter = time.Now().Add(backoffAfter(s.Failures))
		})
	}
	return e
}

// setupChanged says whether the credential set-up changed since the failure this process backs
// off from: a key added or named, a credential stored, the remote's URL changed. A failure this
// process did not see (recorded by another) is not lifted here: a restart of the daemon lifts it
// (TryNow), as archiplan sync does.
func (w *Workspace) setupChanged() bool {
	failed := w.failedSetup.Load()
	return failed != nil && *failed != credentialSetup(w)
}

// credentialSetup is a fingerprint of what a fetch or push authenticates and verifies with: the
// variables archiplan, git and ssh read, and the size and time of the files they read (the
// repository's git config, the user's, git's credential stores, ~/.ssh, ARCHIPLAN_SSH_KEY's file).
// It stays in memory: nothing of a secret is written anywhere.
func credentialSetup(w *Workspace) string {
	h := sha256.New()
	for _, k := range []string{"HOME", "ARCHIPLAN_SSH_KEY", "ARCHIPLAN_SSH_KEY_PASSPHRASE", "ARCHIPLAN_GIT_TOKEN", "SSH_AUTH_SOCK",
		"GIT_SSH_COMMAND", "GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY", "GIT_ASKPASS", "GIT_CONFIG_GLOBAL", "HTTPS_PROXY", "https_proxy"} {
		fmt.Fprintf(h, "%s=%s\n", k, os.Getenv(k))
	}
	home, _ := os.UserHomeDir()
	files := []string{w.GitPath("config"), filepath.Join(home, ".gitconfig"), filepath.Join(home, ".git-credentials"),
		filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".config", "git", "credentials")}
	if k := os.Getenv("ARCHIPLAN_SSH_KEY"); k != "" {
		files = append(files, expandHome(k))
	}
	if entries, err := os.ReadDir(filepath.Join(home, ".ssh")); err == nil {
		for _, e := range entries {
			files = append(files, filepath.Join(home, ".ssh", e.Name()))
		}
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", f, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(h, "%s -\n", f)
		}
	}
	return string(h.Sum(nil))
}

// Fetch fetches the remote's branches into its remote-tracking refs. It takes no lock: nothing
// but a fetch writes those refs, and the objects it adds are read by no one until a ref names
// them.
func (w *Workspace) Fetch(ctx context.Context, remote string) error {
	w.useRemote(remote)
	err := w.call(ctx, "fetch", remote, func(ctx context.Context, c *remoteCall) error {
		return w.git().FetchContext(ctx, &git.FetchOptions{RemoteName: remote, RemoteURL: c.url, Auth: c.auth,
			CABundle: c.caBundle, InsecureSkipTLS: c.insecure, ProxyOptions: c.proxy,
			RefSpecs: []config.RefSpec{config.RefSpec("+refs/heads/*:refs/remotes/" + remote + "/*"),
				config.RefSpec("+refs/archiplan/*:" + auditRemoteRefs + remote + "/*")}}) // the audit (audit.go)
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		err = nil
	}
	if errors.Is(err, ErrBackoff) {
		return err // nothing was tried: the recorded failure stands
	}
	landed := false
	if err == nil {
		landed = w.pushLanded(remote)
	}
	w.recordRemote(func(s *RemoteState) {
		if err == nil {
			s.LastFetch, s.LastFetchError, s.LastFetchCode = time.Now().UTC(), "", ""
		} else {
			s.LastFetchError, s.LastFetchCode = err.Error(), codeOf(err)
		}
		if landed && s.Pushing != "" {
			s.LastPush, s.LastPushError, s.LastPushCode, s.Pushing, s.PushingAt = s.PushingAt, "", "", "", time.Time{}
		}
	})
	if err != nil {
		return redacted{err}
	}
	return nil
}

func codeOf(err error) string {
	var e *RemoteError
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeRemoteError
}

// RemoteHead is the commit the remote's copy of the branch was at when last fetched ("" if none).
func (w *Workspace) RemoteHead(remote string) (string, error) {
	branch, err := w.branch()
	if err != nil {
		return "", err
	}
	name := plumbing.NewRemoteReferenceName(remote, branch.Short())
	// go-git's fetch and push write a remote-tracking ref in place (open truncating, then write),
	// and a reader that comes in between finds the file empty, which go-git takes for "no such
	// ref" (or for an older packed one): the branch would look in sync with a remote it has
	// never seen. A ref file that is there is read again until it holds a commit; "" only when
	// there is none.
	path := w.GitPath(filepath.FromSlash(name.String()))
	for try := 0; ; try++ {
		fi, serr := os.Lstat(path)
		if serr == nil && fi.Mode().IsRegular() && fi.Size() == 0 || serr != nil && !errors.Is(serr, fs.ErrNotExist) {
			if try >= refReadTries {
				return "", fmt.Errorf("read %s: %w", name, ErrRefBeingWritten)
			}
			time.Sleep(time.Millisecond)
			continue
		}
		ref, err := w.git().Reference(name, true)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			if _, serr := os.Lstat(path); serr == nil && try < refReadTries {
				continue // written since the look above
			}
			return "", nil
		}
		if err != nil {
			return "", err
		}
		return ref.Hash().String(), nil
	}
}

// ErrRefBeingWritten means a remote-tracking ref's file stayed empty while it was read (a fetch
// or push writes it in place): the caller tries again later, never taking it for no remote.
var ErrRefBeingWritten = errors.New("the remote-tracking ref is being written")

// refReadTries bounds the waits for a remote-tracking ref being written (a millisecond each).
const refReadTries = 2000

// pushLanded says whether the commit of a push whose outcome was never recorded is on the
// remote's branch, as last fetched.
func (w *Workspace) pushLanded(remote string) bool {
	s := w.RemoteState()
	if s.Pushing == "" {
		return false
	}
	rh, err := w.RemoteHead(remote)
	if err != nil || rh == "" {
		return false
	}
	base, err := w.MergeBase(s.Pushing, rh)
	return err == nil && base == s.Pushing
}

// NoteInSync records that the branch holds nothing the remote lacks (as last fetched), so that
// no earlier push failure is shown as if it still mattered. It changes nothing otherwise.
func (w *Workspace) NoteInSync(remote string) {
	w.useRemote(remote)
	if ahead, _, err := w.AheadBehind(remote); err != nil || ahead != 0 {
		return
	}
	landed := w.pushLanded(remote)
	w.recordRemote(func(s *RemoteState) {
		s.LastPushError = ""
		if landed {
			s.LastPush, s.Pushing, s.PushingAt = s.PushingAt, "", time.Time{}
		}
	})
}

// AheadBehind counts the commits the branch has that the remote has not, and the other way,
// every commit counted (the sides of merges too), as git rev-list --count does.
func (w *Workspace) AheadBehind(remote string) (ahead, behind int, err error) {
	head, err := w.Head()
	if err != nil {
		return 0, 0, err
	}
	rh, err := w.RemoteHead(remote)
	if err != nil || rh == "" || head == "" {
		return 0, 0, err
	}
	// one side is usually the other's ancestor: that side has nothing of its own, unwalked
	base, err := w.MergeBase(head, rh)
	if err != nil {
		return 0, 0, err
	}
	var mine, theirs []string
	if base != head { // head is not an ancestor of the remote's: it has commits of its own
		if mine, err = w.only(head, rh); err != nil {
			return 0, 0, err
		}
	}
	if base != rh {
		theirs, err = w.only(rh, head)
	}
	return len(mine), len(theirs), err
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

// Parents are a commit's parents, in order.
func (w *Workspace) Parents(commit string) ([]string, error) {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(commit), err)
	}
	var out []string
	for _, p := range c.ParentHashes {
		out = append(out, p.String())
	}
	return out, nil
}

// CommitsBetween lists the commits head holds that base does not (git rev-list base..head), the
// sides of merges included, oldest first: every commit after its parents.
func (w *Workspace) CommitsBetween(base, head string) ([]CommitInfo, error) {
	hashes, err := w.only(head, base)
	if err != nil {
		return nil, err
	}
	out := make([]CommitInfo, 0, len(hashes))
	for _, h := range hashes {
		info, err := w.Info(h)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// only lists the commits reachable from head and not from base, parents before children. The
// common case, a straight line of single-parent commits from base to head, is read without
// walking base's history.
func (w *Workspace) only(head, base string) ([]string, error) {
	if head == "" || head == base {
		return nil, nil
	}
	var line []string
	for h := head; ; {
		c, err := w.git().CommitObject(plumbing.NewHash(h))
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", short(h), err)
		}
		if len(c.ParentHashes) != 1 {
			break // a merge or the root: the general walk below
		}
		line = append(line, h)
		h = c.ParentHashes[0].String()
		if h == base {
			for i, j := 0, len(line)-1; i < j; i, j = i+1, j-1 {
				line[i], line[j] = line[j], line[i]
			}
			return line, nil
		}
	}
	// every commit base holds
	held := map[plumbing.Hash]bool{}
	if base != "" {
		stack := []plumbing.Hash{plumbing.NewHash(base)}
		for len(stack) > 0 {
			h := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if held[h] {
				continue
			}
			held[h] = true
			c, err := w.git().CommitObject(h)
			if err != nil {
				return nil, fmt.Errorf("read commit %s: %w", short(h.String()), err)
			}
			stack = append(stack, c.ParentHashes...)
		}
	}
	// head's commits base lacks, each after its parents (a depth-first walk, post-order)
	var out []string
	done := map[plumbing.Hash]bool{}
	type frame struct {
		h    plumbing.Hash
		next int
	}
	parents := map[plumbing.Hash][]plumbing.Hash{}
	stack := []frame{{h: plumbing.NewHash(head)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if held[f.h] || done[f.h] && f.next == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		ps, ok := parents[f.h]
		if !ok {
			c, err := w.git().CommitObject(f.h)
			if err != nil {
				return nil, fmt.Errorf("read commit %s: %w", short(f.h.String()), err)
			}
			ps = c.ParentHashes
			parents[f.h] = ps
		}
		if f.next < len(ps) {
			p := ps[f.next]
			f.next++
			if !held[p] && !done[p] {
				stack = append(stack, frame{h: p})
			}
			continue
		}
		if !done[f.h] {
			done[f.h] = true
			out = append(out, f.h.String())
		}
		stack = stack[:len(stack)-1]
	}
	return out, nil
}

// Push pushes the branch to the remote, never forcing: a remote that moved gives
// ErrPushRejected, one that cannot be reached ErrUnreachable. It takes no lock: it sends the
// branch as it finds it, and an apply meanwhile is pushed by the next sync.
func (w *Workspace) Push(ctx context.Context, remote string) error {
	w.useRemote(remote)
	branch, err := w.branch()
	if err != nil {
		return err
	}
	spec := config.RefSpec(branch.String() + ":" + branch.String())
	if st := w.RemoteState(); !time.Now().Before(st.RetryAfter) || w.setupChanged() {
		if head, herr := w.Head(); herr == nil {
			w.recordRemote(func(s *RemoteState) { s.Pushing, s.PushingAt = head, time.Now().UTC() })
		}
	}
	err = w.call(ctx, "push", remote, func(ctx context.Context, c *remoteCall) error {
		return w.git().PushContext(ctx, &git.PushOptions{RemoteName: remote, RemoteURL: c.url, RefSpecs: []config.RefSpec{spec},
			Auth: c.auth, CABundle: c.caBundle, InsecureSkipTLS: c.insecure, ProxyOptions: c.proxy})
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		err = nil
	}
	if errors.Is(err, ErrBackoff) {
		return err
	}
	var msg string
	if err != nil {
		msg = err.Error()
		if re := (*RemoteError)(nil); errors.As(err, &re) && re.Err != nil {
			msg = re.Err.Error() // what the server said, whole
		}
	}
	rejected := err != nil && (errors.Is(err, git.ErrNonFastForwardUpdate) || strings.Contains(msg, "non-fast-forward") ||
		strings.Contains(msg, "fetch first") || strings.Contains(msg, "rejected") ||
		// another push holds the remote's ref at this moment: the same as losing the race
		strings.Contains(msg, "failed to update ref") || strings.Contains(msg, "cannot lock ref"))
	w.recordRemote(func(s *RemoteState) {
		switch {
		case err == nil:
			s.LastPush, s.LastPushError, s.LastPushCode = time.Now().UTC(), "", ""
		case rejected:
			s.LastPushError, s.LastPushCode = "the remote moved; push rejected (made again on top of it)", CodeRemoteError
		default:
			s.LastPushError, s.LastPushCode = err.Error(), codeOf(err)
		}
		s.Pushing, s.PushingAt = "", time.Time{}
	})
	switch {
	case err == nil:
		return nil
	case rejected:
		return fmt.Errorf("push %s: %w", remote, ErrPushRejected)
	}
	return redacted{err}
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

// ChangedFiles lists the files that differ between two commits: content at to, or nil where gone.
func (w *Workspace) ChangedFiles(from, to string) (map[string][]byte, error) {
	return w.diffFiles(from, to)
}
