package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/query"
)

// The read commands (search, show, allowed, views, folders, stats, check) print what package
// query answers, the same answers the MCP server gives: for people, or as JSON with --json.

// readFlags adds --json and --model to a read command.
func readFlags(c *cobra.Command) {
	c.Flags().Bool("json", false, "print JSON (the shapes docs/reading-the-model.md documents)")
	c.Flags().String("model", "", "read this model file instead of the workspace's model at HEAD")
}

// readModel is the model a read command reads: --model FILE, or the workspace's at HEAD.
func readModel(cmd *cobra.Command) (*archixml.Model, error) {
	cfg, err := newConfig(cmd)
	if err != nil {
		return nil, err
	}
	file, _ := cmd.Flags().GetString("model")
	m, _, err := cfg.loadModel(file)
	return m, err
}

// printResult prints v as indented JSON with --json, else calls human.
func printResult(cmd *cobra.Command, v any, human func(io.Writer)) error {
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", hidden.JSON(data))
		return err
	}
	human(cmd.OutOrStdout())
	return nil
}

// queryError makes a query's refusal a usage error (a wrong id or type), else passes it on.
func queryError(err error) error {
	for _, e := range []error{query.ErrNotFound, query.ErrWrongKind, query.ErrBadID, query.ErrUnknownType} {
		if errors.Is(err, e) {
			return usageError{err}
		}
	}
	return err
}

// termLine keeps a text of the model on one line of a terminal, every character a person cannot
// see (plans.ShowHidden's one rule: controls, bidi and zero-width marks, the tag block, variation
// selectors) shown as its code, never obeyed.
func termLine(s string) string { return plans.ShowHidden(oneLine(s)) }

// termQuote is termLine's text quoted, as the preview's action lines quote a name ("Desk\u{e0041}").
func termQuote(s string) string { return hidden.Quote(oneLine(s)) }

func readCmds() []*cobra.Command {
	return []*cobra.Command{searchCmd(), showCmd(), allowedCmd(), viewsCmd(), foldersCmd(), statsCmd(), checkCmd()}
}
