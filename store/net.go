package store

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/net/proxy"
)

// NetOptions bound every fetch and push: a remote that accepts and never answers (a stopped sshd,
// a silent TLS listener) ends the operation instead of hanging it.
type NetOptions struct {
	Connect time.Duration // to open the TCP connection and finish the TLS or SSH handshake's first read
	Idle    time.Duration // with no byte read or written
	Total   time.Duration // the whole fetch or push
}

// DefaultNet is what a workspace uses unless its configuration says otherwise.
var DefaultNet = NetOptions{Connect: 15 * time.Second, Idle: 60 * time.Second, Total: 10 * time.Minute}

func (o NetOptions) orDefault() NetOptions {
	if o.Connect <= 0 {
		o.Connect = DefaultNet.Connect
	}
	if o.Idle <= 0 {
		o.Idle = DefaultNet.Idle
	}
	if o.Total <= 0 {
		o.Total = DefaultNet.Total
	}
	return o
}

// SetNet sets the bounds of the workspace's fetches and pushes (zero fields keep the defaults).
func (w *Workspace) SetNet(o NetOptions) { w.net = o.orDefault() }

// netSession is the network of one fetch or push: every connection it opens is bounded by the
// idle timeout and closed when the operation's context ends (the total timeout, or a SIGTERM
// cancelling it), which is what makes go-git's transports give up: its SSH transport dials and
// shakes hands without a context, and a stopped server never answers.
type netSession struct {
	opts  NetOptions
	mu    sync.Mutex
	conns map[net.Conn]bool
	ended bool
	// timedOut says which bound ended the session, for the error a person reads
	timedOut atomic.Value // string
}

var (
	sessionsMu sync.Mutex
	sessions   = map[string]*netSession{}
	sessionSeq atomic.Int64
)

// proxyScheme routes go-git's SSH dials to the session named in the host part: go-git's SSH
// transport dials through golang.org/x/net/proxy when an endpoint has a proxy URL, and a
// registered scheme is the one way in that lets archiplan own the connection.
const proxyScheme = "archiplan-net"

type sessionKey struct{}

func init() {
	proxy.RegisterDialerType(proxyScheme, func(u *url.URL, _ proxy.Dialer) (proxy.Dialer, error) {
		sessionsMu.Lock()
		s := sessions[u.Host]
		sessionsMu.Unlock()
		if s == nil {
			return nil, fmt.Errorf("no network session %s", u.Host)
		}
		return s, nil
	})
	// go-git reads ~/.ssh/config itself, but only HostName and Port: archiplan resolves the whole
	// entry (see sshTarget) and hands go-git the resolved address
	gitssh.DefaultSSHConfig = nil
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialFromContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: DefaultNet.Connect,
		// a fetch's connections are closed when it ends (see netSession.end): none is kept for
		// the next one, which would find it closed under it
		DisableKeepAlives:     true,
		ExpectContinueTimeout: time.Second,
	}
	for _, scheme := range []string{"http", "https"} {
		client.InstallProtocol(scheme, githttp.NewClient(&http.Client{Transport: transport}))
	}
}

// dialFromContext dials for the HTTP transport: go-git passes the operation's context into each
// request, and the session rides in it.
func dialFromContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if s, ok := ctx.Value(sessionKey{}).(*netSession); ok {
		return s.DialContext(ctx, network, addr)
	}
	d := net.Dialer{Timeout: DefaultNet.Connect}
	return d.DialContext(ctx, network, addr)
}

// withNet runs a fetch or push inside a network session bounded by opts; ctx's end (a signal)
// ends it at once.
func withNet(ctx context.Context, opts NetOptions, fn func(ctx context.Context, s *netSession, proxyURL string) error) error {
	opts = opts.orDefault()
	s := &netSession{opts: opts, conns: map[net.Conn]bool{}}
	id := strconv.FormatInt(sessionSeq.Add(1), 10)
	sessionsMu.Lock()
	sessions[id] = s
	sessionsMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, opts.Total)
	ctx = context.WithValue(ctx, sessionKey{}, s)
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				s.timedOut.CompareAndSwap(nil, "total")
			}
		case <-stopped:
		}
		s.end()
	}()
	err := fn(ctx, s, proxyScheme+"://"+id)
	close(stopped)
	cancel()
	s.end()
	sessionsMu.Lock()
	delete(sessions, id)
	sessionsMu.Unlock()
	return err
}

// DialContext opens a connection of the session, within the connect timeout.
func (s *netSession) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: s.opts.Connect}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	ic := &idleConn{Conn: c, s: s}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		c.Close()
		return nil, context.Canceled
	}
	s.conns[ic] = true
	return ic, nil
}

// Dial is proxy.Dialer's: go-git asks for a ContextDialer, this is for the interface.
func (s *netSession) Dial(network, addr string) (net.Conn, error) {
	return s.DialContext(context.Background(), network, addr)
}

// end closes every connection of the session: whatever go-git was blocked on returns.
func (s *netSession) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	for c := range s.conns {
		c.(*idleConn).Conn.Close()
	}
	s.conns = map[net.Conn]bool{}
}

// idleConn is a connection on which every read and write must move a byte within the idle
// timeout.
type idleConn struct {
	net.Conn
	s *netSession
}

func (c *idleConn) Read(p []byte) (int, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.s.opts.Idle))
	n, err := c.Conn.Read(p)
	if isTimeout(err) {
		c.s.timedOut.CompareAndSwap(nil, "idle")
	}
	return n, err
}

func (c *idleConn) Write(p []byte) (int, error) {
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.s.opts.Idle))
	n, err := c.Conn.Write(p)
	if isTimeout(err) {
		c.s.timedOut.CompareAndSwap(nil, "idle")
	}
	return n, err
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
