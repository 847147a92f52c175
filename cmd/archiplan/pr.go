package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/forge"
	_ "github.com/archiplan/archiplan/forge/gitea" // the clients register with forge.Open
	_ "github.com/archiplan/archiplan/forge/github"
	_ "github.com/archiplan/archiplan/forge/gitlab"
	"github.com/archiplan/archiplan/pullreq"
	"github.com/archiplan/archiplan/store"
)

// openForge is the forge the configuration names (forge.kind, forge.url, forge.repo), its token
// from the environment or git's credential helper; nil, nil when none is configured.
func (c *config) openForge(ws *store.Workspace) (forge.Forge, error) {
	kind := c.v.GetString("forge.kind")
	if kind == "" {
		return nil, nil
	}
	f, err := forge.Open(forge.Config{Kind: kind, URL: c.v.GetString("forge.url"), Repo: c.v.GetString("forge.repo"), Dir: ws.Root})
	if err != nil {
		return nil, usageError{err}
	}
	return f, nil
}

// flow is the pull-request workflow as the configuration sets it up: a forge and the remote
// that is its repository are required.
func (c *config) flow(ws *store.Workspace) (*pullreq.Flow, error) { return c.flowOn(ws, c.ledger(ws)) }

// flowOn is the workflow on a ledger already made (the daemon's).
func (c *config) flowOn(ws *store.Workspace, led *ledger.Ledger) (*pullreq.Flow, error) {
	f, err := c.openForge(ws)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, usageError{errors.New("no forge configured: set forge.kind, forge.url and forge.repo in " + ".archiplan.yaml (docs/forges.md)")}
	}
	remote := c.remoteOf()
	if remote.Name == "" {
		return nil, usageError{errors.New("no remote configured: set remote (the git remote that is the forge's repository) in .archiplan.yaml")}
	}
	return &pullreq.Flow{Ledger: led, Forge: f, Remote: remote.Name, Base: c.v.GetString("forge.base"),
		Approvers: c.v.GetStringSlice("forge.approvers")}, nil
}

func prCmd() *cobra.Command {
	var apply, sync, revert bool
	c := &cobra.Command{
		Use:   "pr NAME | pr --apply NAME | pr --revert PLAN-ID|COMMIT | pr --apply --revert PLAN-ID|COMMIT | pr --sync",
		Short: "A plan as a pull request on the team's forge; applied when approved there",
		Long: `archiplan pr NAME previews plans/NAME.json (as the daemon does) and pushes it, its preview and the
preview's pictures to the branch archiplan/plan/NAME, on the commit it was previewed on; it opens the
pull request (the description is the preview) or, when one is open, updates it and says what changed.

archiplan pr --apply NAME applies the plan when the forge says its pull request is approved: by
someone other than its author (forge.approvers and policy/ owners when set), on the head archiplan
pushed (a push after the approval voids it), the base still the commit previewed on (else the pull
request is marked stale). The apply commit is the ledger's, with the approver's account in
Approved-By; the branch is set to it and the forge merges it. --sync does it for every plan's pull
request; the daemon's loop, cron or CI may run it.

archiplan pr --revert PLAN-ID|COMMIT proposes the revert of an applied plan the same way (archiplan
revert does it when deliver is pull-request): the ledger makes the revert without moving the
branch, its review (words, pictures, Archi's findings) is the description, on the branch
archiplan/revert/PLAN-ID; with --apply (or --sync) it is made, one commit with the approver's
account in Approved-By, when approved on the head previewed with the base unmoved.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if sync && (len(args) != 0 || apply || revert) || !sync && len(args) != 1 {
				return usageError{errors.New("pr takes one plan NAME, or --sync alone (--revert: one PLAN-ID or COMMIT)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			flow, err := cfg.flow(ws)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			ctx := cmd.Context()
			if sync {
				outs, err := flow.Sync(ctx)
				for _, o := range outs {
					printOutcome(out, o)
				}
				if err != nil {
					return codedError{exitNoUsable, err}
				}
				return nil
			}
			name := args[0]
			if revert && !apply {
				return openRevert(ctx, out, flow, name)
			}
			if revert {
				o, err := flow.ApplyRevert(ctx, name)
				return prOutcome(out, o, err)
			}
			if !apply {
				st, err := flow.Open(ctx, name)
				if err != nil {
					return codedError{exitRefused, err}
				}
				fmt.Fprintln(out, prLine(st))
				return nil
			}
			o, err := flow.Apply(ctx, name)
			return prOutcome(out, o, err)
		},
	}
	c.Flags().BoolVar(&apply, "apply", false, "apply the plan if its pull request is approved on the head previewed")
	c.Flags().BoolVar(&sync, "sync", false, "look at every plan's pull request and apply the approved ones")
	c.Flags().BoolVar(&revert, "revert", false, "the revert of an applied plan (PLAN-ID or its apply commit) as a pull request")
	return c
}

// prLine says which pull request shows a plan.
func prLine(st *pullreq.State) string {
	return fmt.Sprintf("pull request #%d %s: plan %s %s, branch %s at %s", st.Number, st.URL, st.Name, st.Verdict, st.Branch, store.Short(st.Head))
}

// deliverLanded is deliver: pull-request for a plan that ask or MCP's submit_plan just put in the
// inbox: the daemon's delivery (pullreq.Flow.Deliver), so that it needs no daemon to run. It says
// which pull request shows it ("" with deliver: inbox, or when the plan is not valid).
func deliverLanded(ctx context.Context, cfg *config, ws *store.Workspace, name string) (string, error) {
	if prs, err := cfg.deliversPRs(); !prs || err != nil {
		return "", err
	}
	flow, err := cfg.flow(ws)
	if err != nil {
		return "", err
	}
	st, err := flow.Deliver(ctx, name)
	if err != nil || st == nil {
		return "", err
	}
	return prLine(st), nil
}

// openRevert proposes the revert of an applied plan as a pull request and says which.
func openRevert(ctx context.Context, out io.Writer, flow *pullreq.Flow, target string) error {
	st, err := flow.OpenRevert(ctx, target)
	if err != nil {
		return workspaceError(err)
	}
	fmt.Fprintf(out, "pull request #%d %s: revert of %s (applied in %s), branch %s at %s\n", st.Number, st.URL, st.Reverts,
		store.Short(st.RevertsCommit), st.Branch, store.Short(st.Head))
	return nil
}

// prOutcome prints what pr --apply did and says it in the exit code.
func prOutcome(out io.Writer, o *pullreq.Outcome, err error) error {
	if errors.Is(err, pullreq.ErrNoPR) || errors.Is(err, pullreq.ErrNoRevertPR) {
		return usageError{err}
	}
	if err != nil {
		return codedError{exitNoUsable, err}
	}
	printOutcome(out, o)
	if o.State == pullreq.Stale || o.State == pullreq.Closed {
		return codedError{exitRefused, silent{errors.New(o.State)}}
	}
	return nil
}

func printOutcome(out io.Writer, o *pullreq.Outcome) {
	if o.Reverts != "" {
		o.Name = "revert of " + o.Reverts
	}
	switch o.State {
	case pullreq.Applied:
		merged := "merged"
		if !o.Merged {
			merged = "not merged: " + o.Warning
		}
		fmt.Fprintf(out, "%s (#%d): applied as %s, approved by %s; %s\n", o.Name, o.Number, store.Short(o.Commit), strings.Join(o.By, ", "), merged)
	default:
		fmt.Fprintf(out, "%s (#%d): %s: %s\n", o.Name, o.Number, o.State, termLine(o.Reason))
	}
}

func ciCmd() *cobra.Command {
	var base, head string
	var number int
	c := &cobra.Command{
		Use:   "ci [--base SHA] [--head SHA] [--pr N]",
		Short: "Check a pull request in the forge's CI: plans previewed, hand edits of the model reviewed; one comment, one status",
		Long: `archiplan ci runs on a checkout of a pull request's head. For each plan the pull request adds or
changes (.archiplan/proposed/NAME/NAME.json) it writes the preview, as the inbox would; for a hand
edit of the model, the review of base..head and what Archi's validator newly finds. It writes them as
one comment on the pull request (edited in place on each push), sets the commit status
archiplan/preview (success when valid), prints the comment, and exits 1 when not valid.

The base, head and number default to the CI's variables: GitHub and Gitea Actions' event
(GITHUB_EVENT_PATH: pull_request.base.sha, head.sha, number), GitLab CI's
(CI_MERGE_REQUEST_DIFF_BASE_SHA, CI_COMMIT_SHA, CI_MERGE_REQUEST_IID). Without a forge configured
it only prints.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			env := ciEnv()
			if base == "" {
				base = env.base
			}
			if head == "" {
				head = env.head
			}
			if number == 0 {
				number = env.number
			}
			if base == "" {
				return usageError{errors.New("no base commit: --base SHA (or run in a pull request's CI)")}
			}
			f, err := cfg.openForge(ws)
			if err != nil {
				return err
			}
			ci := &pullreq.CI{Workspace: ws, Forge: f, Options: optionsOf(cfg), Base: base, Head: head, Number: number}
			res, err := ci.Run(cmd.Context())
			if res != nil {
				fmt.Fprint(cmd.OutOrStdout(), res.Comment)
			}
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			if !res.Valid() {
				return codedError{exitRefused, fmt.Errorf("not valid: %s", strings.Join(res.Errors, "; "))}
			}
			return nil
		},
	}
	c.Flags().StringVar(&base, "base", "", "the base commit (default: the CI's)")
	c.Flags().StringVar(&head, "head", "", "the head commit (default: the CI's, else HEAD)")
	c.Flags().IntVar(&number, "pr", 0, "the pull request's number (default: the CI's; 0: no comment)")
	return c
}

type ciVars struct {
	base, head string
	number     int
}

// ciEnv reads a pull request's base, head and number from the CI's environment: GitLab CI's
// variables, or GitHub and Gitea Actions' event file.
func ciEnv() ciVars {
	if iid := os.Getenv("CI_MERGE_REQUEST_IID"); iid != "" {
		n, _ := strconv.Atoi(iid)
		return ciVars{base: os.Getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA"), head: os.Getenv("CI_COMMIT_SHA"), number: n}
	}
	path := os.Getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return ciVars{}
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 16<<20 {
		return ciVars{}
	}
	var ev struct {
		Number      int `json:"number"`
		PullRequest struct {
			Number int `json:"number"`
			Base   struct {
				SHA string `json:"sha"`
			} `json:"base"`
			Head struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return ciVars{}
	}
	n := ev.PullRequest.Number
	if n == 0 {
		n = ev.Number
	}
	return ciVars{base: ev.PullRequest.Base.SHA, head: ev.PullRequest.Head.SHA, number: n}
}

// Deliveries are the values of the deliver setting.
const (
	deliverInbox       = "inbox"
	deliverPullRequest = "pull-request"
)

// deliversPRs says whether the configuration's deliver is pull-request (refusing a value it does
// not know): plans, and reverts, then become pull requests on the forge.
func (c *config) deliversPRs() (bool, error) {
	switch d := c.v.GetString("deliver"); d {
	case "", deliverInbox:
		return false, nil
	case deliverPullRequest:
		return true, nil
	default:
		return false, usageError{fmt.Errorf("deliver: %q is not %s or %s", d, deliverInbox, deliverPullRequest)}
	}
}

// delivererOf is the daemon's Deliver for deliver: pull-request (nil for the inbox): each plan
// previewed valid becomes a pull request (opened once; again when its preview changed), and the
// approved ones are applied.
func delivererOf(cfg *config, ws *store.Workspace, led *ledger.Ledger) (func(ctx context.Context) error, *pullreq.Flow, error) {
	if prs, err := cfg.deliversPRs(); !prs || err != nil {
		return nil, nil, err
	}
	flow, err := cfg.flowOn(ws, led)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context) error {
		box := led.Inbox()
		l, err := box.List()
		if err != nil {
			return err
		}
		var errs []error
		for _, p := range l.Plans {
			if p.State != inbox.Pending {
				continue
			}
			if _, err := box.Record(p.Name); err != nil {
				continue // not previewed yet: the daemon's pass does it first
			}
			if _, err := flow.Deliver(ctx, p.Name); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", p.Name, err))
			}
		}
		if _, err := flow.Sync(ctx); err != nil {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}, flow, nil
}
