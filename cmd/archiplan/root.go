package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
)

// Exit statuses, as the product contract gives them.
const (
	exitOK       = 0
	exitRefused  = 1 // the plan was refused
	exitUsage    = 2 // wrong usage
	exitNoUsable = 3 // the workspace is not usable
)

// version is set at build time with -ldflags "-X main.version=..."
var version = "dev"

// usageError marks errors that are the caller's wrong usage.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var quiet silent
	if !errors.As(err, &quiet) {
		fmt.Fprintln(stderr, "archiplan:", err)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	var ce codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	if strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
		return exitUsage
	}
	return exitNoUsable
}

// silent marks errors whose output was already printed (a refused plan's findings).
type silent struct{ error }

func (s silent) Unwrap() error { return s.error }

type codedError struct {
	code int
	error
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "archiplan",
		Short:         "Plan, then apply: AI-proposed changes to ArchiMate models, previewed and committed to git",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentFlags().String("repo", "", "the workspace (default: the git repository around the current directory)")
	root.PersistentFlags().String("config", "", "configuration file (default: .archiplan.yaml at the workspace's root)")
	root.AddCommand(versionCmd(), synthCmd(), daemonCmd(), validateCmd(), previewCmd(), schemaCmd(),
		initCmd(), applyCmd(), revertCmd(), logCmd(), statusCmd(), contextCmd(), promptCmd(), askCmd(), syncCmd(),
		approveCmd(), rejectCmd(), resubmitCmd(), mcpCmd(), answerCmd())
	root.AddCommand(prCmd(), ciCmd())
	root.AddCommand(renderCmd())
	root.AddCommand(hooksCmd())
	root.AddCommand(diffCmd(), reviewCmd())
	root.AddCommand(textconvCmd())
	root.AddCommand(exportCmd())
	root.AddCommand(importCmd())
	root.AddCommand(publishCmd())
	root.AddCommand(readCmds()...)
	root.AddCommand(convertCmd())
	root.AddCommand(policyCmd())
	root.AddCommand(mergeDriverCmd(), setupGitCmd(), resolveCmd())
	return root
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print archiplan's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "archiplan %s (ArchiMate relationship table %s)\n", version, archixml.Relationships().Version)
			return nil
		},
	}
}

func synthCmd() *cobra.Command {
	var elements int
	var seed uint64
	var out string
	c := &cobra.Command{
		Use:   "synth --elements N -o FILE",
		Short: "Write a synthetic model of N elements in Archi's exact form (for benchmarks and tests)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if elements <= 0 || out == "" {
				return usageError{errors.New("synth needs --elements N (N > 0) and -o FILE")}
			}
			m, err := archixml.Synthesize(archixml.SynthOptions{Elements: elements, Seed: seed})
			if err != nil {
				return err
			}
			data, err := m.Save()
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d elements, %d relationships, %d views, %d bytes\n", out,
				len(m.Elements()), len(m.Relationships()), len(m.Views()), len(data))
			return nil
		},
	}
	c.Flags().IntVar(&elements, "elements", 0, "number of elements")
	c.Flags().Uint64Var(&seed, "seed", 1, "random seed; the same seed gives the same file")
	c.Flags().StringVarP(&out, "output", "o", "", "file to write")
	c.Hidden = false
	return c
}
