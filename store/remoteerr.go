package store

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/skeema/knownhosts"
)

// Codes of a fetch's or push's failure, as status shows them. Stable, never reused.
const (
	CodeUnreachable   = "REMOTE_UNREACHABLE"     // no connection, no answer in time, a server error: retried on the timer
	CodeAuth          = "REMOTE_AUTH"            // the server refused the credentials, or there were none to offer
	CodeHostKey       = "REMOTE_HOST_KEY"        // the ssh host's key is unknown, or changed
	CodeCertificate   = "REMOTE_CERTIFICATE"     // the https server's certificate is not trusted
	CodeCancelled     = "REMOTE_CANCELLED"       // the process was stopping
	CodeRemoteError   = "REMOTE_ERROR"           // another refusal; the reason says which
	CodeCommitRefused = "REMOTE_COMMIT_REFUSED"  // a pulled commit archiplan will not bring into the work tree
	CodeBackoff       = "REMOTE_BACKING_OFF"     // not tried: a credential or verification failure is waited out
	CodePolicyChanged = "REMOTE_POLICY_WEAKENED" // a pulled commit loosened the configuration's policy
)

// Codes says what each code means and the fix status shows, for the reference
// (docs/reference/codes.md).
var Codes = []struct{ Code, Meaning, Fix string }{
	{CodeUnreachable, "no connection, no answer within the timeouts, a server error (5xx), no such repository", "retried on the timer"},
	{CodeAuth, "HTTP 401/403, every ssh key refused, no key, a key's passphrase missing or wrong", "the credential helper, `ssh-add`, `IdentityFile`"},
	{CodeHostKey, "the ssh host's key is not in known_hosts, or differs from it", "`ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts` (after checking the fingerprint)"},
	{CodeCertificate, "the https server's certificate is not trusted", "`git config --global http.sslCAInfo /path/to/ca.pem` (or `GIT_SSL_CAINFO`)"},
	{CodeBackoff, "not tried: an earlier credential or verification failure is waited out", "fix the cause, then `archiplan sync`"},
	{CodeCancelled, "the process was stopping", ""},
	{CodeRemoteError, "another refusal; the line says which", ""},
	{CodeCommitRefused, "a pulled commit archiplan will not bring into the work tree: a path under `.git/`, a link or file where archiplan's folders belong, a configuration pointing outside the workspace", "revert it on the remote"},
}

var (
	// ErrRemoteAuth means the remote refused who archiplan said it was (or nothing could be said).
	ErrRemoteAuth = errors.New("the remote refused the credentials")
	// ErrRemoteVerify means the remote's identity could not be verified (host key, certificate).
	ErrRemoteVerify = errors.New("the remote's identity could not be verified")
	// ErrBackoff means a fetch or push was not tried: an earlier credential or verification failure
	// is waited out instead of being repeated on every tick (a lockout risk).
	ErrBackoff = errors.New("waiting before trying the remote again")
	// ErrCommitRefused means a pulled commit was not brought into the work tree; the workspace
	// stays at its head.
	ErrCommitRefused = errors.New("a commit from the remote was refused")
)

// RemoteError is a fetch's or push's failure as a person reads it: one line, a code, and the
// fix where there is one. Never a server's page, never a credential.
type RemoteError struct {
	Op     string // fetch, push
	Remote string
	Code   string
	Reason string
	Fix    string
	Err    error
}

func (e *RemoteError) Error() string {
	s := fmt.Sprintf("%s %s: %s [%s]", e.Op, e.Remote, e.Reason, e.Code)
	if e.Fix != "" {
		s += "; fix: " + e.Fix
	}
	return Redact(s)
}

func (e *RemoteError) Unwrap() []error {
	errs := []error{e.Err}
	switch e.Code {
	case CodeUnreachable, CodeCancelled:
		errs = append(errs, ErrUnreachable)
	case CodeAuth:
		errs = append(errs, ErrRemoteAuth)
	case CodeHostKey, CodeCertificate:
		errs = append(errs, ErrRemoteVerify)
	case CodeBackoff:
		errs = append(errs, ErrBackoff)
	case CodeCommitRefused:
		errs = append(errs, ErrCommitRefused)
	}
	return errs
}

// backsOff says whether a failure is one that trying again soon cannot mend and may make worse.
func backsOff(code string) bool {
	return code == CodeAuth || code == CodeHostKey || code == CodeCertificate
}

// backoffAfter is how long to wait after n such failures in a row: a minute, doubling to an hour.
func backoffAfter(n int) time.Duration {
	d := time.Minute
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 2
	}
	if d > time.Hour {
		d = time.Hour
	}
	return d
}

// classify turns what go-git returned into a RemoteError.
func classify(op, remote string, err error, t *sshTarget, s *netSession, opts NetOptions) *RemoteError {
	e := &RemoteError{Op: op, Remote: remote, Err: err}
	var hk *hostKeyError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var herr *githttp.Err
	var unexpected *plumbing.UnexpectedError
	timedOut, _ := s.timedOut.Load().(string)
	msg := err.Error()
	switch {
	case errors.As(err, &hk):
		e.Code, e.Reason, e.Fix = CodeHostKey, hk.Error(), hk.t.keyscan()+" (after checking the fingerprint with the server's owner)"
	case knownhosts.IsHostKeyChanged(err) || strings.Contains(msg, "knownhosts: key mismatch"):
		e.Code = CodeHostKey
		e.Reason = "the host key of " + t.addr() + " differs from the one known_hosts records (a replaced server, or someone in between)"
		e.Fix = fmt.Sprintf("only if the server's key was replaced on purpose: ssh-keygen -R '%s', then %s", knownhosts.Normalize(t.addr()), t.keyscan())
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify),
		strings.Contains(msg, "x509: "):
		e.Code = CodeCertificate
		e.Reason = "the server's certificate is not trusted: " + oneLine(certReason(msg))
		e.Fix = "give git the CA that signed it: git config --global http.sslCAInfo /path/to/ca.pem (or GIT_SSL_CAINFO)"
	case errors.Is(err, context.Canceled) && timedOut == "":
		e.Code, e.Reason = CodeCancelled, "cancelled: archiplan is stopping"
	case timedOut == "idle":
		e.Code, e.Reason = CodeUnreachable, fmt.Sprintf("no answer for %s (remote_timeouts.idle)", opts.Idle)
	case timedOut == "total" || errors.Is(err, context.DeadlineExceeded):
		e.Code, e.Reason = CodeUnreachable, fmt.Sprintf("not done within %s (remote_timeouts.total)", opts.Total)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		e.Code, e.Reason = CodeAuth, "HTTP 401: the server refused the user and password (or none were given)"
		e.Fix = "store the credential with git (git credential approve, or a credential.helper), or set ARCHIPLAN_GIT_TOKEN"
	case errors.Is(err, transport.ErrAuthorizationFailed):
		e.Code, e.Reason = CodeAuth, "HTTP 403: the user may not do this on the repository"
		e.Fix = "ask the repository's owner for access, or use another credential"
	case errors.Is(err, ErrKeyPassphrase):
		e.Code, e.Reason = CodeAuth, oneLine(msg)
		e.Fix = "ssh-add the key (the agent holds it decrypted), or set ARCHIPLAN_SSH_KEY_PASSPHRASE"
	case errors.Is(err, errNamedKeyMissing):
		e.Code, e.Reason = CodeAuth, oneLine(msg)
		e.Fix = "set ARCHIPLAN_SSH_KEY to the private key's path, or unset it to use the agent and ~/.ssh's keys"
	case errors.Is(err, errNoSSHKey):
		e.Code, e.Reason = CodeAuth, errNoSSHKey.Error()
		e.Fix = "ssh-add a key, or name one with IdentityFile in ~/.ssh/config"
	case strings.Contains(msg, "unable to authenticate"):
		e.Code, e.Reason = CodeAuth, fmt.Sprintf("the server refused every key offered for user %s", t.user)
		e.Fix = "add the public key to the server's authorized_keys for that user, or name the right key with IdentityFile in ~/.ssh/config"
	case errors.Is(err, transport.ErrRepositoryNotFound):
		e.Code, e.Reason = CodeUnreachable, "repository not found"
	case errors.As(err, &herr), errors.As(err, &unexpected) && errors.As(unexpected.Err, &herr):
		code := herr.StatusCode()
		e.Reason = fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
		e.Code = CodeRemoteError
		if code >= 500 {
			e.Code = CodeUnreachable
		}
	default:
		e.Code, e.Reason = CodeRemoteError, oneLine(msg)
		var ne net.Error
		if errors.As(err, &ne) || unreachable(err) {
			e.Code = CodeUnreachable
		}
	}
	return e
}

// certReason is the x509 part of a TLS failure's message.
func certReason(msg string) string {
	if i := strings.Index(msg, "x509: "); i >= 0 {
		return msg[i:]
	}
	return msg
}

// oneLine is a message's first line, without control characters, at most 200 characters.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u202e' || r == '\u202d' {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return strings.TrimSpace(s)
}
