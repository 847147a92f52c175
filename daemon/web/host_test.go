package web

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// The page answers only to a loopback Host: a page on another name that resolves to 127.0.0.1
// (DNS rebinding) is refused before anything else is looked at.
func TestServer_LoopbackHostOnly(t *testing.T) {
	s, err := New(Config{Backend: NewLocal(LocalConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	for host, refused := range map[string]bool{
		"evil.example:8765": true, "evil.example": true, "127.0.0.1.evil.example:8765": true, "192.0.2.1:8765": true,
		"127.0.0.1:8765": false, "localhost:8765": false, "[::1]:8765": false,
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		said := strings.Contains(w.Body.String(), "loopback host")
		if said != refused || refused && w.Code != http.StatusForbidden {
			t.Errorf("Host %s: %d %q", host, w.Code, w.Body.String())
		}
	}
}

// A form post comes from the page only when its Origin, or without one its Referer, is exactly
// the page's origin: never one that merely starts with it.
func TestServer_SameOriginExactly(t *testing.T) {
	s, err := New(Config{Backend: NewLocal(LocalConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		header, value string
		ok            bool
	}{
		{"Origin", "http://127.0.0.1:8765", true},
		{"Referer", "http://127.0.0.1:8765/plan/x", true},
		{"Origin", "http://127.0.0.1:8765.evil.example", false},
		{"Referer", "http://127.0.0.1:8765.evil.example/plan/x", false},
		{"Referer", "http://127.0.0.1:87650/", false},
		{"Referer", "", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Host = "127.0.0.1:8765"
		if c.value != "" {
			r.Header.Set(c.header, c.value)
		}
		if why := s.sameOrigin(r); (why == "") != c.ok {
			t.Errorf("%s %q: %q", c.header, c.value, why)
		}
	}
}

// The page's credential is its session path, /s/ and 64 random hex digits, new for each server
// (and the login token likewise): a path that differs in one digit, is a digit short or long, or
// holds the digits in capitals is refused like no session at all; only the exact path serves.
func TestServer_SessionPathExactly(t *testing.T) {
	s, err := New(Config{Backend: NewLocal(LocalConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(Config{Backend: NewLocal(LocalConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	hex64 := regexp.MustCompile(`^[0-9a-f]{64}$`)
	id := strings.TrimPrefix(s.Base(), "/s/")
	if !strings.HasPrefix(s.Base(), "/s/") || !hex64.MatchString(id) || !hex64.MatchString(s.Token()) {
		t.Fatalf("session path %q, token %q: want /s/ and 64 hex digits, and 64 hex digits", s.Base(), s.Token())
	}
	if other.Base() == s.Base() || other.Token() == s.Token() || s.Token() == id {
		t.Fatal("two servers share a credential, or the token is the session")
	}
	flip := func(c byte) string {
		if c == '0' {
			return "1"
		}
		return "0"
	}
	get := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Host = "127.0.0.1:8765"
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		return w
	}
	for _, path := range []string{
		"/s/" + id[:63] + flip(id[63]) + "/static/app.js", // the last digit
		"/s/" + flip(id[0]) + id[1:] + "/static/app.js",   // the first
		"/s/" + id[:63] + "/static/app.js",                // a digit short
		"/s/" + id[:32] + "/static/app.js",                // half
		"/s/" + id + "0/static/app.js",                    // a digit long
		"/s/" + strings.ToUpper(id) + "/static/app.js",    // capitals
		"/s/" + id, // the session without a page
		"/S/" + id + "/static/app.js",
		other.Base() + "/static/app.js",
	} {
		if w := get(path); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "no session") {
			t.Errorf("GET %s: %d %q", path, w.Code, w.Body.String())
		}
	}
	if w := get(s.Base() + "/static/app.js"); w.Code != http.StatusOK {
		t.Fatalf("GET the session's own path: %d %q", w.Code, w.Body.String())
	}
}
