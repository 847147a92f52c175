package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// workspaceError maps errors of the workspace to the contract's exit statuses.
func workspaceError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, daemon.ErrRefused), errors.Is(err, daemon.ErrConflict), errors.Is(err, daemon.ErrAlreadyReverted),
		errors.Is(err, daemon.ErrNoSuchPlan), errors.Is(err, store.ErrDirty):
		return codedError{exitRefused, err}
	}
	return codedError{exitNoUsable, err}
}

func (c *config) workspace() (*store.Workspace, error) {
	ws, err := store.Open(c.repo, c.v.GetString("model"))
	if err != nil {
		return nil, codedError{exitNoUsable, err}
	}
	return ws, nil
}

// openWorkspace reads the configuration and opens the workspace a command works on.
func openWorkspace(cmd *cobra.Command) (*config, *store.Workspace, error) {
	cfg, err := newConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	ws, err := cfg.workspace()
	if err != nil {
		return nil, nil, err
	}
	return cfg, ws, nil
}

func (c *config) hooks(ws *store.Workspace) hooks.Runner {
	return hooks.Runner{Dir: filepath.Join(ws.Root, "hooks"), Timeout: c.v.GetDuration("hooks.timeout")}
}

func initCmd() *cobra.Command {
	var model string
	c := &cobra.Command{
		Use:   "init [DIR] [--model FILE]",
		Short: "Make DIR a workspace: git repository, model (FILE, or the example), plans/, config, first commit",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			seed, err := archixml.Example().Save()
			if err != nil {
				return err
			}
			if model != "" {
				if seed, err = os.ReadFile(model); err != nil {
					return usageError{err}
				}
				if _, err := archixml.Load(seed); err != nil {
					return codedError{exitNoUsable, fmt.Errorf("%s: %w", model, err)}
				}
			}
			ws, commit, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
				Author: store.Signature{Name: "archiplan", Email: "archiplan@localhost"}})
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "workspace %s: model %s, inbox plans/, HEAD %s\n", ws.Root, ws.Model, short(commit))
			return nil
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model to start from (default: the built-in example)")
	return c
}

func short(h string) string { return store.Short(h) }

func applyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "apply PLAN",
		Short: "Validate and apply one plan now, as an approval would: one commit",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return usageError{err}
			}
			scope, err := scopeOf(args[0])
			if err != nil {
				return usageError{err}
			}
			name := planName(args[0])
			req := daemon.Request{Name: name, File: args[0], Raw: raw, Options: plans.Options{Policy: cfg.policy(), Scope: scope},
				ApprovedBy: ws.Identity(), Hooks: cfg.hooks(ws)}
			// a preview binds the approval: its report names the bytes and the model it saw
			if rep, err := os.ReadFile(reportPath(args[0])); err == nil {
				var r plans.Report
				if json.Unmarshal(rep, &r) == nil {
					req.Previewed = &r
				}
			}
			if r := cfg.remoteOf(); r.Pull {
				if err := daemon.Pull(context.Background(), ws, r); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "archiplan: pull:", err)
				}
			}
			res, err := daemon.Apply(context.Background(), ws, req)
			out := cmd.OutOrStdout()
			if errors.Is(err, daemon.ErrAlreadyApplied) {
				fmt.Fprintf(out, "%s was applied before, in commit %s; nothing to do\n", res.PlanID, short(res.Commit))
				return nil
			}
			if res != nil && res.Report != nil && err != nil {
				for _, f := range res.Report.Errors {
					fmt.Fprintf(out, "  error %s: %s\n", f.Code, f.Message)
				}
			}
			if err != nil {
				return workspaceError(err)
			}
			fmt.Fprintf(out, "applied %s in commit %s\n", res.PlanID, short(res.Commit))
			if err := pushAfter(cmd, cfg, ws, req.Options); err != nil {
				return err
			}
			if res.HookNote != "" {
				fmt.Fprintln(out, res.HookNote)
			}
			return nil
		},
	}
	return c
}

// pushAfter pushes what a command committed, when the workspace pushes: a plan the remote made
// stale is reported (its local commit is gone), an unreachable remote leaves the commit to push
// later.
func pushAfter(cmd *cobra.Command, cfg *config, ws *store.Workspace, opts plans.Options) error {
	return pushTo(cmd, cfg.remoteOf(), ws, opts)
}

func pushTo(cmd *cobra.Command, r daemon.Remote, ws *store.Workspace, opts plans.Options) error {
	if !r.Push || r.Name == "" {
		return nil
	}
	res, err := daemon.Sync(context.Background(), ws, r, opts)
	out := cmd.OutOrStdout()
	if res != nil {
		if res.Pushed {
			fmt.Fprintf(out, "pushed to %s\n", r.Name)
		}
		for _, d := range res.Dropped {
			fmt.Fprintf(out, "%s: %s\n", d.PlanID, d.Reason)
		}
		if len(res.Dropped) > 0 {
			return silent{codedError{exitRefused, errors.New("stale after the remote moved")}}
		}
	}
	if err != nil {
		fmt.Fprintf(out, "not pushed (the commit stays local; archiplan pushes it later): %v\n", err)
	}
	return nil
}

// planName is NAME of plans/NAME.json (or NAME.approved, NAME.json.approved).
func planName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".approved", ".json", ".rejected"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

func reportPath(planPath string) string {
	return filepath.Join(filepath.Dir(planPath), planName(planPath)+".report.json")
}

func revertCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revert PLAN-ID|COMMIT",
		Short: "Undo one applied plan in a new commit",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			if r := cfg.remoteOf(); r.Pull {
				if err := daemon.Pull(context.Background(), ws, r); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "archiplan: pull:", err)
				}
			}
			res, err := daemon.Revert(context.Background(), ws, args[0], ws.Identity(), nil)
			if err != nil {
				return workspaceError(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "reverted %s (applied in %s) in commit %s\n", res.PlanID, short(res.RevertsCommit), short(res.Commit))
			return pushAfter(cmd, cfg, ws, optionsOf(cfg))
		},
	}
}

// LogEntry is one line of `archiplan log`.
type LogEntry struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Kind    string `json:"kind"` // apply, revert, git-revert
	PlanID  string `json:"plan_id"`
	Summary string `json:"summary"`
	Author  string `json:"author"`
	Reverts string `json:"reverts,omitempty"` // the commit a revert undoes
}

func logCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "log [--json]",
		Short: "Applied and reverted plans, read back from git",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			hist, err := ws.History(nil)
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			applies := map[string]string{} // apply commit -> plan id
			for _, c := range hist {
				if id := c.Trailers[store.TrailerPlanID]; id != "" {
					applies[c.Hash] = id
				}
			}
			entries := []LogEntry{}
			for _, c := range hist {
				e := LogEntry{Commit: c.Hash, Date: c.When.UTC().Format("2006-01-02T15:04:05Z"), Author: c.Author}
				switch {
				case c.Trailers[store.TrailerPlanID] != "":
					e.Kind, e.PlanID, e.Summary = "apply", c.Trailers[store.TrailerPlanID], strings.TrimPrefix(c.Subject, "plan: ")
				case c.Trailers[store.TrailerRevertsPlan] != "":
					e.Kind, e.PlanID, e.Reverts = "revert", c.Trailers[store.TrailerRevertsPlan], c.Trailers[store.TrailerRevertsCommit]
					e.Summary = strings.TrimPrefix(c.Subject, "revert: ")
				case applies[c.GitReverts] != "":
					e.Kind, e.PlanID, e.Reverts, e.Summary = "git-revert", applies[c.GitReverts], c.GitReverts, c.Subject
				default:
					continue
				}
				entries = append(entries, e)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				b, _ := json.MarshalIndent(map[string]any{"format_version": "1", "entries": entries}, "", "  ")
				fmt.Fprintln(out, string(b))
				return nil
			}
			for _, e := range entries {
				fmt.Fprintf(out, "%s %s %-10s %s  %s\n", short(e.Commit), e.Date, e.Kind, e.PlanID, e.Summary)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func syncCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sync",
		Short: "Pull from and push to the team's remote now (what the daemon does on its timer)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			r := cfg.remoteOf()
			if r.Name == "" {
				return usageError{errors.New("no remote configured: set remote (and pull, push) in .archiplan.yaml")}
			}
			if err := daemon.Pull(context.Background(), ws, r); err != nil {
				return codedError{exitNoUsable, err}
			}
			r.Push = true
			return pushTo(cmd, r, ws, optionsOf(cfg))
		},
	}
}
