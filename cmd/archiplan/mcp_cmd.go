package main

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/mcp"
	"github.com/archiplan/archiplan/plans"
)

// The MCP server itself is package mcp; this is its command.

func mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol on stdio: agents read the model, check drafts and submit plans (never apply)",
		Long: `archiplan mcp is an MCP server over standard input and output. Its tools let an agent read the
model at HEAD (context, search, show, views), check a draft plan (validate_plan) and submit it to
the inbox (submit_plan writes plans/NAME.json). No tool applies, approves or changes the model:
a person approves, as with every plan.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			var deliver func(ctx context.Context, name string) (string, error)
			if prs, err := cfg.deliversPRs(); err != nil {
				return err
			} else if prs {
				deliver = func(ctx context.Context, name string) (string, error) { return deliverLanded(ctx, cfg, ws, name) }
			}
			err = mcp.Serve(cmd.Context(), mcp.Config{Root: ws.Root, State: ws.GitPath("archiplan/inbox"),
				Inbox: filepath.Join(ws.Root, filepath.FromSlash(cfg.v.GetString("inbox"))), Version: version,
				Model:   func() (*archixml.Model, plans.ModelInfo, error) { return cfg.loadModel("") },
				Options: func() plans.Options { return optionsOf(cfg) },
				Head:    ws.Head, Workspace: ws, Deliver: deliver},
				cmd.InOrStdin(), cmd.OutOrStdout())
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			return nil
		},
	}
}
