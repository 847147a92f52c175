package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/query"
	"github.com/archiplan/archiplan/policy"
)

func checkCmd() *cobra.Command {
	var strict, withPolicy bool
	c := &cobra.Command{
		Use:   "check [--strict] [--policy]",
		Short: "What Archi's validator reports about the model: errors, warnings and advice, with codes",
		Long: `archiplan check runs the checks of Archi's validator on the model (invalid relationships,
elements and relationships on no view, empty views, elements a view's viewpoint does not allow,
nesting without a relationship, possible duplicates, junctions of mixed types). It exits 1 when
there are errors (with --strict: any finding). --policy also runs the workspace's rules
(policy/*.rego) on the whole model, every object judged as if a plan created it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := readModel(cmd)
			if err != nil {
				return err
			}
			res := query.Check(m)
			if withPolicy {
				if err := checkPolicy(cmd, m, res); err != nil {
					return err
				}
			}
			if err := printResult(cmd, res, func(w io.Writer) {
				for _, f := range res.Findings {
					fmt.Fprintf(w, "%s %s %s: %s", f.Severity, f.Code, f.Object, termLine(f.Message))
					if f.View != "" && f.View != f.Object {
						fmt.Fprintf(w, " [view %s]", f.View)
					}
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%d error(s), %d warning(s), %d advice\n", res.Errors, res.Warnings, res.Advice)
			}); err != nil {
				return err
			}
			if res.Errors > 0 || strict && len(res.Findings) > 0 {
				return codedError{exitRefused, silent{fmt.Errorf("check: %d error(s)", res.Errors)}}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings and advice too")
	c.Flags().BoolVar(&withPolicy, "policy", false, "run the workspace's rules (policy/*.rego) on the whole model too")
	readFlags(c)
	return c
}

// checkPolicy adds what the workspace's rules say of the whole model to a check's findings.
func checkPolicy(cmd *cobra.Command, m *archixml.Model, res *query.CheckResult) error {
	cfg, err := newConfig(cmd)
	if err != nil {
		return err
	}
	rules := cfg.rules()
	if rules == nil {
		return usageError{fmt.Errorf("--policy: the workspace has no %s/ folder of rules", policy.Dir)}
	}
	fs, err := plans.CheckRules(m, rules)
	if err != nil {
		return codedError{exitRefused, fmt.Errorf("%s: %w", plans.PolicyError, err)}
	}
	for _, f := range fs {
		res.Findings = append(res.Findings, plans.ModelFinding{Code: f.Code, Severity: f.Severity, Message: f.Message, Object: f.Snippet})
		if f.Severity == plans.Error {
			res.Errors++
		} else {
			res.Warnings++
		}
	}
	return nil
}
