package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// checkPlan reads a plan file (never through a link, never blocking, capped, as every inbox file
// is read) and checks it against the model. A pending plan of the inbox, checked against HEAD,
// gets its preview and report written again, as the daemon would: a stale plan is previewed
// again without a daemon; wrote is then what was written (the preview with its pictures), nil
// for any other file.
func checkPlan(cmd *cobra.Command, path string) (o *plans.Outcome, info plans.ModelInfo, wrote *inbox.Outputs, err error) {
	cfg, err := newConfig(cmd)
	if err != nil {
		return nil, plans.ModelInfo{}, nil, err
	}
	raw, err := inbox.ReadFile(path, inbox.MaxPlanBytes)
	if errors.Is(err, inbox.ErrNotRegular) || errors.Is(err, inbox.ErrTooLarge) {
		// refused unread, with the report every front end gives such a file (--json prints it)
		return plans.Unreadable(raw, errors.Is(err, inbox.ErrTooLarge), err), plans.ModelInfo{}, nil, nil
	}
	if err != nil {
		return nil, plans.ModelInfo{}, nil, usageError{err}
	}
	modelFile, _ := cmd.Flags().GetString("model")
	strict, _ := cmd.Flags().GetBool("strict")
	if modelFile == "" {
		if o, info, wrote, ok, err := checkInInbox(cfg, path, strict); ok || err != nil {
			return o, info, wrote, err
		}
	}
	m, info, err := cfg.loadModel(modelFile)
	if err != nil {
		return nil, info, nil, err
	}
	_, scope, err := contextOf(path)
	if err != nil {
		return nil, info, nil, usageError{err}
	}
	opts := optionsOf(cfg)
	opts.Strict, opts.Scope = strict || opts.Strict, scope
	o = plans.CheckModel(raw, m, opts)
	return o, info, nil, nil
}

// pendingPath is where PLAN is: the path itself when a file is there, else, for the NAME of a
// pending or approved plan of the workspace's inbox (or its file's bare name), that plan's file
// (as apply takes it).
func pendingPath(cmd *cobra.Command, path string) string {
	if _, err := os.Lstat(path); err == nil || inbox.CheckName(path) != nil && inbox.NameOf(path) == "" {
		return path
	}
	cfg, err := newConfig(cmd)
	if err != nil {
		return path
	}
	ws, err := cfg.workspace()
	if err != nil {
		return path
	}
	return inboxPath(cfg.inbox(ws), path, inbox.Pending, inbox.Approved)
}

// inboxPath is where PLAN is: the path itself when a file is there, else, for the NAME of a plan
// of the inbox in one of states, that plan's file. Every command that takes a PLAN takes both
// forms (a NAME as status lists it, or a file's path), and a plan file's bare name as approve
// and status print it (NAME.approved), typed where no such file is.
func inboxPath(box *inbox.Inbox, path string, states ...inbox.State) string {
	if _, err := os.Lstat(path); err == nil {
		return path
	}
	name := path
	if inbox.CheckName(path) != nil {
		if name = inbox.NameOf(path); name == "" || filepath.Base(path) != path {
			return path
		}
	}
	if e, err := box.Find(name); err == nil && slices.Contains(states, e.State) && (name == path || e.File == path) {
		return box.Path(e.File)
	}
	return path
}

// checkInInbox checks a pending plan of the workspace's inbox through the ledger and publishes
// its preview; ok is false for any other file.
func checkInInbox(cfg *config, path string, strict bool) (*plans.Outcome, plans.ModelInfo, *inbox.Outputs, bool, error) {
	ws, err := cfg.workspace()
	if err != nil {
		return nil, plans.ModelInfo{}, nil, false, nil
	}
	box := cfg.inbox(ws)
	name := inbox.NameOf(path)
	abs, _ := filepath.Abs(path)
	if name == "" || filepath.Dir(abs) != box.Dir {
		return nil, plans.ModelInfo{}, nil, false, nil
	}
	e, err := box.Find(name)
	if err != nil || e.File != filepath.Base(path) || e.State != inbox.Pending {
		return nil, plans.ModelInfo{}, nil, false, nil
	}
	led := cfg.ledger(ws)
	if strict && !led.Options().Strict {
		return nil, plans.ModelInfo{}, nil, false, nil // a preview is made under the policy in force only
	}
	c, err := led.Check(e)
	if err != nil {
		return nil, plans.ModelInfo{}, nil, true, codedError{exitNoUsable, err}
	}
	_, out, err := led.PublishOutputs(c)
	if err != nil {
		return nil, plans.ModelInfo{}, nil, true, codedError{exitNoUsable, err}
	}
	return c.Outcome, c.Head.Info(ws.Model), &out, true, nil
}

func refused(o *plans.Outcome) error {
	if o.Verdict == plans.VerdictValid {
		return nil
	}
	return codedError{exitRefused, fmt.Errorf("plan %s: %d error(s)", o.Verdict, len(o.Errors()))}
}

func validateCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "validate PLAN [--json]",
		Short: "Check a plan against the model at HEAD (or --model FILE); --json prints its report",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := pendingPath(cmd, args[0])
			o, info, _, err := checkPlan(cmd, path)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				out.Write(o.Report(filepath.Base(path), info).JSON())
			} else {
				fmt.Fprintf(out, "%s: %s\n", args[0], o.Verdict)
				for _, f := range o.Findings {
					where := ""
					if f.Pointer != "" {
						where = " at " + f.Pointer
					}
					fmt.Fprintf(out, "  %s %s%s: %s\n", f.Severity, f.Code, where, termLine(f.Message))
				}
			}
			if err := refused(o); err != nil {
				return silent{err}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	planFlags(c)
	return c
}

func previewCmd() *cobra.Command {
	var plain bool
	c := &cobra.Command{
		Use:   "preview PLAN [--plain]",
		Short: "Print a plan's preview (Markdown; --plain: for a terminal, without Markdown's escapes)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := pendingPath(cmd, args[0])
			o, info, wrote, err := checkPlan(cmd, path)
			if err != nil {
				return err
			}
			md := o.Preview(filepath.Base(path), info)
			if wrote != nil {
				// the preview the inbox holds, as the daemon writes it: its Views section names
				// the pictures written beside it
				md = wrote.Preview
			}
			if plain {
				md = plans.PlainText(md)
			}
			cmd.OutOrStdout().Write(md)
			picturesNote(cmd.ErrOrStderr(), path, wrote)
			if err := refused(o); err != nil {
				return silent{err}
			}
			return nil
		},
	}
	planFlags(c)
	c.Flags().BoolVar(&plain, "plain", false, "for a terminal: the preview's words without Markdown's escapes and bold markers (hidden characters still shown as codes)")
	return c
}

// picturesNote says on stderr where a preview's pictures are, or why it has none.
func picturesNote(w io.Writer, path string, wrote *inbox.Outputs) {
	switch {
	case wrote == nil:
		fmt.Fprintf(w, "no pictures: a plan is pictured once it is a pending plan of the inbox (plans/NAME.json); archiplan preview NAME then writes them beside its preview\n")
	case len(wrote.Pictures) > 0:
		dir := filepath.Dir(path)
		names := make([]string, 0, len(wrote.Pictures))
		for f := range wrote.Pictures {
			names = append(names, filepath.Join(dir, f))
		}
		sort.Strings(names)
		fmt.Fprintf(w, "%d picture(s) written beside the preview: %s\n", len(names), strings.Join(names, ", "))
	}
}

func planFlags(c *cobra.Command) {
	c.Flags().String("model", "", "check against this model file instead of the workspace's model at HEAD")
	c.Flags().Bool("strict", false, "accept only a bare JSON object: no fences, no prose")
}

func schemaCmd() *cobra.Command {
	var version string
	var report, strict bool
	c := &cobra.Command{
		Use:   "schema [--version V] [--strict]",
		Short: "Print the plan JSON Schema (--strict: the form structured outputs accept; --report: the report's)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strict && report {
				return usageError{errors.New("--strict is a form of the plan schema; the report has one schema: use one of --strict and --report")}
			}
			if strict {
				data, ok := schemas.StrictJSON(version)
				if !ok {
					return usageError{fmt.Errorf("no plan schema version %q (known: %v)", version, schemas.Versions)}
				}
				cmd.OutOrStdout().Write(data)
				return nil
			}
			if report {
				cmd.OutOrStdout().Write(schemas.ReportJSON())
				return nil
			}
			data, ok := schemas.PlanJSON(version)
			if !ok {
				return usageError{fmt.Errorf("no plan schema version %q (known: %v)", version, schemas.Versions)}
			}
			cmd.OutOrStdout().Write(data)
			return nil
		},
	}
	c.Flags().StringVar(&version, "version", schemas.Latest, "plan schema version")
	c.Flags().BoolVar(&report, "report", false, "print the report schema instead")
	c.Flags().BoolVar(&strict, "strict", false, "the strict form for OpenAI structured outputs and the Codex outputSchema")
	return c
}

// exactArgs is cobra.ExactArgs as a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
