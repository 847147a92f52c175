// Package giteatest runs a real Gitea on loopback for tests: the binary ARCHIPLAN_GITEA names
// (built from the Go module proxy by .ci/run), its options/ and templates/ from the module's
// source (ARCHIPLAN_GITEA_SRC, or src/ beside the binary), its public/ (the built frontend: scripts
// and styles, ARCHIPLAN_GITEA_PUBLIC, or public/ beside the binary, or the source's, which has
// only images) as its static root, sqlite, OFFLINE_MODE and INSTALL_LOCK,
// HTTP on a free loopback port, no SSH. Gitea refuses to run as root: a test run by root runs it
// as the user archiplan-gitea (which .ci/run creates) or nobody. It starts in a session of its
// own and is stopped by whoever started it, nothing else.
//
// One Gitea serves a whole test binary (Shared, with Main in TestMain); each test makes its own
// repository (NewRepo) with the people it needs: two people and a bot, branch protection on main
// requiring one approval.
package giteatest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env names the Gitea binary; EnvSrc its module source (options/, templates/); EnvPublic the
// public/ folder its frontend build made (public/assets/.vite/manifest.json and what it names).
const (
	Env       = "ARCHIPLAN_GITEA"
	EnvSrc    = "ARCHIPLAN_GITEA_SRC"
	EnvPublic = "ARCHIPLAN_GITEA_PUBLIC"
)

// manifest is what Gitea's frontend build writes in public/, naming its scripts and styles.
const manifest = "assets/.vite/manifest.json"

// RunUsers are the accounts a Gitea started by root runs as, the first that exists.
var RunUsers = []string{"archiplan-gitea", "nobody"}

// User is an account on the test Gitea (a bot has no password).
type User struct {
	Name, Password, Token string
}

// Gitea is a running Gitea.
type Gitea struct {
	URL string // http://127.0.0.1:PORT (no trailing slash)
	Dir string // its work path
	// Owner owns the repositories and is site admin; Reviewer is the other person; Bot opens
	// pull requests and comments, as archiplan does.
	Owner, Reviewer, Bot User
	// Started is how long the start took, from exec to the users made.
	Started time.Duration
	// Frontend says its pages have their scripts and styles (the public/ of a frontend build):
	// without them a page is its bare HTML, and a browser waits on its scripts forever.
	Frontend bool

	bin    string
	cred   *credential
	runAs  string
	cmd    *exec.Cmd
	exited chan error
	stop   sync.Once
}

// ErrAbsent means there is no Gitea binary to run: a test skips.
var ErrAbsent = errors.New("no Gitea: set " + Env + " to a Gitea binary (.ci/run builds one)")

var shared struct {
	once sync.Once
	g    *Gitea
	err  error
}

// Shared is the test binary's one Gitea, started by the first test that asks (the test skips
// when there is no binary). Call Main from TestMain so that it stops when the tests end.
func Shared(t testing.TB) *Gitea {
	t.Helper()
	shared.once.Do(func() { shared.g, shared.err = Start() })
	if errors.Is(shared.err, ErrAbsent) {
		t.Skip(shared.err)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.g
}

// Main runs the tests and stops the shared Gitea after them: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if shared.g != nil {
		shared.g.Stop()
	}
	os.Exit(code)
}

// M is m with the shared Gitea stopped after its tests, for a TestMain that hands m to what
// exits itself (testscript.Main(giteatest.M{m}, ...)).
type M struct{ M interface{ Run() int } }

// Run runs the tests, then stops the shared Gitea.
func (m M) Run() int {
	code := m.M.Run()
	if shared.g != nil {
		shared.g.Stop()
	}
	return code
}

// Binary is the Gitea binary and its source folder, or ErrAbsent.
func Binary() (bin, src string, err error) {
	bin = os.Getenv(Env)
	if bin == "" {
		return "", "", ErrAbsent
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return "", "", fmt.Errorf("%s=%s: not a file: %w", Env, bin, ErrAbsent)
	}
	bin, _ = filepath.Abs(bin)
	src = os.Getenv(EnvSrc)
	if src == "" {
		src = filepath.Join(filepath.Dir(bin), "src")
	}
	src, _ = filepath.Abs(src)
	for _, d := range []string{"options", "templates"} {
		if fi, err := os.Stat(filepath.Join(src, d)); err != nil || !fi.IsDir() {
			return "", "", fmt.Errorf("no %s/ in Gitea's source %s (set %s): %w", d, src, EnvSrc, ErrAbsent)
		}
	}
	return bin, src, nil
}

// Public is the public/ folder Gitea serves: ARCHIPLAN_GITEA_PUBLIC, else public/ beside the
// binary when a frontend build made it (.ci/run caches it there), else the source's (images only).
func Public(bin, src string) string {
	if p := os.Getenv(EnvPublic); p != "" {
		p, _ = filepath.Abs(p)
		return p
	}
	if p := filepath.Join(filepath.Dir(bin), "public"); hasFile(filepath.Join(p, manifest)) {
		return p
	}
	return filepath.Join(src, "public")
}

func hasFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Start starts a Gitea and makes its three users. Stop ends it.
func Start() (g *Gitea, err error) {
	begin := time.Now()
	bin, src, err := Binary()
	if err != nil {
		return nil, err
	}
	g = &Gitea{bin: bin, exited: make(chan error, 1)}
	if err := g.account(); err != nil {
		return nil, err
	}
	if g.Dir, err = os.MkdirTemp("", "archiplan-gitea-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			g.Stop()
			g = nil
		}
	}()
	port, err := freePort()
	if err != nil {
		return g, err
	}
	g.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	for _, d := range []string{"data", "log", "custom/conf"} {
		if err := os.MkdirAll(filepath.Join(g.Dir, d), 0o755); err != nil {
			return g, err
		}
	}
	for _, d := range []string{"options", "templates"} {
		if err := os.Symlink(filepath.Join(src, d), filepath.Join(g.Dir, d)); err != nil {
			return g, err
		}
	}
	// Gitea's static root is its work path: public/ there is what it serves under /assets
	public := Public(bin, src)
	g.Frontend = hasFile(filepath.Join(public, manifest))
	if err := os.Symlink(public, filepath.Join(g.Dir, "public")); err != nil {
		return g, err
	}
	if err := os.WriteFile(g.conf(), []byte(appIni(g.Dir, g.runAs, port)), 0o600); err != nil {
		return g, err
	}
	if err := g.chown(); err != nil {
		return g, err
	}
	logf, err := os.Create(filepath.Join(g.Dir, "log", "server.log"))
	if err != nil {
		return g, err
	}
	g.cmd = g.command("web", "--port", strconv.Itoa(port))
	g.cmd.Stdout, g.cmd.Stderr = logf, logf
	ownSession(g.cmd.SysProcAttr)
	err = g.cmd.Start()
	logf.Close()
	if err != nil {
		return g, fmt.Errorf("start gitea: %w", err)
	}
	go func() { g.exited <- g.cmd.Wait() }()
	if err := g.waitReady(); err != nil {
		return g, err
	}
	g.Owner = User{Name: "alice", Password: secret(8)}
	g.Reviewer = User{Name: "bob", Password: secret(8)}
	g.Bot = User{Name: "archiplan-bot"} // a bot: no password
	for _, u := range []*User{&g.Owner, &g.Reviewer, &g.Bot} {
		if u.Token, err = g.createUser(*u, u == &g.Owner, u == &g.Bot); err != nil {
			return g, err
		}
	}
	// a bot account has no password, and Gitea makes it "change its password" before its token
	// may call the API: the admin lifts that
	if err := g.API(g.Owner, "PATCH", "/admin/users/"+g.Bot.Name, map[string]any{"source_id": 0,
		"login_name": g.Bot.Name, "must_change_password": false}, nil); err != nil {
		return g, err
	}
	g.Started = time.Since(begin)
	return g, nil
}

// account is who Gitea runs as: this process's user, or one of RunUsers when that is root.
func (g *Gitea) account() error {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return err
		}
		g.runAs = u.Username
		return nil
	}
	for _, name := range RunUsers {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		g.runAs = name
		g.cred = &credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
		return nil
	}
	return fmt.Errorf("gitea refuses root and none of the users %v exists (useradd --system archiplan-gitea): %w", RunUsers, ErrAbsent)
}

// chown gives the work path to the user Gitea runs as (the symlinks' targets stay as they are).
func (g *Gitea) chown() error {
	if g.cred == nil {
		return nil
	}
	if err := os.Chmod(g.Dir, 0o755); err != nil {
		return err
	}
	return filepath.Walk(g.Dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(g.cred.Uid), int(g.cred.Gid))
	})
}

func (g *Gitea) conf() string { return filepath.Join(g.Dir, "custom", "conf", "app.ini") }

// command is the gitea binary with args, as Gitea's user, in its work path.
func (g *Gitea) command(args ...string) *exec.Cmd {
	args = append(args, "--work-path", g.Dir, "--config", g.conf())
	cmd := exec.Command(g.bin, args...)
	cmd.Dir = g.Dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(g.Dir, "data"), "USER=" + g.runAs,
		"GITEA_WORK_DIR=" + g.Dir, "LANG=C.UTF-8"}
	cmd.SysProcAttr = asUser(g.cred)
	return cmd
}

// waitReady polls Gitea's health check until it answers 200 (its database is up) or the process
// exits; bounded generously for a loaded machine.
func (g *Gitea) waitReady() error {
	deadline := time.Now().Add(3 * time.Minute)
	c := http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case err := <-g.exited:
			g.exited <- err
			return fmt.Errorf("gitea exited: %v\n%s", err, g.Log())
		default:
		}
		if resp, err := c.Get(g.URL + "/api/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gitea not ready at %s after 3 minutes\n%s", g.URL, g.Log())
		}
		time.Sleep(25 * time.Millisecond)
	}
}

var tokenLine = regexp.MustCompile(`Access token was successfully created\.\.\. ([0-9a-f]+)`)

// createUser makes a person (or a bot, Gitea's kind of account without a password) with `gitea
// admin user create` and an access token of every scope.
func (g *Gitea) createUser(u User, admin, bot bool) (string, error) {
	args := []string{"admin", "user", "create", "--username", u.Name, "--email", u.Name + "@example.test",
		"--access-token", "--access-token-name", "test", "--access-token-scopes", "all"}
	if bot {
		args = append(args, "--user-type", "bot")
	} else {
		args = append(args, "--password", u.Password, "--must-change-password=false")
	}
	if admin {
		args = append(args, "--admin")
	}
	cmd := g.command(args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("gitea admin user create %s: %v\n%s", u.Name, err, out)
	}
	m := tokenLine.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("gitea admin user create %s printed no token:\n%s", u.Name, out)
	}
	return string(m[1]), nil
}

// Log is what Gitea wrote.
func (g *Gitea) Log() string {
	var b strings.Builder
	for _, f := range []string{"log/server.log", "log/gitea.log"} {
		data, _ := os.ReadFile(filepath.Join(g.Dir, f))
		b.Write(data)
	}
	s := b.String()
	if len(s) > 8000 {
		s = "…" + s[len(s)-8000:]
	}
	return s
}

// Stop kills Gitea's session and removes its work path.
func (g *Gitea) Stop() {
	g.stop.Do(func() {
		if g.cmd != nil && g.cmd.Process != nil {
			killSession(g.cmd)
			<-g.exited
		}
		if g.Dir != "" {
			_ = os.RemoveAll(g.Dir)
		}
	})
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func secret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// appIni is the smallest configuration of a fast, offline, single-user-less Gitea: installed,
// sqlite, no SSH, no mail, no cron, no indexer, memory caches and queues.
func appIni(dir, runAs string, port int) string {
	return fmt.Sprintf(`APP_NAME = archiplan test forge
RUN_USER = %[2]s
RUN_MODE = prod
WORK_PATH = %[1]s

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[3]d
ROOT_URL = http://127.0.0.1:%[3]d/
LOCAL_ROOT_URL = http://127.0.0.1:%[3]d/
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false
APP_DATA_PATH = %[1]s/data

[database]
DB_TYPE = sqlite3
PATH = %[1]s/data/gitea.db
SQLITE_JOURNAL_MODE = WAL

[repository]
ROOT = %[1]s/data/repos
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
SECRET_KEY = %[4]s
INTERNAL_TOKEN = %[5]s
PASSWORD_HASH_ALGO = pbkdf2$1000$50
MIN_PASSWORD_LENGTH = 6

[service]
DISABLE_REGISTRATION = true
DEFAULT_KEEP_EMAIL_PRIVATE = true
NO_REPLY_ADDRESS = noreply.example.test

[oauth2]
ENABLED = false

[mailer]
ENABLED = false

[session]
PROVIDER = memory

[cache]
ADAPTER = memory

[queue]
TYPE = channel

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[cron]
ENABLED = false

[cron.update_checker]
ENABLED = false

[actions]
ENABLED = false

[picture]
DISABLE_GRAVATAR = true
ENABLE_FEDERATED_AVATAR = false

[log]
MODE = console
LEVEL = Warn
ROOT_PATH = %[1]s/log
`, dir, runAs, port, secret(16), secret(24))
}

// API sends one request to Gitea's API v1 as u (path from /api/v1) and decodes the answer into
// out when it is not nil. An answer other than 2xx is an error with Gitea's message.
func (g *Gitea) API(u User, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, g.URL+"/api/v1"+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "token "+u.Token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s as %s: %s: %s", method, path, u.Name, resp.Status, bytes.TrimSpace(raw))
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// Repo is a repository on the test Gitea, owned by Owner, with Reviewer and Bot as writers.
type Repo struct {
	g     *Gitea
	Owner string
	Name  string
}

// FullName is owner/name.
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// CloneURL is the repository's https-less clone URL carrying u's token (tests only).
func (r Repo) CloneURL(u User) string {
	return strings.Replace(r.g.URL, "http://", "http://"+u.Name+":"+u.Token+"@", 1) + "/" + r.FullName() + ".git"
}

// NewRepo makes a repository named name owned by Owner, with a first commit on main, Reviewer and
// Bot as collaborators with write access, and main protected: one approval required, pushes
// allowed to the owner and the bot (archiplan's apply commits).
func (g *Gitea) NewRepo(t testing.TB, name string) Repo {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.API(g.Owner, "POST", "/user/repos", map[string]any{"name": name, "auto_init": true,
		"default_branch": "main", "readme": "Default"}, nil))
	r := Repo{g: g, Owner: g.Owner.Name, Name: name}
	for _, u := range []User{g.Reviewer, g.Bot} {
		must(g.API(g.Owner, "PUT", "/repos/"+r.FullName()+"/collaborators/"+u.Name, map[string]any{"permission": "write"}, nil))
	}
	must(g.API(g.Owner, "POST", "/repos/"+r.FullName()+"/branch_protections", map[string]any{
		"rule_name": "main", "required_approvals": 1,
		"enable_push": true, "enable_push_whitelist": true, "push_whitelist_usernames": []string{g.Owner.Name, g.Bot.Name},
		"block_on_rejected_reviews": true,
	}, nil))
	return r
}

// PutFile writes path on branch as u (from the branch from when branch does not exist yet),
// one commit through Gitea's contents API, and returns the commit's SHA.
func (r Repo) PutFile(t testing.TB, u User, branch, from, path, content string) string {
	t.Helper()
	var cur struct {
		SHA string `json:"sha"`
	}
	ref := branch
	if from != "" {
		ref = from
	}
	exists := r.g.API(u, "GET", "/repos/"+r.FullName()+"/contents/"+path+"?ref="+ref, nil, &cur) == nil
	in := map[string]any{"content": b64(content), "message": "write " + path}
	if from != "" {
		in["branch"], in["new_branch"] = from, branch
	} else {
		in["branch"] = branch
	}
	method := "POST"
	if exists {
		method, in["sha"] = "PUT", cur.SHA
	}
	var out struct {
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	if err := r.g.API(u, method, "/repos/"+r.FullName()+"/contents/"+path, in, &out); err != nil {
		t.Fatal(err)
	}
	return out.Commit.SHA
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
