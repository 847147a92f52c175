package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planctx"
	"github.com/archiplan/archiplan/plans/planners"
	"github.com/archiplan/archiplan/store"
)

func contextFlags(c *cobra.Command) {
	c.Flags().String("scope", "", "view:ID, folder:PATH or ids:ID,ID,... (default: the whole model)")
	c.Flags().Int("max-elements", planctx.DefaultMaxElements, "the element budget; what is left out is counted")
	c.Flags().Int("max-chars", planctx.DefaultMaxChars, "the context's budget in characters; what is left out is counted")
	c.Flags().StringSlice("include", nil, "also documentation and/or properties")
	c.Flags().String("model", "", "read this model file instead of the workspace's model at HEAD")
}

// buildContext makes the planning context the flags ask for, of the model it returns.
// The intent ranks the elements: what it names, and their neighbours, come first.
func buildContext(cmd *cobra.Command, cfg *config, intent string) (*planctx.PlanningContext, *archixml.Model, error) {
	modelFile, _ := cmd.Flags().GetString("model")
	m, _, err := cfg.loadModel(modelFile)
	if err != nil {
		return nil, nil, err
	}
	scope, _ := cmd.Flags().GetString("scope")
	max, _ := cmd.Flags().GetInt("max-elements")
	maxChars, _ := cmd.Flags().GetInt("max-chars")
	include, _ := cmd.Flags().GetStringSlice("include")
	c, err := planctx.BuildContext(m, planctx.ContextOptions{Scope: scope, Intent: intent, MaxElements: max,
		MaxChars: maxChars, Include: include}, cfg.policy())
	if err != nil {
		return nil, nil, usageError{err}
	}
	return c, m, nil
}

func contextCmd() *cobra.Command {
	var intent string
	c := &cobra.Command{
		Use:   "context [--intent TEXT] [--scope S] [--max-elements N] [--max-chars N] [--include documentation,properties]",
		Short: "Print the planning context JSON a planner needs (the same model and options give the same bytes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := newConfig(cmd)
			if err != nil {
				return err
			}
			// the model read once, a context written, and the process exits: at 100k elements
			// the collector's two passes over the tree were a tenth of the CPU, for 8% less memory
			cfg.oneShot = true
			ctx, _, err := buildContext(cmd, cfg, intent)
			if err != nil {
				return err
			}
			cmd.OutOrStdout().Write(ctx.JSON())
			return nil
		},
	}
	c.Flags().StringVar(&intent, "intent", "", "the request: what it names, and their neighbours, come first")
	contextFlags(c)
	return c
}

func promptCmd() *cobra.Command {
	var contextFile string
	c := &cobra.Command{
		Use:   "prompt INTENT [--context FILE]",
		Short: "Print the whole planner prompt for an intent (byte-stable)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ctx *planctx.PlanningContext
			if contextFile != "" {
				data, err := inbox.ReadFile(contextFile, inbox.MaxContextBytes) // often a NAME.context.json of the inbox: read as inbox files are
				if err != nil {
					return usageError{err}
				}
				ctx = &planctx.PlanningContext{}
				if err := ctx.UnmarshalJSON(data); err != nil {
					return usageError{fmt.Errorf("%s: %w", contextFile, err)}
				}
			} else {
				cfg, err := newConfig(cmd)
				if err != nil {
					return err
				}
				if ctx, _, err = buildContext(cmd, cfg, args[0]); err != nil {
					return err
				}
			}
			fmt.Fprint(cmd.OutOrStdout(), plans.BuildPrompt(args[0], ctx))
			return nil
		},
	}
	c.Flags().StringVar(&contextFile, "context", "", "a planning context written by archiplan context")
	contextFlags(c)
	return c
}

func askCmd() *cobra.Command {
	var name, planner string
	c := &cobra.Command{
		Use:   "ask INTENT [--scope S] [--name NAME] [--planner NAME]",
		Short: "Ask the configured planner for a plan; it lands in plans/NAME.json with its context",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name != "" {
				if err := inbox.CheckName(name); err != nil {
					return usageError{fmt.Errorf("--name: %w", err)}
				}
			}
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			pctx, m, err := buildContext(cmd, cfg, args[0])
			if err != nil {
				return err
			}
			if name == "" {
				name = slug(args[0])
			}
			scope, _ := cmd.Flags().GetString("scope")
			_, err = askPlanner(cmd, cfg, ws, m, pctx, plans.BuildPrompt(args[0], pctx), name, planner,
				&inbox.Conversation{Intent: args[0], Scope: scope})
			return err
		},
	}
	c.Flags().StringVar(&name, "name", "", "the plan's NAME (default: from the intent)")
	c.Flags().StringVar(&planner, "planner", "", "ask planners.NAME of the configuration (default: planner)")
	contextFlags(c)
	return c
}

// askPlanner asks a planner of the configuration (plannerFlag: its NAME, "" the default) with
// prompt, asks again with the errors while the answer is invalid, and lands the last answer in the
// inbox under a free name made from name, with its context first; conv, completed with the planner
// and the name, is recorded beside the preview records. It returns the NAME the plan landed under.
func askPlanner(cmd *cobra.Command, cfg *config, ws *store.Workspace, m *archixml.Model, pctx *planctx.PlanningContext,
	prompt, name, planner string, conv *inbox.Conversation) (string, error) {
	settings, plannerName, err := cfg.plannerSettings(planner)
	if err != nil {
		return "", err
	}
	errOut := cmd.ErrOrStderr()
	p, err := planners.New(plannerConfig(settings, plannerName, ws.Root, func(s string) { fmt.Fprintln(errOut, s) }))
	if err != nil {
		return "", usageError{err}
	}
	defer p.Close()
	scope, _ := plans.ScopeFromContext(pctx.JSON())
	opts := optionsOf(cfg)
	opts.Scope = scope
	out := cmd.OutOrStdout()
	kind := settings.GetString("kind")
	who := kind
	if plannerName != "planner" {
		who = plannerName + " (" + kind + ")"
	}
	fmt.Fprintf(errOut, "asking the %s planner: %d characters, %d elements, %d omitted\n",
		who, len(prompt), len(pctx.Elements), pctx.Omitted.Elements)
	var plan []byte
	var o *plans.Outcome
	judge := func(n int, answer string) (string, bool) {
		plan = plans.NormalizeStrict([]byte(answer))
		o = plans.CheckModel(plan, m, opts)
		fmt.Fprintf(out, "answer %d: %s (%d error(s))\n", n, o.Verdict, len(o.Errors()))
		return plans.FollowUp(o), len(o.Errors()) == 0
	}
	_, attempts, err := planners.Converse(context.Background(), p, prompt, settings.GetInt("max_attempts"), judge,
		func(s string) { fmt.Fprintln(errOut, s) })
	if errors.Is(err, planners.ErrPromptTooLarge) {
		return "", codedError{exitNoUsable, fmt.Errorf("ask the planner: %w: lower --max-chars or --max-elements, narrow --scope, or set max_input", err)}
	}
	if err != nil {
		return "", codedError{exitNoUsable, fmt.Errorf("ask the %s planner: %w", who, err)}
	}
	box := cfg.inbox(ws)
	if name, err = box.FreeName(name); err != nil {
		return "", usageError{err}
	}
	conv.Name, conv.Planner, conv.PlannerName, conv.Model = name, kind, plannerName, settings.GetString("model")
	if t, ok := p.(interface{ Conversation() (string, string) }); ok { // the Codex app-server's thread and turn
		conv.Thread, conv.Turn = t.Conversation()
	}
	conv.How, conv.Attempts, conv.PlanSHA256 = planners.Describe(p, kind), attempts, plans.SHA256(plan)
	if err := box.SaveConversation(conv); err != nil {
		return "", codedError{exitNoUsable, err}
	}
	// the context first: the daemon judges the plan against it the moment the plan lands
	if err := box.WriteContext(name, pctx.JSON()); err != nil {
		return "", codedError{exitNoUsable, err}
	}
	if err := box.Submit(name, plan); err != nil {
		return "", codedError{exitNoUsable, err}
	}
	rel, _ := filepath.Rel(ws.Root, box.Path(inbox.PlanFile(name)))
	fmt.Fprintf(out, "landed %s: %s\n", rel, o.Verdict)
	for _, f := range o.Errors() {
		fmt.Fprintf(out, "  error %s: %s\n", f.Code, f.Message)
	}
	// deliver: pull-request: a valid plan goes to the forge's pull requests, as the daemon sends it
	if line, err := deliverLanded(cmd.Context(), cfg, ws, name); err != nil {
		return name, codedError{exitNoUsable, fmt.Errorf("%s landed, but its pull request: %w", rel, err)}
	} else if line != "" {
		fmt.Fprintln(out, line)
	}
	if o.Verdict == plans.VerdictInvalid {
		return name, silent{codedError{exitRefused, errors.New("the plan that landed is invalid")}}
	}
	return name, nil
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a plan name from an intent: its first words, lower case, joined by dashes.
func slug(intent string) string {
	s := strings.Trim(nonWord.ReplaceAllString(strings.ToLower(intent), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "plan"
	}
	return s
}
