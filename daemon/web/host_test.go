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
