package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/settings"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
	"github.com/archiplan/archiplan/schemas"
	"github.com/archiplan/archiplan/store"
)

// envKeys are the settings an ARCHIPLAN_* environment variable may override (ARCHIPLAN_ and the
// key in capitals, "." as "_"): how long and how much, never where, who or what is allowed. The
// model, the inbox, the review page's address and http_remote, the policy, strict, the planner's
// kind, command, base URL and key variable, the planner group and the remote are read from
// .archiplan.yaml (and flags) only, so that an environment (a service unit's, a shell's) cannot
// open the page beyond loopback, loosen the policy, or run another planner.
var envKeys = settings.EnvKeys()

// config is the workspace's configuration: .archiplan.yaml at the repository's root (or
// --config), the ARCHIPLAN_* environment variables of envKeys, then flags.
type config struct {
	v    *viper.Viper
	repo string
	// oneShot: the command reads the model once and exits, so loadModel sets the collector for
	// that (oneShotGC)
	oneShot bool
}

func newConfig(cmd *cobra.Command) (*config, error) {
	v := settings.New()
	v.SetEnvPrefix("ARCHIPLAN")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, k := range envKeys {
		_ = v.BindEnv(k) // only these: see envKeys
	}
	repo, _ := cmd.Flags().GetString("repo")
	if repo == "" {
		repo = "."
	} else if fi, err := os.Stat(repo); err != nil || !fi.IsDir() {
		return nil, codedError{exitNoUsable, fmt.Errorf("--repo %s: no such directory", repo)}
	}
	file, _ := cmd.Flags().GetString("config")
	if file == "" {
		abs, _ := filepath.Abs(repo)
		if root, err := store.FindRoot(abs); err == nil {
			candidate := filepath.Join(root, settings.File)
			if _, err := os.Stat(candidate); err == nil {
				file = candidate
			}
		}
	}
	if file != "" {
		v.SetConfigFile(file)
		data, err := os.ReadFile(file)
		if err == nil {
			err = settings.Read(v, data) // as a pulled commit's configuration is read
		}
		if err != nil {
			return nil, usageError{fmt.Errorf("read config %s: %w", file, err)}
		}
	}
	// the policy names ops of the vocabulary, checked here once: a misspelt op would otherwise
	// refuse every plan that uses it with POLICY_OP_NOT_ALLOWED, and nobody would see why
	for _, op := range v.GetStringSlice("policy.allowed_ops") {
		if _, ok := schemas.OpByName(schemas.Newest, schemas.OpName(op)); !ok {
			return nil, usageError{fmt.Errorf("policy.allowed_ops: %q is no op of the plan vocabulary (archiplan schema lists them)", op)}
		}
	}
	return &config{v: v, repo: repo}, nil
}

// remoteOf is the team remote the configuration names (the zero Remote when none).
func (c *config) remoteOf() ledger.Remote {
	return ledger.Remote{Name: c.v.GetString("remote"), Pull: c.v.GetBool("pull"), Push: c.v.GetBool("push"),
		Inbox: c.v.GetString("inbox"), Net: store.NetOptions{Connect: c.v.GetDuration("remote_timeouts.connect"),
			Idle: c.v.GetDuration("remote_timeouts.idle"), Total: c.v.GetDuration("remote_timeouts.total")}}
}

// inbox is the workspace's inbox, with its records under .git/.
func (c *config) inbox(ws *store.Workspace) *inbox.Inbox {
	return inbox.New(filepath.Join(ws.Root, filepath.FromSlash(c.v.GetString("inbox"))), ws.GitPath("archiplan/inbox"))
}

// ledger is the operation on the workspace, as the configuration sets it up.
func (c *config) ledger(ws *store.Workspace) *ledger.Ledger {
	return ledger.New(ledger.Config{Workspace: ws, Inbox: c.inbox(ws), Options: optionsOf(c), Hooks: c.hooks(ws),
		ApprovedBy: ws.Identity(), Remote: c.remoteOf(), Adopted: c.adopt()})
}

// adopt says whether planners write the inbox as other users (planner_group): plans are adopted
// when previewed and only adopted plans are applied.
func (c *config) adopt() bool { return c.v.GetString("planner_group") != "" }

// file is the configuration file read ("" when none).
func (c *config) file() string { return c.v.ConfigFileUsed() }

// optionsOf is the check options the configuration asks for.
func optionsOf(c *config) plans.Options {
	o := plans.Options{Policy: c.policy(), Strict: c.v.GetBool("strict")}
	if r := c.rules(); r != nil {
		o.Rules = r
	}
	return o
}

// rules are the workspace's rules as code (policy/*.rego, policy/owners.yaml); nil without them.
// A broken policy is returned too: it refuses every plan with its reason.
func (c *config) rules() *policy.Rules {
	abs, _ := filepath.Abs(c.repo)
	root, err := store.FindRoot(abs)
	if err != nil {
		return nil
	}
	r := policy.Load(root)
	if r != nil && c.v.IsSet("policy.timeout") {
		r.Timeout = c.v.GetDuration("policy.timeout")
	}
	return r
}

func (c *config) policy() plans.Policy {
	return plans.Policy{
		AllowedOps:               c.v.GetStringSlice("policy.allowed_ops"),
		AllowedElementTypes:      c.v.GetStringSlice("policy.allowed_element_types"),
		AllowedRelationshipTypes: c.v.GetStringSlice("policy.allowed_relationship_types"),
		ProtectedFolders:         c.v.GetStringSlice("policy.protected_folders"),
	}
}

// loadModel reads the model a plan is checked against: the file given with --model, or the
// workspace's model as committed at HEAD.
func (c *config) loadModel(modelFile string) (*archixml.Model, plans.ModelInfo, error) {
	if modelFile != "" {
		if c.oneShot {
			oneShotGCOf(modelFile)
		}
		data, err := os.ReadFile(modelFile)
		if err != nil {
			return nil, plans.ModelInfo{}, codedError{exitNoUsable, err}
		}
		m, err := archixml.LoadOwned(data) // data is read for the model alone: spared a copy
		if err != nil {
			return nil, plans.ModelInfo{}, codedError{exitNoUsable, fmt.Errorf("load %s: %w", modelFile, err)}
		}
		return m, plans.ModelInfo{Path: modelFile}, nil
	}
	ws, err := store.Open(c.repo, c.v.GetString("model"))
	if err != nil {
		return nil, plans.ModelInfo{}, codedError{exitNoUsable, err}
	}
	if c.oneShot {
		oneShotGC(ws)
	}
	head, err := ws.ReadModel()
	if err != nil {
		return nil, plans.ModelInfo{}, codedError{exitNoUsable, err}
	}
	m, err := archixml.LoadOwned(head.Data) // read afresh, kept by nothing else: spared a copy (42 MB at 100k)
	if err != nil {
		return nil, plans.ModelInfo{}, codedError{exitNoUsable, fmt.Errorf("load %s at %s: %w", ws.Model, head.Commit[:12], err)}
	}
	return m, plans.ModelInfo{Path: ws.Model, Commit: head.Commit, Blob: head.Blob}, nil
}

// contextOf reads NAME.context.json beside a plan file, when there is one (safely, as every inbox
// file is read): the plan's scope.
func contextOf(planPath string) ([]byte, []string, error) {
	name := inbox.NameOf(planPath)
	if name == "" {
		return nil, nil, nil
	}
	data, err := inbox.ReadFile(filepath.Join(filepath.Dir(planPath), inbox.ContextFile(name)), inbox.MaxContextBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the plan's context: %w", err)
	}
	scope, err := plans.ScopeFromContext(data)
	return data, scope, err
}
