package store

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/google/shlex"
	"github.com/kevinburke/ssh_config"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// sshTarget is an ssh remote as the user's OpenSSH set-up resolves it: ~/.ssh/config (and
// /etc/ssh/ssh_config) for the host alias's HostName, Port, User, IdentityFile,
// StrictHostKeyChecking and UserKnownHostsFile, and the options GIT_SSH_COMMAND passes to ssh
// (-i, -p, -l, -F, -o), which archiplan reads rather than runs.
type sshTarget struct {
	alias      string // the host as the remote's URL names it
	host       string // the host to dial
	port       int
	user       string
	path       string
	identities []string
	strict     string   // StrictHostKeyChecking: yes (default), accept-new, no
	knownHosts []string // known_hosts files
}

// addr is the host and port, as dialled.
func (t *sshTarget) addr() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// url is the remote's address with the alias resolved, as go-git is handed it.
func (t *sshTarget) url() string {
	if strings.HasPrefix(t.path, "/") {
		return "ssh://" + t.user + "@" + t.addr() + t.path
	}
	// a path relative to the home folder (git@host:repo.git): kept in scp-like form where the
	// port allows, else as git writes it in a URL (~/, which upload-pack expands)
	if t.port == 22 && !strings.Contains(t.host, ":") {
		return t.user + "@" + t.host + ":" + t.path
	}
	return "ssh://" + t.user + "@" + t.addr() + "/~/" + t.path
}

// keyscan is the command that adds the host's key to known_hosts.
func (t *sshTarget) keyscan() string {
	file := "~/.ssh/known_hosts"
	if len(t.knownHosts) > 0 {
		file = tildeOf(t.knownHosts[0])
	}
	return fmt.Sprintf("ssh-keyscan -p %d %s >> %s", t.port, t.host, file)
}

func home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func tildeOf(p string) string {
	if h := home(); h != "" && strings.HasPrefix(p, h+"/") {
		return "~/" + strings.TrimPrefix(p, h+"/")
	}
	return p
}

func expandHome(p string) string {
	if p == "~" {
		return home()
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home(), p[2:])
	}
	return p
}

// sshConfigFiles are the OpenSSH client configurations, user's first: the first value found wins.
func sshConfigFiles(extra string) []*ssh_config.Config {
	var out []*ssh_config.Config
	files := []string{filepath.Join(home(), ".ssh", "config"), "/etc/ssh/ssh_config"}
	if extra != "" {
		files = []string{expandHome(extra)} // ssh -F replaces both
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		c, err := ssh_config.DecodeBytes(data)
		if err != nil {
			continue
		}
		out = append(out, c)
	}
	return out
}

// readSSHCommand reads GIT_SSH_COMMAND's options into t (its -p and -l where the URL named
// none) and opts (its -o), and returns the keys its -i names and the configuration file its -F
// names. git hands the command to the shell: its words are the shell's (a quoted key path may
// hold a space).
func readSSHCommand(cmd string, t *sshTarget, opts map[string]string) (cmdIdentities []string, cfgFile string, err error) {
	words, err := shlex.Split(cmd)
	if err != nil {
		return nil, "", fmt.Errorf("GIT_SSH_COMMAND %q: %w", cmd, err)
	}
	for i := 1; i < len(words); i++ {
		flag, val := words[i], ""
		if len(flag) > 2 && flag[0] == '-' && strings.ContainsRune("ipoFl", rune(flag[1])) {
			flag, val = flag[:2], flag[2:]
		} else if i+1 < len(words) {
			val = words[i+1]
		}
		switch flag {
		case "-i", "-p", "-o", "-F", "-l":
			if len(words[i]) == 2 {
				i++
			}
		default:
			continue
		}
		switch flag {
		case "-i":
			cmdIdentities = append(cmdIdentities, expandHome(val))
		case "-p":
			if t.port == 0 {
				t.port, _ = strconv.Atoi(val)
			}
		case "-l":
			if t.user == "" {
				t.user = val
			}
		case "-F":
			cfgFile = val
		case "-o":
			k, v, ok := strings.Cut(val, "=")
			if !ok {
				k, v, _ = strings.Cut(val, " ")
			}
			opts[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return cmdIdentities, cfgFile, nil
}

// sshIdentities is the keys to try, in ssh's order: GIT_SSH_COMMAND's -i, its -o IdentityFile,
// the configuration's for alias, then OpenSSH's default keys.
func sshIdentities(alias string, cmdIdentities []string, opts map[string]string, configs []*ssh_config.Config) []string {
	ids := append([]string(nil), cmdIdentities...)
	if v, ok := opts["identityfile"]; ok {
		ids = append(ids, expandHome(v))
	}
	for _, c := range configs {
		if vs, err := c.GetAll(alias, "IdentityFile"); err == nil {
			for _, v := range vs {
				// ssh_config's defaults name ~/.ssh/identity; the default keys come below
				if v != "" && v != "~/.ssh/identity" {
					ids = append(ids, expandHome(strings.ReplaceAll(v, "%d", home())))
				}
			}
		}
	}
	for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} { // OpenSSH's default keys
		ids = append(ids, filepath.Join(home(), ".ssh", name))
	}
	return ids
}

// resolveSSH reads the user's set-up for an ssh remote's URL.
func resolveSSH(rawURL string) (*sshTarget, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, err
	}
	t := &sshTarget{alias: ep.Host, host: ep.Host, port: ep.Port, user: ep.User, path: ep.Path}
	if ep.Port == 22 && !strings.Contains(rawURL, ":22/") {
		t.port = 0 // the URL named none: the configuration may
	}
	opts := map[string]string{}
	var cmdIdentities []string
	cfgFile := ""
	if cmd := os.Getenv("GIT_SSH_COMMAND"); cmd != "" {
		if cmdIdentities, cfgFile, err = readSSHCommand(cmd, t, opts); err != nil {
			return nil, err
		}
	}
	configs := sshConfigFiles(cfgFile)
	get := func(key string) string {
		if v, ok := opts[strings.ToLower(key)]; ok {
			return v
		}
		for _, c := range configs {
			if v, err := c.Get(t.alias, key); err == nil && v != "" {
				return v
			}
		}
		return ""
	}
	if h := get("HostName"); h != "" {
		t.host = strings.ReplaceAll(h, "%h", t.alias)
	}
	if t.port == 0 {
		t.port, _ = strconv.Atoi(get("Port"))
	}
	if t.port <= 0 {
		t.port = 22
	}
	if t.user == "" {
		t.user = get("User")
	}
	if t.user == "" {
		t.user = "git"
	}
	t.identities = sshIdentities(t.alias, cmdIdentities, opts, configs)
	t.strict = strings.ToLower(get("StrictHostKeyChecking"))
	if t.strict == "" || t.strict == "ask" {
		t.strict = "yes"
	}
	if t.strict == "off" {
		t.strict = "no"
	}
	if v := get("UserKnownHostsFile"); v != "" {
		for _, f := range strings.Fields(v) {
			t.knownHosts = append(t.knownHosts, expandHome(f))
		}
	} else {
		t.knownHosts = []string{filepath.Join(home(), ".ssh", "known_hosts"), filepath.Join(home(), ".ssh", "known_hosts2")}
	}
	return t, nil
}

// keyCache holds each key file decrypted once per process (per version of the file): a daemon
// neither asks for a passphrase nor spends a decryption per sync.
var keyCache = struct {
	sync.Mutex
	keys map[string]cachedKey
}{keys: map[string]cachedKey{}}

type cachedKey struct {
	mod    time.Time
	size   int64
	signer ssh.Signer
	err    error
}

// ErrKeyPassphrase means a key file is encrypted and no passphrase opened it.
var ErrKeyPassphrase = errors.New("the key's passphrase is missing or wrong")

func loadKey(path, passphrase string) (ssh.Signer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	keyCache.Lock()
	defer keyCache.Unlock()
	if k, ok := keyCache.keys[path]; ok && k.mod.Equal(fi.ModTime()) && k.size == fi.Size() {
		return k.signer, k.err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	signer, err := ssh.ParsePrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if passphrase == "" {
			err = fmt.Errorf("%s: %w (set ARCHIPLAN_SSH_KEY_PASSPHRASE, or add the key to ssh-agent)", tildeOf(path), ErrKeyPassphrase)
		} else if signer, err = ssh.ParsePrivateKeyWithPassphrase(data, []byte(passphrase)); err != nil {
			err = fmt.Errorf("%s: %w", tildeOf(path), ErrKeyPassphrase)
		}
	}
	keyCache.keys[path] = cachedKey{mod: fi.ModTime(), size: fi.Size(), signer: signer, err: err}
	return signer, err
}

// sshAuth is go-git's AuthMethod for an ssh remote, made from the user's set-up: the agent's
// keys, ARCHIPLAN_SSH_KEY, the IdentityFiles and the default keys, and known_hosts as
// StrictHostKeyChecking says.
type sshAuth struct {
	t       *sshTarget
	signers []ssh.Signer
	keyErr  error // why a key file that exists could not be used (a passphrase), for the error
	named   error // ARCHIPLAN_SSH_KEY names no key file
	agent   net.Conn
}

func (a *sshAuth) Name() string   { return "ssh-public-keys" }
func (a *sshAuth) String() string { return "user: " + a.t.user }

func newSSHAuth(t *sshTarget) *sshAuth {
	a := &sshAuth{t: t}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if c, err := net.DialTimeout("unix", sock, 5*time.Second); err == nil {
			a.agent = c
			if ss, err := agent.NewClient(c).Signers(); err == nil {
				a.signers = append(a.signers, ss...)
			}
		}
	}
	files := t.identities
	if k := os.Getenv("ARCHIPLAN_SSH_KEY"); k != "" {
		files = append([]string{expandHome(k)}, files...)
		if fi, err := os.Stat(expandHome(k)); err != nil || fi.IsDir() {
			// named on purpose: a key missing is the person's mistake, never passed over for another
			a.named = fmt.Errorf("ARCHIPLAN_SSH_KEY names %s: %w", k, errNamedKeyMissing)
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		s, err := loadKey(f, os.Getenv("ARCHIPLAN_SSH_KEY_PASSPHRASE"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			if a.keyErr == nil {
				a.keyErr = err
			}
			continue
		}
		a.signers = append(a.signers, s)
	}
	return a
}

func (a *sshAuth) close() {
	if a.agent != nil {
		a.agent.Close()
	}
}

// ClientConfig is what go-git's SSH transport dials with.
func (a *sshAuth) ClientConfig() (*ssh.ClientConfig, error) {
	if a.named != nil {
		return nil, a.named
	}
	if len(a.signers) == 0 {
		if a.keyErr != nil {
			return nil, a.keyErr
		}
		return nil, errNoSSHKey
	}
	cfg := &ssh.ClientConfig{User: a.t.user, Auth: []ssh.AuthMethod{ssh.PublicKeys(a.signers...)}}
	if a.t.strict == "no" {
		cfg.HostKeyCallback = ssh.InsecureIgnoreHostKey() // the user's own StrictHostKeyChecking no
		return cfg, nil
	}
	var files []string
	for _, f := range a.t.knownHosts {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		cfg.HostKeyCallback = func(host string, remote net.Addr, key ssh.PublicKey) error {
			return a.unknown(host, remote, key)
		}
		return cfg, nil
	}
	db, err := knownhosts.NewDB(files...)
	if err != nil {
		return nil, fmt.Errorf("read known hosts: %w", err)
	}
	check := db.HostKeyCallback()
	cfg.HostKeyCallback = func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := check(host, remote, key)
		if knownhosts.IsHostUnknown(err) {
			return a.unknown(host, remote, key)
		}
		return err
	}
	cfg.HostKeyAlgorithms = db.HostKeyAlgorithms(a.t.addr())
	return cfg, nil
}

// unknown is a host key known_hosts does not hold: refused, unless StrictHostKeyChecking is
// accept-new, which adds it as ssh does.
func (a *sshAuth) unknown(host string, remote net.Addr, key ssh.PublicKey) error {
	if a.t.strict != "accept-new" {
		return &hostKeyError{t: a.t, fingerprint: ssh.FingerprintSHA256(key)}
	}
	f := a.t.knownHosts[0]
	_ = os.MkdirAll(filepath.Dir(f), 0o700)
	out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	_, err = fmt.Fprintln(out, knownhosts.Line([]string{host}, key))
	return err
}

// errNamedKeyMissing means ARCHIPLAN_SSH_KEY names a file that is not there.
var errNamedKeyMissing = errors.New("no such key file")

var errNoSSHKey = errors.New("no ssh key: no agent (SSH_AUTH_SOCK), no IdentityFile in ~/.ssh/config, no ~/.ssh/id_ed25519, id_ecdsa or id_rsa")

// hostKeyError is an ssh host whose key is not in known_hosts.
type hostKeyError struct {
	t           *sshTarget
	fingerprint string
}

func (e *hostKeyError) Error() string {
	return fmt.Sprintf("the host key of %s (%s) is not in known_hosts", e.t.addr(), e.fingerprint)
}
