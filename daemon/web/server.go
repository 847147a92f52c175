package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/archiplan/archiplan/daemon/web/pages"
)

// DefaultAddr is where --http listens when given without an address: loopback only.
const DefaultAddr = "127.0.0.1:8765"

var (
	// ErrNotLoopback means an address outside the loopback range without AllowRemote.
	ErrNotLoopback = errors.New("the review page listens on loopback only unless allowed otherwise")
)

// Config is what a Server serves and how.
type Config struct {
	Backend Backend
	// Token is the secret every request needs; empty means a random one.
	Token string
	// AllowRemote lets the server listen on an address outside the loopback range. Without it,
	// Open refuses such an address, and requests must name a loopback host (no DNS rebinding).
	AllowRemote bool
	// Operator is who the daemon runs as ("Name <email>"), shown beside Approve so the reviewer
	// knows what Approved-By will say.
	Operator string
	Logger   *slog.Logger
}

// Server is the review page.
type Server struct {
	cfg      Config
	log      *slog.Logger
	token    string
	csrf     string
	base     string // "/s/SESSION": every page lives under it; no cookie is ever set
	pages    *pages.Pages
	mux      *http.ServeMux
	srv      *http.Server
	ln       net.Listener
	done     chan struct{} // closed by Close: ends the event streams
	wg       sync.WaitGroup
	closeOne sync.Once
}

// New makes a server; Open starts it, or use Handler with a server of your own.
func New(cfg Config) (*Server, error) {
	if cfg.Backend == nil {
		return nil, errors.New("web: no backend")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{cfg: cfg, log: cfg.Logger.With("component", "web"), token: cfg.Token, done: make(chan struct{})}
	if s.token == "" {
		s.token = randomHex(32)
	}
	s.csrf = randomHex(32)
	// The session is a path, not a cookie: a browser sends the cookies of 127.0.0.1 to every port
	// of it (another user's listener received the page's), but a path only where it is asked to
	// go, and with Referrer-Policy same-origin never to another origin.
	s.base = "/s/" + randomHex(32)
	p, err := pages.Load()
	if err != nil {
		return nil, err
	}
	s.pages = p
	s.routes()
	return s, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux; a page without a secret must not start
	}
	return hex.EncodeToString(b)
}

// Token is the secret the page's login address carries.
func (s *Server) Token() string { return s.token }

// Base is the path every page of the session lives under ("/s/SESSION"), known only to a browser
// that opened the login address.
func (s *Server) Base() string { return s.base }

// Open listens on addr and serves until Close.
func (s *Server) Open(addr string) error {
	if addr == "" {
		addr = DefaultAddr
	}
	if !s.cfg.AllowRemote && !loopbackAddr(addr) {
		return fmt.Errorf("%w: %s", ErrNotLoopback, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
	s.log.Info("review page", "addr", ln.Addr().String())
	return nil
}

// Addr is the address the page listens on ("" before Open).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Address is the page's address without any secret (valid once Open returned).
func (s *Server) Address() string { return strings.TrimSuffix(s.URL(), "?token="+s.token) }

// URL is the login address to open, token included (valid once Open returned).
func (s *Server) URL() string {
	host := DefaultAddr
	if s.ln != nil {
		host = s.ln.Addr().String()
	}
	if h, p, err := net.SplitHostPort(host); err == nil && (h == "0.0.0.0" || h == "::") {
		host = net.JoinHostPort("127.0.0.1", p)
	}
	return "http://" + host + "/?token=" + s.token
}

// Close ends the event streams and stops the server, waiting for requests in flight.
func (s *Server) Close() error {
	s.closeOne.Do(func() { close(s.done) })
	if s.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	s.wg.Wait()
	return err
}

func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Handler is the whole page, its checks included.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// securityHeaders go on every answer, refusals included.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make the Origin of a form post "null"
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// guard checks every request: a loopback Host (unless remote is allowed), the session (the login
// address's token, checked before anything is given for it, leads to the session's path; every
// page lives under that path), and for anything but GET and HEAD the same origin and the CSRF
// token.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if !s.cfg.AllowRemote {
			host := r.Host
			if h, _, err := net.SplitHostPort(r.Host); err == nil {
				host = h
			}
			if !loopbackHost(host) {
				s.forbid(w, r, "the review page answers only to a loopback host name")
				return
			}
		}
		if r.URL.Query().Has("token") {
			if q := r.URL.Query().Get("token"); r.Method != http.MethodGet || r.URL.Path != "/" || !s.validToken(q) {
				s.forbid(w, r, "wrong token")
				return
			}
			// the token leads to the session's path, out of the address bar and history
			http.Redirect(w, r, s.base+"/", http.StatusSeeOther)
			return
		}
		rest, ok := s.inSession(r.URL.Path)
		if !ok {
			s.forbid(w, r, "no session: open the login address the daemon wrote at start (it holds the token)")
			return
		}
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path, u.RawPath = rest, strings.TrimPrefix(u.RawPath, s.base) // the base is hex: the same escaped
		r2.URL = &u
		r = r2
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodPost:
			if why := s.sameOrigin(r); why != "" {
				s.forbid(w, r, why)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if err := r.ParseForm(); err != nil {
				http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
				return
			}
			if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.csrf)) != 1 {
				s.forbid(w, r, "missing or wrong CSRF token: reload the page and try again")
				return
			}
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) validToken(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// inSession says whether a path lies under the session's, and what it names there.
func (s *Server) inSession(path string) (string, bool) {
	if len(path) < len(s.base)+1 || path[len(s.base)] != '/' ||
		subtle.ConstantTimeCompare([]byte(path[:len(s.base)]), []byte(s.base)) != 1 {
		return "", false
	}
	return path[len(s.base):], true
}

// sameOrigin says why a state-changing request does not come from the page itself ("" when it
// does): its Origin, or without one its Referer, must be this very host; a browser's
// Sec-Fetch-Site, when sent, must say same-origin.
func (s *Server) sameOrigin(r *http.Request) string {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return "cross-site request refused (Sec-Fetch-Site: " + site + ")"
	}
	want := "http://" + r.Host
	if r.TLS != nil {
		want = "https://" + r.Host
	}
	if o := r.Header.Get("Origin"); o != "" {
		if o != want {
			return "cross-origin request refused (Origin " + o + ")"
		}
		return ""
	}
	ref, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || ref.Scheme+"://"+ref.Host != want {
		return "request refused: it names neither an Origin nor a Referer of this page"
	}
	return ""
}

func (s *Server) forbid(w http.ResponseWriter, r *http.Request, why string) {
	s.log.Warn("refused request", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "why", why)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintln(w, "403 forbidden:", why)
}
