package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"archiplan": func() int { return run(os.Args[1:], os.Stdout, os.Stderr) },
	}))
}

// The command line, as a user runs it, in real temporary git repositories.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			example, err := os.ReadFile("../../testdata/models/example.archimate")
			if err != nil {
				return err
			}
			env.Setenv("GIT_AUTHOR_NAME", "Test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			return os.WriteFile(env.WorkDir+"/example.archimate", example, 0o644)
		},
	})
}
