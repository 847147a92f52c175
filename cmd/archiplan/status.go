package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// PlanState is one plan in the inbox, as `status` shows it.
type PlanState struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	State   string `json:"state"`             // pending, previewed, approved, rejected
	Verdict string `json:"verdict,omitempty"` // from its report
	Summary string `json:"summary,omitempty"`
	Note    string `json:"note,omitempty"`
}

// RemoteStatus is the team remote in `status --json`.
type RemoteStatus struct {
	Name           string `json:"name"`
	Ahead          int    `json:"ahead"`  // local commits not pushed yet
	Behind         int    `json:"behind"` // remote commits not pulled yet (as of the last fetch)
	LastFetch      string `json:"last_fetch,omitempty"`
	LastFetchError string `json:"last_fetch_error,omitempty"`
	LastPush       string `json:"last_push,omitempty"`
	LastPushError  string `json:"last_push_error,omitempty"`
}

// Status is `status --json`.
type Status struct {
	FormatVersion string        `json:"format_version"`
	Root          string        `json:"root"`
	Head          string        `json:"head"`
	Model         string        `json:"model"`
	ModelBlob     string        `json:"model_blob"`
	Dirty         bool          `json:"dirty"`
	Locked        string        `json:"locked,omitempty"`
	Daemon        string        `json:"daemon,omitempty"` // a daemon serving the workspace: its pid and state
	Remote        *RemoteStatus `json:"remote,omitempty"`
	Recovered     bool          `json:"recovered,omitempty"`
	Plans         []PlanState   `json:"plans"`
}

func statusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [--json]",
		Short: "The workspace and the plans in its inbox, with their state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			st := Status{FormatVersion: "1", Root: ws.Root, Model: ws.Model, Plans: []PlanState{}}
			// finishing an interrupted apply needs the lock; if another process holds it, say so
			if lock, err := ws.Lock(); err == nil {
				st.Recovered, err = ws.Recover()
				lock.Unlock()
				if err != nil {
					return codedError{exitNoUsable, err}
				}
			} else if errors.Is(err, store.ErrLocked) {
				st.Locked = err.Error()
			}
			head, err := ws.ReadModel()
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			st.Head, st.ModelBlob, st.Dirty = head.Commit, head.Blob, head.Dirty
			st.Plans = inbox(filepath.Join(ws.Root, cfg.v.GetString("inbox")), head.Blob)
			if r := cfg.remoteOf(); r.Name != "" {
				rs := ws.RemoteState()
				st.Remote = &RemoteStatus{Name: r.Name, LastFetchError: rs.LastFetchError, LastPushError: rs.LastPushError}
				st.Remote.Ahead, st.Remote.Behind, _ = ws.AheadBehind(r.Name)
				if !rs.LastFetch.IsZero() {
					st.Remote.LastFetch = rs.LastFetch.Format(time.RFC3339)
				}
				if !rs.LastPush.IsZero() {
					st.Remote.LastPush = rs.LastPush.Format(time.RFC3339)
				}
			}
			if data, err := os.ReadFile(ws.GitPath("archiplan-daemon.json")); err == nil {
				var d struct {
					PID   int    `json:"pid"`
					State string `json:"state"`
				}
				if json.Unmarshal(data, &d) == nil && syscall.Kill(d.PID, 0) == nil {
					st.Daemon = fmt.Sprintf("pid %d, %s", d.PID, d.State)
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				b, _ := json.MarshalIndent(st, "", "  ")
				fmt.Fprintln(out, string(b))
				return nil
			}
			fmt.Fprintf(out, "workspace %s at %s\nmodel %s (blob %s)", st.Root, short(st.Head), st.Model, short(st.ModelBlob))
			if st.Dirty {
				fmt.Fprint(out, ", with uncommitted changes: applies are refused until they are committed")
			}
			fmt.Fprintln(out)
			if st.Locked != "" {
				fmt.Fprintln(out, st.Locked)
			}
			if st.Daemon != "" {
				fmt.Fprintln(out, "daemon:", st.Daemon)
			}
			if r := st.Remote; r != nil {
				fmt.Fprintf(out, "remote %s: %d ahead (not pushed), %d behind; last fetch %s, last push %s\n", r.Name, r.Ahead, r.Behind,
					orNever(r.LastFetch), orNever(r.LastPush))
				if r.LastPushError != "" {
					fmt.Fprintln(out, "  last push failed:", r.LastPushError)
				}
				if r.LastFetchError != "" {
					fmt.Fprintln(out, "  last fetch failed:", r.LastFetchError)
				}
			}
			if st.Recovered {
				fmt.Fprintln(out, "finished an apply a crash had interrupted")
			}
			for _, p := range st.Plans {
				line := fmt.Sprintf("  %-10s %s", p.State, p.File)
				if p.Verdict != "" {
					line += "  " + p.Verdict
				}
				if p.Note != "" {
					line += "  (" + p.Note + ")"
				}
				fmt.Fprintln(out, line)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func orNever(t string) string {
	if t == "" {
		return "never"
	}
	return t
}

// inbox lists the plans in the inbox folder with their state.
func inbox(dir, headBlob string) []PlanState {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []PlanState{}
	}
	out := []PlanState{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".context.json") || strings.HasSuffix(n, ".report.json") {
			continue
		}
		var state string
		switch {
		case strings.HasSuffix(n, ".approved"):
			state = "approved"
		case strings.HasSuffix(n, ".rejected"):
			state = "rejected"
		case strings.HasSuffix(n, ".json"):
			state = "pending"
		default:
			continue
		}
		p := PlanState{Name: planName(n), File: n, State: state}
		if data, err := os.ReadFile(filepath.Join(dir, p.Name+".report.json")); err == nil {
			var r plans.Report
			if json.Unmarshal(data, &r) == nil {
				p.Verdict, p.Summary, p.Note = r.Verdict, r.Plan.Summary, r.Reason
				if state == "pending" {
					p.State = "previewed"
					raw, _ := os.ReadFile(filepath.Join(dir, n))
					switch {
					case plans.SHA256(raw) != r.Plan.SHA256:
						p.Note = "changed since its preview"
					case r.Model.Blob != "" && r.Model.Blob != headBlob:
						p.Note = "the model changed since its preview"
					}
				}
			}
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}
