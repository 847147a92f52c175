package main

import (
	"github.com/archiplan/archiplan/forge"
	// the forge clients forge.Open knows
	_ "github.com/archiplan/archiplan/forge/gitea"
	_ "github.com/archiplan/archiplan/forge/github"
	_ "github.com/archiplan/archiplan/forge/gitlab"
)

// forgeConfig is the forge section of the configuration (forge.kind, forge.url, forge.repo);
// the zero Config (Kind "") when there is none. dir is where git's credential helper is asked
// for a token when the environment has none.
func (c *config) forgeConfig(dir string) forge.Config {
	return forge.Config{Kind: c.v.GetString("forge.kind"), URL: c.v.GetString("forge.url"),
		Repo: c.v.GetString("forge.repo"), Dir: dir}
}
