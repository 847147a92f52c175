package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

func gitConfig(t *testing.T, text string) *format.Config {
	t.Helper()
	c := format.New()
	if err := format.NewDecoder(bytes.NewBufferString(text)).Decode(c); err != nil {
		t.Fatal(err)
	}
	return c
}

// git's reading of core.fsync: each value starts again from git's default (packs only), "none"
// empties the set, "-NAME" removes; a commit is synced when loose objects or references are.
func TestFsyncWanted(t *testing.T) {
	for _, c := range []struct {
		layers []string
		want   bool
	}{
		{nil, false},
		{[]string{"[core]\n\tbare = false\n"}, false},
		{[]string{"[core]\n\tfsync = committed\n"}, true},
		{[]string{"[core]\n\tfsync = added\n"}, true},
		{[]string{"[core]\n\tfsync = all\n"}, true},
		{[]string{"[core]\n\tfsync = objects\n"}, true},
		{[]string{"[core]\n\tfsync = reference\n"}, true},
		{[]string{"[core]\n\tfsync = loose-object\n"}, true},
		{[]string{"[core]\n\tfsync = pack,pack-metadata,index\n"}, false},
		{[]string{"[core]\n\tfsync = all,-loose-object,-reference\n"}, false},
		{[]string{"[core]\n\tfsync = committed,none\n"}, false},
		{[]string{"[core]\n\tfsync = none,Reference\n"}, true},
		{[]string{"[core]\n\tfsyncObjectFiles = true\n"}, true},
		{[]string{"[core]\n\tfsyncObjectFiles = false\n"}, false},
		{[]string{"[core]\n\tfsyncobjectfiles\n"}, true},
		// the repository's value overrides the user's: the last core.fsync wins whole
		{[]string{"[core]\n\tfsync = committed\n", "[core]\n\tfsync = pack\n"}, false},
		{[]string{"[core]\n\tfsync = pack\n", "[core]\n\tfsync = committed\n"}, true},
		{[]string{"[core]\n\tfsync = committed\n\tfsync = index\n"}, false},
	} {
		var layers []*format.Config
		for _, l := range c.layers {
			layers = append(layers, gitConfig(t, l))
		}
		if got := fsyncWanted(layers...); got != c.want {
			t.Errorf("%q: synced %v, want %v", c.layers, got, c.want)
		}
	}
}

// An apply syncs nothing where git's config does not ask for it (git's default: a `git commit`
// makes no fsync either), and syncs every file it writes, its objects and the branch where it
// does. Either way the commit and the work tree are whole.
func TestPublish_SyncsAsGitIsConfigured(t *testing.T) {
	home := t.TempDir() // no user config of the machine's may decide
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, c := range []struct {
		config []string // git config of the repository
		synced bool
	}{
		{nil, false},
		{[]string{"core.fsync", "committed"}, true},
		{[]string{"core.fsyncObjectFiles", "true"}, true},
		{[]string{"core.fsync", "pack,index"}, false},
	} {
		ws, dir := newRepo(t)
		if c.config != nil {
			run(t, dir, append([]string{"config"}, c.config...)...)
			ws, _ = Open(dir, "model.archimate") // the config is read once per workspace
		}
		before := fsyncs.Load()
		h, err := publish(t, ws, 2)
		if err != nil {
			t.Fatal(err)
		}
		n := fsyncs.Load() - before
		if c.synced && n < 8 || !c.synced && n != 0 {
			t.Errorf("config %v: the apply made %d syncs (want synced: %v)", c.config, n, c.synced)
		}
		quiet := func(out string) string { // git warns that core.fsyncObjectFiles is deprecated
			var keep []string
			for _, l := range strings.Split(out, "\n") {
				if !strings.HasPrefix(l, "warning:") {
					keep = append(keep, l)
				}
			}
			return strings.TrimSpace(strings.Join(keep, "\n"))
		}
		if got := quiet(run(t, dir, "rev-parse", "HEAD")); got != h {
			t.Errorf("config %v: HEAD %s, want %s", c.config, got, h)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "model.archimate")); string(data) != "v2\n" {
			t.Errorf("config %v: the work tree holds %q", c.config, data)
		}
		if st := quiet(run(t, dir, "status", "--porcelain")); st != "" {
			t.Errorf("config %v: git status shows %q", c.config, st)
		}
		run(t, dir, "fsck", "--no-dangling")
	}
}
