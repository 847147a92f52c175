// Package gitserver starts real git servers on loopback for tests: Debian's OpenSSH sshd and
// Apache with git-http-backend behind TLS (a private CA) and basic auth. Each runs in its own
// session (setsid) from a temporary folder, on a free port, and is stopped by the test that
// started it, nothing else. A test that needs one is skipped when the program is absent.
package gitserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	sshdBin     = "/usr/sbin/sshd"
	apacheBin   = "/usr/sbin/apache2"
	apacheMods  = "/usr/lib/apache2/modules"
	httpBackend = "/usr/lib/git-core/git-http-backend"
)

// Server is a started server process group.
type Server struct {
	Port int
	Dir  string
	cmd  *exec.Cmd
	t    testing.TB
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func start(t testing.TB, dir string, port int, name string, args ...string) *Server {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := startDetached(cmd); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	s := &Server{Port: port, Dir: dir, cmd: cmd, t: t}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		s.Resume()
		killTree(cmd)
		<-exited
	})
	// ready when it accepts and answers: poll the port (a state, bounded generously)
	deadline := time.Now().Add(5 * time.Minute)
	for {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Fatalf("%s exited: %v\n%s", name, err, log)
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never listened on %d", name, port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Log is what the server wrote (and Apache's error log).
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	e, _ := os.ReadFile(filepath.Join(s.Dir, "error.log"))
	return string(b) + string(e)
}

func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// SSHD is a running sshd that lets one key in, as the user running the test.
type SSHD struct {
	*Server
	User       string
	Key        string // the client's private key file
	Passphrase string // the key's passphrase ("" for none)
	HostKey    string // the host's public key line (type base64)
}

// StartSSHD starts sshd on a free loopback port, in its own session, with a new host key and a
// client key (encrypted with passphrase when not empty). Skipped when sshd is absent.
func StartSSHD(t testing.TB, passphrase string) *SSHD {
	t.Helper()
	for _, p := range []string{sshdBin, "/usr/bin/ssh-keygen", "/usr/bin/git-upload-pack"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	dir := t.TempDir()
	run(t, dir, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "host_key"))
	run(t, dir, "ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-f", filepath.Join(dir, "client_key"))
	pub, _ := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if os.Geteuid() == 0 {
		// sshd run by root wants its privilege separation folder (the package makes it at boot)
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	port := freePort(t)
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowAgentForwarding no
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
MaxStartups 100
LogLevel ERROR
`, port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"))
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	u := os.Getenv("USER")
	if out, err := exec.Command("id", "-un").Output(); err == nil {
		u = strings.TrimSpace(string(out))
	}
	s := start(t, dir, port, sshdBin, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	f := strings.Fields(string(hostPub))
	return &SSHD{Server: s, User: u, Key: filepath.Join(dir, "client_key"), Passphrase: passphrase, HostKey: f[0] + " " + f[1]}
}

// KnownHostsLine is the line ssh-keyscan would add for the server.
func (s *SSHD) KnownHostsLine() string {
	return fmt.Sprintf("[127.0.0.1]:%d %s\n", s.Port, s.HostKey)
}

// URL is the ssh URL of a repository at an absolute path on the server.
func (s *SSHD) URL(repo string) string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", s.User, s.Port, repo)
}

// HTTPS is a running Apache serving git-http-backend over TLS with basic auth.
type HTTPS struct {
	*Server
	Root     string // GIT_PROJECT_ROOT: the bare repositories served
	CAFile   string // the private CA that signed the server's certificate (PEM)
	User     string
	Password string
}

// StartHTTPS starts Apache on a free loopback port, in its own session: TLS with a certificate
// for 127.0.0.1 from a new private CA, basic auth for user/password, git-http-backend for the
// repositories under Root (push allowed to the authenticated user). Skipped when Apache or
// git-http-backend is absent.
func StartHTTPS(t testing.TB, user, password string) *HTTPS {
	t.Helper()
	for _, p := range []string{apacheBin, httpBackend, filepath.Join(apacheMods, "mod_ssl.so"), filepath.Join(apacheMods, "mod_cgi.so")} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "repos")
	if err := os.MkdirAll(root, 0o777); err != nil {
		t.Fatal(err)
	}
	caFile, certFile, keyFile := writeCerts(t, dir)
	sum := sha1.Sum([]byte(password))
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(user+":{SHA}"+base64.StdEncoding.EncodeToString(sum[:])+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	runAs := ""
	if os.Geteuid() == 0 {
		runAs = "User www-data\nGroup www-data\n" // Apache will not serve as root
	}
	mods := ""
	for _, m := range []string{"mpm_prefork", "authz_core", "authn_core", "authn_file", "auth_basic", "authz_user", "alias", "cgi", "env", "ssl"} {
		mods += fmt.Sprintf("LoadModule %s_module %s/mod_%s.so\n", m, apacheMods, m)
	}
	conf := fmt.Sprintf(`ServerRoot %[1]s
%[2]s%[3]sServerName 127.0.0.1
Listen 127.0.0.1:%[4]d
PidFile %[1]s/httpd.pid
DefaultRuntimeDir %[1]s
Mutex file:%[1]s default
ErrorLog %[1]s/error.log
LogLevel warn
StartServers 2
MaxRequestWorkers 20
Timeout 30
SSLEngine on
SSLCertificateFile %[5]s
SSLCertificateKeyFile %[6]s
SSLSessionCache none
SetEnv GIT_PROJECT_ROOT %[7]s
SetEnv GIT_HTTP_EXPORT_ALL 1
SetEnv GIT_CONFIG_COUNT 1
SetEnv GIT_CONFIG_KEY_0 safe.directory
SetEnv GIT_CONFIG_VALUE_0 *
ScriptAlias /git/ %[8]s/
<Location /git/>
  AuthType Basic
  AuthName "git"
  AuthUserFile %[1]s/htpasswd
  Require valid-user
</Location>
`, dir, mods, runAs, port, certFile, keyFile, root, httpBackend)
	if err := os.WriteFile(filepath.Join(dir, "httpd.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// the server's workers run as www-data: the folders on the way must let them through
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Dir(dir), 0o755)
	s := start(t, dir, port, apacheBin, "-f", filepath.Join(dir, "httpd.conf"), "-DFOREGROUND")
	return &HTTPS{Server: s, Root: root, CAFile: caFile, User: user, Password: password}
}

// URL is the https URL of a repository under Root (name like "team.git").
func (h *HTTPS) URL(name string) string {
	return fmt.Sprintf("https://127.0.0.1:%d/git/%s", h.Port, name)
}

// Serve makes a bare repository under Root from a repository, writable by the server.
func (h *HTTPS) Serve(t testing.TB, from, name string) string {
	t.Helper()
	bare := filepath.Join(h.Root, name)
	run(t, h.Root, "git", "clone", "-q", "--bare", from, bare)
	run(t, bare, "git", "config", "http.receivepack", "true")
	if os.Geteuid() == 0 {
		run(t, h.Root, "chown", "-R", "www-data:www-data", bare)
	}
	return bare
}

// writeCerts makes a private CA and a server certificate for 127.0.0.1 signed by it.
func writeCerts(t testing.TB, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "archiplan test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	caCert, _ := x509.ParseCertificate(caDER)
	srvDER, err := x509.CreateCertificate(rand.Reader, srv, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	caFile, certFile, keyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key")
	for f, b := range map[string]*pem.Block{caFile: {Type: "CERTIFICATE", Bytes: caDER}, certFile: {Type: "CERTIFICATE", Bytes: srvDER},
		keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(f, pem.EncodeToMemory(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return caFile, certFile, keyFile
}
