package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/internal/refdocs"
	"github.com/archiplan/archiplan/internal/settings"
	mcpserver "github.com/archiplan/archiplan/mcp"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// update (journey_test.go) also writes docs/reference/*.md from the code

// commandCodes are the codes the command line answers with itself, for the reference.
var commandCodes = []struct{ Code, Meaning string }{
	{mcpserver.ErrBadPlanName.Error(), "MCP `submit_plan`: the NAME is not a plain name (letters, digits, `-` and `_`, starting with a letter or digit, at most 100)"},
	{mcpserver.ErrPlanExists.Error(), "MCP `submit_plan`: the inbox holds a plan of that NAME already, in any state: submit it under a new NAME"},
	{mcpserver.ErrUnsafeInbox.Error(), "MCP `submit_plan`: the inbox is not a plain folder (a symbolic link, ...)"},
	{ErrNoQuestions.Error(), "`answer`: the plan asks nothing to answer (it is not needs_clarification, or has no questions)"},
	{ErrAnswers.Error(), "`answer`: the answers given do not match the plan's questions one for one"},
}

// The reference pages under docs/reference are what the code makes of itself: the commands,
// codes, ops and configuration keys. A page that is not is stale; -update writes them again.
func TestReference_Current(t *testing.T) {
	pages, err := refdocs.Pages(refdocs.Input{Root: newRoot(io.Discard, io.Discard), CommandCodes: commandCodes})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..")
	for name, want := range pages {
		file := filepath.Join(root, filepath.FromSlash(name))
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): go test ./cmd/archiplan -run TestReference -update", name, err)
		}
	}
	// nothing else lies there: a page of a name no longer generated is stale too
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(refdocs.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := pages[refdocs.Dir+"/"+e.Name()]; !ok {
			t.Errorf("%s/%s is not generated: remove it", refdocs.Dir, e.Name())
		}
	}
}

// Every key the commands read is in settings.Keys (so on the reference page), and every key
// there is read; the defaults the page shows are the code's.
func TestReference_ConfigKeys(t *testing.T) {
	top := regexp.MustCompile(`\.v\.(?:Get\w*|IsSet)\("([a-z_.]+)"\)`)
	planner := regexp.MustCompile(`\b(?:s|settings|keys)\.Get\w*\("([a-z_]+)"\)`)
	read := map[string]bool{}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range top.FindAllStringSubmatch(string(src), -1) {
			read[m[1]] = true
		}
		for _, m := range planner.FindAllStringSubmatch(string(src), -1) {
			read["planner."+m[1]] = true
		}
	}
	var listed []string
	for _, k := range settings.Keys {
		listed = append(listed, k.Name)
		if !read[k.Name] {
			t.Errorf("settings.Keys lists %s, which no command reads", k.Name)
		}
	}
	var missing []string
	for k := range read {
		if !slices.Contains(listed, k) && !strings.HasPrefix(k, "planners.") {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the commands read keys settings.Keys does not list: %v", missing)
	}
	for name, want := range map[string]time.Duration{
		"hooks.timeout": hooks.DefaultTimeout, "remote_timeouts.connect": store.DefaultNet.Connect,
		"remote_timeouts.idle": store.DefaultNet.Idle, "remote_timeouts.total": store.DefaultNet.Total,
	} {
		if got, err := time.ParseDuration(settings.Default(name)); err != nil || got != want {
			t.Errorf("%s: the page says default %q, the code %s", name, settings.Default(name), want)
		}
	}
}

// The refusals' sentinels of packages that import nothing of plans carry the codes plans lists.
func TestReference_RefusalSentinels(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range plans.Codes {
		seen[string(c.Code)] = true
	}
	for _, c := range plans.Refusals {
		if seen[string(c.Code)] || c.Meaning == "" {
			t.Errorf("refusal %s: a code of another meaning, or no meaning", c.Code)
		}
		seen[string(c.Code)] = true
	}
	for _, c := range commandCodes {
		if seen[c.Code] {
			t.Errorf("%s is listed twice", c.Code)
		}
	}
	if inbox.ErrNameTaken.Error() != string(plans.InboxNameTaken) {
		t.Fatalf("inbox.ErrNameTaken is %q, not %s", inbox.ErrNameTaken, plans.InboxNameTaken)
	}
}
