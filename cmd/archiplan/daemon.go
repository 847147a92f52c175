package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/web"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
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
	var httpAddr string
	var printLogin bool
	c := &cobra.Command{
		Use:   "daemon [--demo] [--http [ADDR]]",
		Short: "Watch and serve the workspace until SIGINT/SIGTERM (--demo: first make ./archiplan-demo)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			// --http takes its address optionally: `--http ADDR` arrives as an argument
			if len(args) == 1 {
				if !cmd.Flags().Changed("http") || httpAddr != web.DefaultAddr {
					return usageError{fmt.Errorf("daemon takes no arguments, not %q", args[0])}
				}
				httpAddr = args[0]
			}
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
			logger, err := daemonLogger(logFormat, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			led, d, err := newDaemon(cmd, cfg, ws, logger, rescan)
			if err != nil {
				return err
			}
			inbox := led.Inbox().Dir
			ctx := context.Background()
			signals := make(chan os.Signal, 2)
			signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(signals)
			if !cmd.Flags().Changed("http") {
				httpAddr = cfg.v.GetString("http")
			}
			// the page first: an address it cannot have stops the daemon before it starts
			var page *web.Server
			if httpAddr != "" {
				lc := web.LocalConfig{Ledger: led, Logger: logger, Exclusive: d.Exclusive}
				if prs, _ := cfg.deliversPRs(); prs {
					// a revert is reviewed on the forge as an apply is: never committed from the page
					lc.RevertRefused = fmt.Errorf("%s: this workspace delivers by pull request (deliver: pull-request), so a revert is one too, reviewed and approved on the forge: archiplan revert PLAN-ID opens it",
						plans.RevertByPullRequest)
				}
				backend := web.NewLocal(lc)
				if page, err = openPage(cfg, ws, backend, httpAddr, logger); err != nil {
					return err
				}
				defer page.Close()
				d.Changed = backend.Notify
			}
			if err := d.Open(ctx); err != nil {
				return codedError{exitNoUsable, err}
			}
			state := ws.GitPath("archiplan-daemon.json")
			setState := func(s string) { writeDaemonState(state, page, s) }
			fmt.Fprintf(out, "archiplan daemon: serving %s (inbox %s); Ctrl-C to stop\n", ws.Root, inbox)
			if page != nil {
				login, err := writeLogin(out, ws, page, printLogin)
				if err != nil {
					return err
				}
				defer os.Remove(login)
			}
			setState("serving")
			defer os.Remove(state)
			if demo {
				fmt.Fprintf(out, demoGuide, demoDir, selfCommand())
			}
			<-signals
			setState("stopping")
			stopDaemon(out, d, signals)
			return nil
		},
	}
	c.Flags().BoolVar(&demo, "demo", false, "first create ./archiplan-demo from the example model, with a sample plan")
	c.Flags().StringVar(&logFormat, "log-format", "text", "log format: text or json (logs go to standard error)")
	c.Flags().DurationVar(&rescan, "rescan", 30*time.Second, "full pass of the inbox at least this often")
	c.Flags().StringVar(&httpAddr, "http", "", "also serve the review page at ADDR (loopback only; "+web.DefaultAddr+" when no ADDR)")
	c.Flags().Lookup("http").NoOptDefVal = web.DefaultAddr
	c.Flags().BoolVar(&printLogin, "print-login", false, "print the review page's login address (it holds the token) on standard output")
	return c
}

// newDaemon makes the ledger and the daemon over it, with the deliverer the configuration asks
// for; the policy in force follows the configuration file, read again whenever it changes.
func newDaemon(cmd *cobra.Command, cfg *config, ws *store.Workspace, logger *slog.Logger, rescan time.Duration) (*ledger.Ledger, *daemon.Daemon, error) {
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: cfg.inbox(ws), Options: optionsOf(cfg), Hooks: cfg.hooks(ws),
		ApprovedBy: ws.Identity(), Remote: cfg.remoteOf(), Logger: logger, Adopted: cfg.adopt()})
	configFile := cfg.file()
	if configFile == "" {
		configFile = filepath.Join(ws.Root, ".archiplan.yaml")
	}
	reload := func() (plans.Options, error) {
		fresh, err := newConfig(cmd)
		if err != nil {
			return plans.Options{}, err
		}
		return optionsOf(fresh), nil
	}
	deliver, flow, err := delivererOf(cfg, ws, led)
	if err != nil {
		return nil, nil, err
	}
	d := daemon.New(daemon.Config{Ledger: led, Reload: reload, ConfigFile: configFile, PolicyDir: filepath.Join(ws.Root, policy.Dir), Logger: logger, Rescan: rescan, Adopt: cfg.adopt(),
		Remote: cfg.remoteOf(), FetchInterval: cfg.v.GetDuration("fetch_interval"), Publish: publisherOf(cfg, ws, led), Deliver: deliver})
	if flow != nil {
		flow.Between = d.Exclusive // its inbox writes between the passes
	}
	return led, d, nil
}

// writeDaemonState writes the daemon's state file (.git/archiplan-daemon.json): its pid, state s
// and since when, and the review page's address if it serves one.
func writeDaemonState(path string, page *web.Server, s string) {
	st := map[string]any{"pid": os.Getpid(), "state": s, "since": time.Now().UTC().Format(time.RFC3339)}
	if page != nil {
		st["http"] = page.Addr() // never the token: whoever reads .git/ must not get it
	}
	b, _ := json.Marshal(st)
	_ = store.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// daemonLogger is the logger --log-format asks for, writing to w (standard error).
func daemonLogger(format string, w io.Writer) (*slog.Logger, error) {
	var handler slog.Handler
	switch format {
	case "json":
		handler = slog.NewJSONHandler(w, nil)
	case "text":
		handler = slog.NewTextHandler(w, nil)
	default:
		return nil, usageError{fmt.Errorf("--log-format must be text or json, not %q", format)}
	}
	return slog.New(handler), nil
}

// writeLogin writes the review page's login address to a file only this user can read, says
// where it is, and returns that file (the caller removes it). The address holds the token: not
// on standard output, where service managers keep it, unless asked.
func writeLogin(out io.Writer, ws *store.Workspace, page *web.Server, printLogin bool) (string, error) {
	login := ws.GitPath("archiplan-review-login")
	if err := store.WriteFileAtomic(login, []byte(page.URL()+"\n"), 0o600); err != nil {
		return "", codedError{exitNoUsable, fmt.Errorf("review page: write its login address: %w", err)}
	}
	if printLogin {
		fmt.Fprintf(out, "review page: %s\n", page.URL())
	} else {
		fmt.Fprintf(out, "review page: %s (open the login address in %s, which only you can read; --print-login prints it here)\n",
			page.Address(), login)
	}
	return login, nil
}

// demoGuide is what --demo prints once serving: %[1]s is the demo's directory, %[2]s this command.
const demoGuide = `
The sample plan is waiting: read its preview in
  %[1]s/plans/welcome.preview.md
approve it by renaming it (or: %[2]s approve --repo %[1]s welcome):
  mv %[1]s/plans/welcome.json %[1]s/plans/welcome.approved
then see the commit it made:
  git -C %[1]s log --stat -1
and undo it:
  %[2]s revert --repo %[1]s welcome-<id from the log>
Drop your own plans into %[1]s/plans/ (%[2]s schema prints the format).
`

// stopDaemon closes d, finishing the apply in flight; a second signal cancels it.
func stopDaemon(out io.Writer, d *daemon.Daemon, signals <-chan os.Signal) {
	fmt.Fprintln(out, "stopping: finishing the apply in flight (a second signal cancels it)")
	done := make(chan struct{})
	go func() { d.Close(); close(done) }()
	select {
	case <-done:
	case <-signals:
		d.Abort()
		<-done
	}
}

// openPage starts the review page at addr: loopback only unless http_remote allows more.
func openPage(cfg *config, ws *store.Workspace, backend web.Backend, addr string, logger *slog.Logger) (*web.Server, error) {
	op := ws.Identity()
	page, err := web.New(web.Config{Backend: backend, AllowRemote: cfg.v.GetBool("http_remote"),
		Operator: op.Name + " <" + op.Email + ">", Logger: logger})
	if err != nil {
		return nil, err
	}
	if err := page.Open(addr); err != nil {
		if errors.Is(err, web.ErrNotLoopback) {
			return nil, usageError{fmt.Errorf("--http %s: %w (set http_remote: true in .archiplan.yaml to allow it)", addr, err)}
		}
		return nil, codedError{exitNoUsable, fmt.Errorf("review page: %w", err)}
	}
	return page, nil
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

// selfCommand is how a person runs this binary again, for advice: "go run ./cmd/archiplan" when
// it was started so (from go's build cache), its name when it was found on the PATH, else the
// path it was started by.
func selfCommand() string {
	if exe, err := os.Executable(); err == nil && strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "go run ./cmd/archiplan"
	}
	arg0 := os.Args[0]
	if !strings.ContainsRune(arg0, filepath.Separator) {
		return arg0
	}
	if strings.ContainsAny(arg0, " \t'\"$`\\;&|<>()*?[]#~") {
		return "'" + strings.ReplaceAll(arg0, "'", `'\''`) + "'"
	}
	return arg0
}
