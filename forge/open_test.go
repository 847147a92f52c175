package forge

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The token comes from the configuration, then ARCHIPLAN_FORGE_TOKEN, then the forge's own
// variable, then git's credential helper for the forge's address (a real git).
func TestToken_Order(t *testing.T) {
	dir := t.TempDir()
	gitconfig := filepath.Join(dir, "gitconfig")
	// a helper that answers only for the forge's host
	helper := `[credential]
	helper = "!f() { test \"$1\" = get || exit 0; while read l; do [ -z \"$l\" ] && break; case $l in host=gitea.example.com) ok=1;; esac; done; [ -n \"$ok\" ] && echo username=bot && echo password=from-helper; }; f"
`
	if err := os.WriteFile(gitconfig, []byte(helper), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"ARCHIPLAN_FORGE_TOKEN", "GITEA_TOKEN", "FORGEJO_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN"} {
		t.Setenv(k, "")
	}
	web, _ := url.Parse("https://gitea.example.com")
	other, _ := url.Parse("https://elsewhere.example.com")
	cfg := Config{Kind: "gitea", Dir: dir}
	if got := Token(cfg, web); got != "from-helper" {
		t.Errorf("from git's helper: %q", got)
	}
	if got := Token(cfg, other); got != "" {
		t.Errorf("another host: %q, want none", got)
	}
	t.Setenv("GITEA_TOKEN", "from-gitea-token")
	if got := Token(cfg, web); got != "from-gitea-token" {
		t.Errorf("GITEA_TOKEN: %q", got)
	}
	if got := Token(Config{Kind: "github", Dir: dir}, other); got != "" {
		t.Errorf("a github forge read GITEA_TOKEN: %q", got)
	}
	t.Setenv("ARCHIPLAN_FORGE_TOKEN", "from-archiplan")
	if got := Token(cfg, web); got != "from-archiplan" {
		t.Errorf("ARCHIPLAN_FORGE_TOKEN: %q", got)
	}
	cfg.Token = "given"
	if got := Token(cfg, web); got != "given" {
		t.Errorf("the configuration's: %q", got)
	}
}

// The marker is a line of its own that a marker's text cannot break out of.
func TestMarker(t *testing.T) {
	if got := MarkerLine("pre-->view\nx"); strings.Count(got, "-->") != 1 || strings.Contains(got, "\n") || !strings.HasSuffix(got, " -->") {
		t.Errorf("MarkerLine = %q", got)
	}
	body := Marked("preview", "text")
	if !HasMarker(body, "preview") || HasMarker(body, "other") || HasMarker(body, "pre") {
		t.Errorf("HasMarker on %q", body)
	}
	if HasMarker("quoting "+MarkerLine("preview")+" inline", "preview") {
		t.Error("a marker quoted inside a line counts")
	}
}

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]string{"https://g.example.com/": "https://g.example.com",
		"https://g.example.com/sub/?x=1#f": "https://g.example.com/sub", "http://127.0.0.1:3000": "http://127.0.0.1:3000",
		"http://localhost:3000/": "http://localhost:3000", "http://[::1]:3000": "http://[::1]:3000"} {
		u, err := CheckURL(raw)
		if err != nil || u.String() != want {
			t.Errorf("%s: %v %v, want %s", raw, u, err, want)
		}
	}
	for _, raw := range []string{"http://g.example.com", "g.example.com", "ssh://g.example.com", "https://u:p@g.example.com", "https://"} {
		if _, err := CheckURL(raw); !errors.Is(err, ErrForge) {
			t.Errorf("%s: %v, want refused", raw, err)
		}
	}
}
