package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/internal/hidden"
	runs "github.com/archiplan/archiplan/internal/proc"
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
	// ApprovedBy are the owners who approved it so far, Missing the approvals it still waits for
	ApprovedBy []string     `json:"approved_by,omitempty"`
	Missing    []inbox.Need `json:"missing_approvals,omitempty"`
	// Conversation is what archiplan keeps of how the plan came to be: intent, planner, the plan
	// it follows or that followed it, the person's answers to its questions
	Conversation *inbox.Conversation `json:"conversation,omitempty"`
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
	LastFetchCode  string `json:"last_fetch_code,omitempty"` // REMOTE_*: see the README's Teams section
	LastPushCode   string `json:"last_push_code,omitempty"`
	RetryAfter     string `json:"retry_after,omitempty"` // after a credential or verification failure
	Refused        string `json:"refused,omitempty"`     // why the remote's head is not in the work tree
	PolicyNote     string `json:"policy_note,omitempty"` // how a pulled commit loosened the policy
	Fetched        bool   `json:"fetched,omitempty"`     // status --fetch fetched it just now
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
	Daemon        string        `json:"daemon"`                // the daemon serving the workspace: pid, state, since; "" when none
	ModelError    string        `json:"model_error,omitempty"` // why the model at HEAD cannot be read
	Remote        *RemoteStatus `json:"remote,omitempty"`
	Recovered     bool          `json:"recovered,omitempty"`
	// HooksWaiting are the hooks a pull added or changed that do not run until the person
	// trusts them (archiplan hooks trust)
	HooksWaiting []string    `json:"hooks_waiting,omitempty"`
	Plans        []PlanState `json:"plans"`
}

func statusCmd() *cobra.Command {
	var asJSON, fetch bool
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
				if err == nil {
					_, err = ledger.RecoverAudit(ws)
				}
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
			if _, err := archixml.Load(head.Data); err != nil {
				st.ModelError = fmt.Sprintf("the model at HEAD cannot be read, so no plan can be previewed or applied: %v", err)
			}
			st.Plans = listInbox(cfg.inbox(ws), head.Blob)
			if st.Dirty {
				uncommitted(st.Plans, ws.Model)
			}
			if r := cfg.remoteOf(); r.Name != "" {
				if fetch {
					// its outcome is recorded, and shown below as the last fetch or its error
					_ = ws.Fetch(cmd.Context(), r.Name)
				}
				st.Remote = remoteStatus(ws, r.Name)
				st.Remote.Fetched = fetch
			} else if fetch {
				return usageError{errors.New("--fetch: the workspace has no team remote (remote: in .archiplan.yaml; docs/teams.md)")}
			}
			st.Daemon = daemonState(ws)
			st.HooksWaiting, _ = hooks.Waiting(cfg.hooks(ws).Dir, ws.GitPath(hooks.TrustFile))
			out := cmd.OutOrStdout()
			if asJSON {
				b, _ := json.MarshalIndent(st, "", "  ")
				fmt.Fprintln(out, string(b))
				return nil
			}
			printStatus(out, st)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&fetch, "fetch", false, "fetch the team remote first, so that behind counts what it holds now (nothing is pulled: archiplan sync pulls)")
	return c
}

// remoteStatus is what status says of the remote name: its last fetch and push, their errors,
// and how far apart the branches are.
func remoteStatus(ws *store.Workspace, name string) *RemoteStatus {
	rs := ws.RemoteStateOf(name)
	rem := &RemoteStatus{Name: name, LastFetchError: rs.LastFetchError, LastPushError: rs.LastPushError,
		LastFetchCode: rs.LastFetchCode, LastPushCode: rs.LastPushCode, Refused: rs.Refused, PolicyNote: rs.PolicyNote}
	if time.Now().Before(rs.RetryAfter) {
		rem.RetryAfter = rs.RetryAfter.Format(time.RFC3339)
	}
	rem.Ahead, rem.Behind, _ = ws.AheadBehind(name)
	if !rs.LastFetch.IsZero() {
		rem.LastFetch = rs.LastFetch.Format(time.RFC3339)
	}
	if !rs.LastPush.IsZero() {
		rem.LastPush = rs.LastPush.Format(time.RFC3339)
	}
	return rem
}

// printStatus writes st for a person.
func printStatus(out io.Writer, st Status) {
	fmt.Fprintf(out, "workspace %s at %s\nmodel %s (blob %s)", st.Root, short(st.Head), st.Model, short(st.ModelBlob))
	if st.Dirty {
		fmt.Fprint(out, ", with uncommitted changes: an apply now rejects its plan, and approve refuses")
	}
	fmt.Fprintln(out)
	if st.Locked != "" {
		fmt.Fprintln(out, st.Locked)
	}
	if st.ModelError != "" {
		fmt.Fprintln(out, st.ModelError)
	}
	if st.Daemon != "" {
		fmt.Fprintln(out, "daemon:", st.Daemon)
	} else {
		fmt.Fprintln(out, "daemon: none serves this workspace (approvals wait until one runs, or use archiplan apply)")
	}
	if r := st.Remote; r != nil {
		fetched := "as of the last fetch, " + withAge(r.LastFetch)
		if r.LastFetch == "" {
			fetched = "(archiplan has not fetched yet)"
		}
		fmt.Fprintf(out, "remote %s: %d ahead (not pushed), %d behind %s; last push %s\n", r.Name, r.Ahead, r.Behind,
			fetched, orNever(r.LastPush))
		if !r.Fetched {
			fmt.Fprintln(out, "  the remote may hold more since: archiplan status --fetch fetches now (archiplan sync pulls)")
		}
		if r.LastPushError != "" {
			fmt.Fprintln(out, "  last push failed:", r.LastPushError)
		}
		if r.LastFetchError != "" {
			fmt.Fprintln(out, "  last fetch failed:", r.LastFetchError)
		}
		if r.RetryAfter != "" {
			fmt.Fprintf(out, "  not tried again before %s (archiplan sync tries now)\n", r.RetryAfter)
		}
		if r.Refused != "" {
			fmt.Fprintln(out, "  the remote's head is not pulled:", r.Refused)
		}
		if r.PolicyNote != "" {
			fmt.Fprintln(out, "  the remote loosened the policy:", r.PolicyNote)
		}
	}
	for _, h := range st.HooksWaiting {
		fmt.Fprintf(out, "hooks/%s came with a pull and does not run until you trust it: read it, then archiplan hooks trust\n", h)
	}
	if st.Recovered {
		fmt.Fprintln(out, "finished an apply a crash had interrupted")
	}
	for _, p := range st.Plans {
		printPlanState(out, p)
	}
}

// printPlanState writes one plan's line of status, who approved it and the conversation on it.
func printPlanState(out io.Writer, p PlanState) {
	file := p.File
	if inbox.NameOf(file) == "" {
		file = hidden.Quote(file) // a name that is not safe is shown, never obeyed by the terminal
	}
	line := fmt.Sprintf("  %-10s %s", p.State, file)
	if p.Verdict != "" {
		line += "  " + p.Verdict
	}
	if p.Summary != "" {
		line += "  " + hidden.Quote(p.Summary)
	}
	if p.Note != "" {
		line += "  (" + hidden.Show(p.Note) + ")" // a reason's escapes are shown, never obeyed by the terminal
	}
	fmt.Fprintln(out, line)
	if w := inbox.WaitingWords(p.ApprovedBy, p.Missing); w != "" {
		fmt.Fprintf(out, "             %s\n", w)
	}
	printConversation(out, p.Conversation)
}

// withAge is an RFC 3339 time with how long ago it was, for a person judging how fresh a view is.
func withAge(t string) string {
	at, err := time.Parse(time.RFC3339, t)
	if err != nil {
		return t
	}
	return fmt.Sprintf("%s (%s ago)", t, time.Since(at).Truncate(time.Second))
}

func orNever(t string) string {
	if t == "" {
		return "never"
	}
	return t
}

// listInbox lists the plans in the inbox with their state, as archiplan recorded their previews.
func listInbox(box *inbox.Inbox, headBlob string) []PlanState {
	out := []PlanState{}
	l, err := box.List()
	if err != nil {
		return out
	}
	taken := box.Taken()
	for _, e := range l.Plans {
		p := PlanState{Name: e.Name, File: e.File, State: string(e.State)}
		asking := false // the note is the step for a plan that asks or that its planner refused
		if rec, err := box.Record(e.Name); err == nil {
			p.Verdict, p.Summary, p.Note = rec.Verdict, rec.Summary, reasonNote(rec.Reason)
			if e.State == inbox.Pending {
				p.State = "previewed"
				raw, rerr := box.ReadPlan(e)
				switch {
				case rerr != nil:
					p.Note = rerr.Error()
				case plans.SHA256(raw) != rec.PlanSHA256:
					p.Note = "changed since its preview"
				case rec.Blob != headBlob:
					p.Note = "the model changed since its preview"
				case rec.Next != "":
					p.Note = rec.Next // plan bytes applied before: the preview's step, as approve says it
				case rec.Verdict == plans.VerdictNotReady:
					p.Note = askingStep(e.Name, raw)
					asking = true
				}
				if rec.Verdict == plans.VerdictValid {
					p.ApprovedBy, p.Missing = rec.Approvers(), inbox.Missing(rec.Needs, rec.Approvals)
				}
			}
		}
		if t := taken[e.Name]; t != "" && e.State == inbox.Pending {
			p.Note, asking = t, false // no preview is written until the directory goes
		}
		p.Conversation, _ = box.Conversation(e.Name)
		if asking && p.Conversation != nil && len(p.Conversation.Answers) > 0 {
			p.Note = "" // answered: the conversation below says what follows
		}
		out = append(out, p)
	}
	for _, f := range l.Unsafe {
		out = append(out, PlanState{File: f, State: "ignored", Note: "its name is not a safe NAME (" + inbox.NamePattern + "): rename it"})
	}
	return out
}

// uncommitted notes on each plan that an approval or an apply would take, what the model's
// uncommitted changes do to it: the apply rejects it (the reason its rejection gives), so status
// does not show it waiting as if nothing stood in its way.
func uncommitted(ps []PlanState, model string) {
	for i, p := range ps {
		switch {
		case p.State == string(inbox.Approved):
			ps[i].Note = "an apply now rejects it: " + ledger.Uncommitted(model) + ", before it is applied"
		case p.State == "previewed" && p.Verdict == plans.VerdictValid && p.Note == "":
			ps[i].Note = "an approval now is rejected at its apply (archiplan approve refuses it): " + ledger.Uncommitted(model) + ", then approve it"
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// reasonNote is a rejection's reason on one line: its first, and the step that ends it when that
// is on a later line (a hook's veto, whose output comes between)
func reasonNote(reason string) string {
	l := firstLine(reason)
	if i := strings.LastIndex(reason, "Next: "); i >= len(l) {
		return strings.TrimRight(l, ": ") + " ... " + firstLine(reason[i:])
	}
	return l
}

// daemonState is the daemon serving the workspace, as its state file says and its pid confirms:
// "pid N, serving since T", or "" when none runs.
func daemonState(ws *store.Workspace) string {
	data, err := os.ReadFile(ws.GitPath("archiplan-daemon.json"))
	if err != nil {
		return ""
	}
	var d struct {
		PID   int    `json:"pid"`
		State string `json:"state"`
		Since string `json:"since"`
	}
	if json.Unmarshal(data, &d) != nil || d.PID <= 0 {
		return ""
	}
	// alive, another user's too (a second approver asking about the daemon's user's daemon)
	if !runs.Exists(d.PID) {
		return ""
	}
	return fmt.Sprintf("pid %d, %s since %s", d.PID, d.State, d.Since)
}

func daemonServes(ws *store.Workspace) bool { return daemonState(ws) != "" }
