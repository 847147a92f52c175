// Package forgefake is a forge's REST API on loopback for the clients' tests, where no real
// forge can run (GitHub, GitLab): every request is checked against a table of endpoints written
// from the forge's published API description (method, path, query parameters, the JSON body's
// fields, their types and enums, the required ones, the headers), and answered by the test's
// handler. A request the table does not know, or that breaks it, fails the test.
package forgefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Field types of a JSON body, as the API descriptions name them.
const (
	String  = "string"
	Boolean = "boolean"
	Integer = "integer"
)

// Endpoint is one operation of the API, as its description gives it.
type Endpoint struct {
	Method string
	// Path is relative to the API's base, its parameters in braces: /repos/{owner}/{repo}/pulls.
	// A parameter matches one segment of the escaped path (a GitLab project's %2F included).
	Path     string
	Query    []string          // the query parameters it takes
	Body     map[string]string // the JSON body's fields and their types
	Required []string          // the body's required fields
	Enum     map[string][]string
	// Handle answers a valid request: the path's parameters and the decoded body.
	Handle func(w http.ResponseWriter, r *http.Request, p map[string]string, body map[string]any)
}

// Call is one request the fake received.
type Call struct {
	Method, Path, Query string
	Header              http.Header
	Body                map[string]any
}

// Server is a fake forge.
type Server struct {
	*httptest.Server
	t         testing.TB
	base      string
	endpoints []Endpoint
	// Header must be on every request (Accept, versions, the token's header).
	Header map[string]string
	mu     sync.Mutex
	calls  []Call
}

// New starts a fake forge whose API is under base (/api/v4, or "" for api.github.com's root).
func New(t testing.TB, base string, header map[string]string, endpoints []Endpoint) *Server {
	s := &Server{t: t, base: base, endpoints: endpoints, Header: header}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Calls are the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Count is how many requests matched method and path pattern.
func (s *Server) Count(method, pattern string) int {
	n := 0
	for _, c := range s.Calls() {
		if _, ok := match(pattern, c.Path); ok && c.Method == method {
			n++
		}
	}
	return n
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, format string, args ...any) {
	msg := fmt.Sprintf("%s %s: ", r.Method, r.URL.EscapedPath()) + fmt.Sprintf(format, args...)
	s.t.Errorf("fake forge: %s", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": "fake: " + msg})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.EscapedPath(), s.base)
	if !ok {
		s.fail(w, r, "not under the API's base %s", s.base)
		return
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if len(raw) > 0 {
		if r.Header.Get("Content-Type") != "application/json" {
			s.fail(w, r, "a body of Content-Type %q, want application/json", r.Header.Get("Content-Type"))
			return
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			s.fail(w, r, "the body is no JSON object: %v", err)
			return
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: r.Method, Path: path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()
	for k, v := range s.Header {
		if got := r.Header.Get(k); got != v {
			s.fail(w, r, "header %s = %q, want %q", k, got, v)
			return
		}
	}
	for _, e := range s.endpoints {
		p, ok := match(e.Path, path)
		if !ok || e.Method != r.Method {
			continue
		}
		for k := range r.URL.Query() {
			if !slices.Contains(e.Query, k) {
				s.fail(w, r, "query parameter %q is not one of %v", k, e.Query)
				return
			}
		}
		if body != nil && e.Body == nil {
			s.fail(w, r, "a body where the operation takes none")
			return
		}
		for k, v := range body {
			typ, ok := e.Body[k]
			if !ok {
				s.fail(w, r, "body field %q is not one of the operation's", k)
				return
			}
			if !typed(typ, v) {
				s.fail(w, r, "body field %q = %#v, want a %s", k, v, typ)
				return
			}
			if enum, ok := e.Enum[k]; ok && !slices.Contains(enum, fmt.Sprint(v)) {
				s.fail(w, r, "body field %q = %v, not one of %v", k, v, enum)
				return
			}
		}
		for _, k := range e.Required {
			if _, ok := body[k]; !ok {
				s.fail(w, r, "required body field %q missing", k)
				return
			}
		}
		e.Handle(w, r, p, body)
		return
	}
	s.fail(w, r, "no such operation in the API description")
}

func typed(typ string, v any) bool {
	switch typ {
	case String:
		_, ok := v.(string)
		return ok
	case Boolean:
		_, ok := v.(bool)
		return ok
	case Integer:
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	}
	return false
}

// match matches an escaped path against a pattern's segments.
func match(pattern, path string) (map[string]string, bool) {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return nil, false
	}
	params := map[string]string{}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return nil, false
			}
			params[p[1:len(p)-1]] = xs[i]
		} else if p != xs[i] {
			return nil, false
		}
	}
	return params, true
}

// JSON writes v with status.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
