package forge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

var (
	// ErrForge is every error a forge client returns.
	ErrForge = errors.New("forge")
	// ErrNotFound: the forge has no such pull request, repository or comment (HTTP 404).
	ErrNotFound = errors.New("not found on the forge")
	// ErrAuth: the forge refused the token (HTTP 401, 403), or there was none.
	ErrAuth = errors.New("the forge refused the token")
	// ErrRefused: the forge refused what was asked (HTTP 405, 409, 422): a merge whose head moved,
	// a pull request that cannot be merged, a branch with an open pull request already.
	ErrRefused = errors.New("the forge refused")
)

// Config is where a forge is and which repository: the forge section of .archiplan.yaml.
type Config struct {
	Kind string // "gitea" (or "forgejo"), "github", "gitlab"
	// URL is the forge's web address (https://gitea.example.com, https://github.com,
	// https://gitlab.com); the client finds its API under it. Empty: github.com or gitlab.com.
	URL  string
	Repo string // owner/name (GitLab: the project's full path, group/subgroup/name)
	// Token is the API token; empty: from the environment or git's credential helper (Token).
	Token string
	// Dir is the folder git's credential helper is asked from (the workspace); empty: the current.
	Dir string
	// HTTP is the client requests go through (nil: one with a timeout per request).
	HTTP *http.Client
}

// Opener makes one kind's client.
type Opener func(Config) (Forge, error)

var kinds = struct {
	sync.Mutex
	m map[string]Opener
}{m: map[string]Opener{}}

// Register makes Open know a kind; each client registers itself (import it for its effect).
func Register(kind string, open Opener) {
	kinds.Lock()
	defer kinds.Unlock()
	kinds.m[kind] = open
}

// Kinds are the kinds Open knows, sorted.
func Kinds() []string {
	kinds.Lock()
	defer kinds.Unlock()
	var out []string
	for k := range kinds.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Open is the client cfg asks for, with its token found when cfg has none.
func Open(cfg Config) (Forge, error) {
	kinds.Lock()
	open, ok := kinds.m[cfg.Kind]
	kinds.Unlock()
	if !ok {
		return nil, fmt.Errorf("forge.kind %q: not one of %s: %w", cfg.Kind, strings.Join(Kinds(), ", "), ErrForge)
	}
	if strings.Count(cfg.Repo, "/") < 1 || strings.HasPrefix(cfg.Repo, "/") || strings.HasSuffix(cfg.Repo, "/") {
		return nil, fmt.Errorf("forge.repo %q: want owner/name: %w", cfg.Repo, ErrForge)
	}
	return open(cfg)
}

// CheckURL refuses a forge address a token should not be sent to: not http(s), or plain http
// beyond loopback.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		return nil, fmt.Errorf("forge.url %q: want https://host[/path] (no credentials in it): %w", raw, ErrForge)
	}
	if u.Scheme == "http" {
		ip := net.ParseIP(u.Hostname())
		if u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("forge.url %s: https unless loopback (the token would travel in clear): %w", raw, ErrForge)
		}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// TokenEnv are the variables a token is read from, in order: ARCHIPLAN_FORGE_TOKEN, then the
// forge's own (GITEA_TOKEN, FORGEJO_TOKEN, GITHUB_TOKEN, GH_TOKEN, GITLAB_TOKEN).
func TokenEnv(kind string) []string {
	env := []string{"ARCHIPLAN_FORGE_TOKEN"}
	switch kind {
	case "gitea", "forgejo":
		return append(env, "GITEA_TOKEN", "FORGEJO_TOKEN")
	case "github":
		return append(env, "GITHUB_TOKEN", "GH_TOKEN")
	case "gitlab":
		return append(env, "GITLAB_TOKEN")
	}
	return env
}

// Token is cfg's token: cfg.Token, the first of TokenEnv set, or the password git's credential
// helpers give for the forge's web address (`git credential fill`, never prompting). Empty when
// there is none: the client then says so at the first request the forge refuses.
func Token(cfg Config, web *url.URL) string {
	if cfg.Token != "" {
		return cfg.Token
	}
	for _, k := range TokenEnv(cfg.Kind) {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	return credentialFill(cfg.Dir, web)
}

// credentialFill asks git's credential helpers for the forge host's password (a personal access
// token stored as git's https password, as gh and glab store them).
func credentialFill(dir string, web *url.URL) string {
	if web == nil {
		return ""
	}
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "credential", "fill")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("protocol=" + web.Scheme + "\nhost=" + web.Host + "\n\n")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "password="); ok {
			return v
		}
	}
	return ""
}

// MarkerLine is the invisible line Comment writes into a comment to find it again: an HTML
// comment, which every forge's Markdown hides.
func MarkerLine(marker string) string {
	marker = strings.Join(strings.Fields(strings.NewReplacer("--", "-", ">", "").Replace(marker)), " ")
	return "<!-- archiplan:" + marker + " -->"
}

// Marked is body with the marker's line first.
func Marked(marker, body string) string { return MarkerLine(marker) + "\n" + body }

// HasMarker says whether a comment's body carries the marker's line.
func HasMarker(body, marker string) bool {
	line := MarkerLine(marker)
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
