package proc

import (
	"os"
	"sort"
)

// Passed are the variables of archiplan's own environment an untrusted command gets: enough to
// find programs, a home, a language and a temporary folder; never a key (OPENAI_API_KEY,
// ARCHIPLAN_GIT_TOKEN, ...), which go only where they are meant for.
var Passed = []string{"PATH", "HOME", "LANG", "TMPDIR"}

// Env is the whole environment of an untrusted command (a hook, the command planner): the Passed
// variables archiplan has, then extra, sorted by name. Nothing else of archiplan's environment is
// inherited.
func Env(extra map[string]string) []string {
	var env []string
	for _, k := range Passed {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}
