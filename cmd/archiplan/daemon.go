package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// demoDir is where --demo makes its workspace.
const demoDir = "archiplan-demo"

// demoPlan is the sample plan --demo leaves in the inbox: ids of the built-in example model.
const demoPlan = `{
  "schema_version": "2.0",
  "status": "ready",
  "summary": "Rename Customer to Client and give the desk a member role",
  "questions": [],
  "actions": [
    {"op": "rename_element", "element_id": "id-59a96df4cd3e24d3da41e81a8c7d1335", "new_name": "Client"},
    {"op": "create_element", "type": "Business Role", "name": "Member", "ref_id": "member"},
    {"op": "create_relationship", "source_id": "id-59a96df4cd3e24d3da41e81a8c7d1335", "target_id": "member", "relationship_type": "Assignment"},
    {"op": "add_to_view", "view_id": "id-8ec058ffdd586dec87035fe47b31819a", "element_id": "member"}
  ]
}
`

func daemonCmd() *cobra.Command {
	var demo bool
	var logFormat string
	var rescan time.Duration
	c := &cobra.Command{
		Use:   "daemon [--demo]",
		Short: "Watch and serve the workspace until SIGINT/SIGTERM (--demo: first make ./archiplan-demo)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if demo {
				if err := makeDemo(out); err != nil {
					return codedError{exitNoUsable, err}
				}
				if err := cmd.Flags().Set("repo", demoDir); err != nil {
					return err
				}
			}
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			var handler slog.Handler
			switch logFormat {
			case "json":
				handler = slog.NewJSONHandler(cmd.ErrOrStderr(), nil)
			case "text":
				handler = slog.NewTextHandler(cmd.ErrOrStderr(), nil)
			default:
				return usageError{fmt.Errorf("--log-format must be text or json, not %q", logFormat)}
			}
			logger := slog.New(handler)
			led := ledger.New(ledger.Config{Workspace: ws, Inbox: cfg.inbox(ws), Options: optionsOf(cfg), Hooks: cfg.hooks(ws),
				ApprovedBy: ws.Identity(), Remote: cfg.remoteOf(), Logger: logger, Adopted: cfg.adopt()})
			inbox := led.Inbox().Dir
			configFile := cfg.file()
			if configFile == "" {
				configFile = filepath.Join(ws.Root, ".archiplan.yaml")
			}
			// the policy in force follows the configuration file: read again whenever it changes
			reload := func() (plans.Options, error) {
				fresh, err := newConfig(cmd)
				if err != nil {
					return plans.Options{}, err
				}
				return optionsOf(fresh), nil
			}
			d := daemon.New(daemon.Config{Ledger: led, Reload: reload, ConfigFile: configFile, Logger: logger, Rescan: rescan, Adopt: cfg.adopt(),
				Remote: cfg.remoteOf(), FetchInterval: cfg.v.GetDuration("fetch_interval")})
			ctx := context.Background()
			signals := make(chan os.Signal, 2)
			signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(signals)
			if err := d.Open(ctx); err != nil {
				return codedError{exitNoUsable, err}
			}
			state := ws.GitPath("archiplan-daemon.json")
			setState := func(s string) {
				b, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "state": s, "since": time.Now().UTC().Format(time.RFC3339)})
				_ = store.WriteFileAtomic(state, append(b, '\n'), 0o644)
			}
			setState("serving")
			defer os.Remove(state)
			fmt.Fprintf(out, "archiplan daemon: serving %s (inbox %s); Ctrl-C to stop\n", ws.Root, inbox)
			if demo {
				fmt.Fprintf(out, `
The sample plan is waiting: read its preview in
  %[1]s/plans/welcome.preview.md
approve it by renaming it (or: go run ./cmd/archiplan approve --repo %[1]s welcome):
  mv %[1]s/plans/welcome.json %[1]s/plans/welcome.approved
then see the commit it made:
  git -C %[1]s log --stat -1
and undo it:
  go run ./cmd/archiplan revert --repo %[1]s welcome-<id from the log>
Drop your own plans into %[1]s/plans/ (go run ./cmd/archiplan schema prints the format).
`, demoDir)
			}
			<-signals
			setState("stopping")
			fmt.Fprintln(out, "stopping: finishing the apply in flight (a second signal cancels it)")
			done := make(chan struct{})
			go func() { d.Close(); close(done) }()
			select {
			case <-done:
			case <-signals:
				d.Abort()
				<-done
			}
			return nil
		},
	}
	c.Flags().BoolVar(&demo, "demo", false, "first create ./archiplan-demo from the example model, with a sample plan")
	c.Flags().StringVar(&logFormat, "log-format", "text", "log format: text or json (logs go to standard error)")
	c.Flags().DurationVar(&rescan, "rescan", 30*time.Second, "full pass of the inbox at least this often")
	return c
}

// makeDemo makes ./archiplan-demo, unless it is there: a workspace with the example model and a
// sample plan waiting in its inbox.
func makeDemo(out io.Writer) error {
	if _, err := os.Stat(demoDir); err == nil {
		fmt.Fprintf(out, "using the existing ./%s\n", demoDir)
		return nil
	}
	seed, err := archixml.Example().Save()
	if err != nil {
		return err
	}
	ws, _, err := store.Init(demoDir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "archiplan", Email: "archiplan@localhost"}})
	if err != nil {
		return err
	}
	box := inbox.New(filepath.Join(ws.Root, "plans"), ws.GitPath("archiplan/inbox"))
	if err := box.Submit("welcome", []byte(demoPlan)); err != nil {
		return err
	}
	fmt.Fprintf(out, "made ./%s: a git repository with the example model and a sample plan\n", demoDir)
	return nil
}
