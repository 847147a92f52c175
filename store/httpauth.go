package store

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/config"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// httpSetup is what git's configuration and environment say of an https remote: the CA bundle
// (GIT_SSL_CAINFO, http.sslCAInfo) and whether to verify at all (GIT_SSL_NO_VERIFY,
// http.sslVerify), read by git itself where it is installed (so http.<url>.* and every scope
// count), else from the repository's and the user's configuration files.
type httpSetup struct {
	caFile   string
	caBundle []byte
	insecure bool
}

func (w *Workspace) gitConfig(key, rawURL string, boolean bool) string {
	if _, err := exec.LookPath("git"); err == nil {
		args := []string{"-C", w.Root, "config"}
		if boolean {
			args = append(args, "--type=bool")
		}
		args = append(args, "--get-urlmatch", key, rawURL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "git", args...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	section, option, _ := strings.Cut(key, ".")
	for _, scope := range []config.Scope{config.LocalScope, config.GlobalScope} {
		c, err := w.git().ConfigScoped(scope)
		if err != nil {
			continue
		}
		if v := c.Raw.Section(section).Option(option); v != "" {
			return v
		}
	}
	return ""
}

func (w *Workspace) httpSetupFor(rawURL string) (httpSetup, error) {
	var s httpSetup
	s.caFile = os.Getenv("GIT_SSL_CAINFO")
	if s.caFile == "" {
		s.caFile = w.gitConfig("http.sslCAInfo", rawURL, false)
	}
	if v := os.Getenv("GIT_SSL_NO_VERIFY"); v != "" && v != "0" && v != "false" {
		s.insecure = true
	} else if w.gitConfig("http.sslVerify", rawURL, true) == "false" {
		s.insecure = true
	}
	if s.caFile != "" {
		data, err := os.ReadFile(expandHome(s.caFile))
		if err != nil {
			return s, err
		}
		s.caBundle = data
	}
	return s, nil
}

// credentials asked of git's credential helpers, once per process and URL: dropped when the
// server refuses them, so that a changed password is asked for again (after the backoff).
var credCache = struct {
	sync.Mutex
	byURL map[string]*githttp.BasicAuth
}{byURL: map[string]*githttp.BasicAuth{}}

func forgetCredential(rawURL string) {
	credCache.Lock()
	delete(credCache.byURL, rawURL)
	credCache.Unlock()
}

// credentialFill asks git's credential helpers (`git credential fill`) for an https remote's
// user and password, never prompting: a daemon has no terminal.
func (w *Workspace) credentialFill(rawURL string) *githttp.BasicAuth {
	credCache.Lock()
	defer credCache.Unlock()
	if a, ok := credCache.byURL[rawURL]; ok {
		return a
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	var in bytes.Buffer
	in.WriteString("protocol=" + u.Scheme + "\nhost=" + u.Host + "\n")
	if p := strings.TrimPrefix(u.Path, "/"); p != "" {
		in.WriteString("path=" + p + "\n")
	}
	if u.User != nil && u.User.Username() != "" {
		in.WriteString("username=" + u.User.Username() + "\n")
	}
	in.WriteString("\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", w.Root, "credential", "fill")
	cmd.Stdin = &in
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	a := &githttp.BasicAuth{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "username":
			a.Username = v
		case "password":
			a.Password = v
		}
	}
	if a.Password == "" {
		return nil
	}
	credCache.byURL[rawURL] = a
	return a
}
