package web

import (
	"net/http"
	"net/http/httptest"
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
