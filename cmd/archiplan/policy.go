package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/policy"
)

func policyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "The workspace's rules as code (policy/*.rego) and owners (policy/owners.yaml)",
		Args:  cobra.NoArgs,
	}
	test := &cobra.Command{
		Use:   "test [--json]",
		Short: "Run the policy's own tests (test_* rules in policy/*_test.rego, as opa test does)",
		Long: `archiplan policy test compiles policy/*.rego and runs the rules named test_* of its
*_test.rego files, as opa test does. It exits 1 when a test fails or the policy does not
compile, 2 when there is no policy/ folder.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := newConfig(cmd)
			if err != nil {
				return err
			}
			rules := cfg.rules()
			if rules == nil {
				return usageError{fmt.Errorf("the workspace has no %s/ folder of rules", policy.Dir)}
			}
			res, err := rules.Test(context.Background())
			if err != nil {
				return codedError{exitRefused, err}
			}
			failed := 0
			for _, r := range res {
				if !r.Pass && !r.Skip {
					failed++
				}
			}
			if err := printResult(cmd, struct {
				FormatVersion string              `json:"format_version"`
				Tests         []policy.TestResult `json:"tests"`
				Failed        int                 `json:"failed"`
			}{"1", res, failed}, func(w io.Writer) {
				for _, r := range res {
					state := "PASS"
					switch {
					case r.Skip:
						state = "SKIP"
					case !r.Pass:
						state = "FAIL"
					}
					fmt.Fprintf(w, "%s %s (%s)", state, r.Name, r.Location)
					if r.Error != "" {
						fmt.Fprintf(w, ": %s", termLine(r.Error))
					}
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%d test(s), %d failed\n", len(res), failed)
			}); err != nil {
				return err
			}
			if len(res) == 0 {
				return codedError{exitRefused, fmt.Errorf("%s/ holds no test (rules named test_* in *_test.rego files)", policy.Dir)}
			}
			if failed > 0 {
				return codedError{exitRefused, silent{fmt.Errorf("policy test: %d failed", failed)}}
			}
			return nil
		},
	}
	test.Flags().Bool("json", false, "print the results as JSON")
	c.AddCommand(test)
	return c
}
