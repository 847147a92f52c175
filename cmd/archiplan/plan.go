package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// checkPlan reads a plan file and checks it against the model.
func checkPlan(cmd *cobra.Command, path string) (*plans.Outcome, plans.ModelInfo, error) {
	cfg, err := newConfig(cmd)
	if err != nil {
		return nil, plans.ModelInfo{}, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, plans.ModelInfo{}, usageError{err}
	}
	modelFile, _ := cmd.Flags().GetString("model")
	m, info, err := cfg.loadModel(modelFile)
	if err != nil {
		return nil, info, err
	}
	scope, err := scopeOf(path)
	if err != nil {
		return nil, info, usageError{err}
	}
	strict, _ := cmd.Flags().GetBool("strict")
	opts := optionsOf(cfg)
	opts.Strict, opts.Scope = strict || opts.Strict, scope
	o := plans.Check(raw, m, opts)
	return o, info, nil
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
			o, info, err := checkPlan(cmd, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				out.Write(o.Report(filepath.Base(args[0]), info).JSON())
			} else {
				fmt.Fprintf(out, "%s: %s\n", args[0], o.Verdict)
				for _, f := range o.Findings {
					where := ""
					if f.Pointer != "" {
						where = " at " + f.Pointer
					}
					fmt.Fprintf(out, "  %s %s%s: %s\n", f.Severity, f.Code, where, f.Message)
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
	c := &cobra.Command{
		Use:   "preview PLAN",
		Short: "Print a plan's preview (Markdown)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, info, err := checkPlan(cmd, args[0])
			if err != nil {
				return err
			}
			cmd.OutOrStdout().Write(o.Preview(filepath.Base(args[0]), info))
			if err := refused(o); err != nil {
				return silent{err}
			}
			return nil
		},
	}
	planFlags(c)
	return c
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
