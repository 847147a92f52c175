package main

import (
	"errors"
	"testing"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/internal/settings"
)

// The forge section of .archiplan.yaml opens the client it names; a kind no client knows, a
// plain-http address beyond loopback and a repository without its owner are refused.
func TestForgeConfig_Opens(t *testing.T) {
	t.Setenv("ARCHIPLAN_FORGE_TOKEN", "t0ken")
	for yaml, kind := range map[string]string{
		"forge:\n  kind: gitea\n  url: https://gitea.example.com\n  repo: team/models\n": "gitea",
		"forge:\n  kind: forgejo\n  url: https://codeberg.org\n  repo: team/models\n":    "gitea",
		"forge:\n  kind: github\n  repo: team/models\n":                                  "github",
		"forge:\n  kind: gitlab\n  repo: group/sub/models\n":                             "gitlab",
	} {
		v, err := settings.Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		f, err := forge.Open((&config{v: v}).forgeConfig(t.TempDir()))
		if err != nil || f.Kind() != kind {
			t.Errorf("%s: %v %v, want a %s client", yaml, f, err, kind)
		}
	}
	for _, yaml := range []string{
		"forge:\n  kind: bitbucket\n  repo: team/models\n",
		"forge:\n  kind: gitea\n  url: http://gitea.example.com\n  repo: team/models\n",
		"forge:\n  kind: github\n  repo: models\n",
		"model: model.archimate\n",
	} {
		v, _ := settings.Parse([]byte(yaml))
		if _, err := forge.Open((&config{v: v}).forgeConfig(t.TempDir())); !errors.Is(err, forge.ErrForge) {
			t.Errorf("%s: %v, want refused", yaml, err)
		}
	}
}
