package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

func diffCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "diff [FROM [TO]] [--json]",
		Short: "What changed in the model, in words: HEAD's parent to HEAD, or the uncommitted model against HEAD",
		Long: `What changed in the model between two versions, in words (or JSON with --json):
elements, relationships, views, folders, properties, documentation, specializations, and per view
the objects and connections added, removed, moved or restyled.

With no argument: the model file against HEAD when it has uncommitted edits, else HEAD's parent
against HEAD. With FROM: that commit against the model file. With FROM and TO: two commits.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 2 {
				return usageError{errors.New("diff takes at most two commits")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			before, after, err := diffSides(ws, args)
			if err != nil {
				return err
			}
			r := diff.Models(before, after)
			out := cmd.OutOrStdout()
			if asJSON {
				b, err := json.MarshalIndent(r, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(out, string(b))
				return err
			}
			// each line with every character a person cannot see written as its code
			// (plans.ShowHidden): a planner's name or folder is shown, never obeyed
			for _, l := range strings.Split(strings.TrimSuffix(r.String(), "\n"), "\n") {
				if _, err := fmt.Fprintln(out, plans.ShowHidden(l)); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON (format_version 1)")
	return c
}

// diffSides reads the two models a diff compares, as the arguments say.
func diffSides(ws *store.Workspace, args []string) (before, after *archixml.Model, err error) {
	switch len(args) {
	case 2:
		if before, err = modelAt(ws, args[0]); err != nil {
			return nil, nil, err
		}
		after, err = modelAt(ws, args[1])
		return before, after, err
	case 1:
		if before, err = modelAt(ws, args[0]); err != nil {
			return nil, nil, err
		}
		after, err = modelAt(ws, "")
		return before, after, err
	}
	head, err := ws.ReadModel()
	if err != nil {
		return nil, nil, codedError{exitNoUsable, err}
	}
	if head.Dirty {
		work, err := os.ReadFile(ws.ModelPath())
		if err == nil && !bytes.Equal(work, head.Data) {
			if before, err = archixml.Load(head.Data); err != nil {
				return nil, nil, codedError{exitNoUsable, fmt.Errorf("%s at HEAD: %w", ws.Model, err)}
			}
			after, err = archixml.Load(work)
			if err != nil {
				return nil, nil, codedError{exitNoUsable, fmt.Errorf("%s: %w", ws.Model, err)}
			}
			return before, after, nil
		}
	}
	info, err := ws.Info(head.Commit)
	if err != nil {
		return nil, nil, codedError{exitNoUsable, err}
	}
	if info.Parent == "" {
		return nil, nil, usageError{errors.New("HEAD has no parent commit: give FROM")}
	}
	if before, err = modelAt(ws, info.Parent); err != nil {
		return nil, nil, err
	}
	if after, err = archixml.Load(head.Data); err != nil {
		return nil, nil, codedError{exitNoUsable, fmt.Errorf("%s at HEAD: %w", ws.Model, err)}
	}
	return before, after, nil
}
