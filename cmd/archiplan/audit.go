package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/store"
)

// printAudit is `log --all`: the audit's events, oldest first, rejected and withdrawn plans
// beside the applied ones, each with the request and the planner behind it; apart, after them,
// the events the branch does not bear out, each with why.
func printAudit(cmd *cobra.Command, ws *store.Workspace, asJSON bool) error {
	// an apply a crash cut off before its events were recorded is recorded first (when no other
	// process holds the workspace, which then does it)
	if lock, err := ws.Lock(); err == nil {
		_, err = ledger.RecoverAudit(ws)
		lock.Unlock()
		if err != nil {
			return codedError{exitNoUsable, err}
		}
	}
	a, err := ledger.ReadAudit(ws)
	if err != nil {
		return codedError{exitNoUsable, err}
	}
	out := cmd.OutOrStdout()
	if asJSON {
		b, _ := json.MarshalIndent(map[string]any{"format_version": "1", "events": a.Events, "unverified": a.Unverified}, "", "  ")
		fmt.Fprintln(out, string(b))
		return nil
	}
	printEvents(out, a.Events)
	if len(a.Unverified) == 0 {
		return nil
	}
	fmt.Fprintf(out, "\nUnverified: %d event(s) the branch does not bear out (anyone who can push to the remote can write one):\n", len(a.Unverified))
	for _, u := range a.Unverified {
		if u.Event.Event == "" {
			fmt.Fprintf(out, "audit commit %s: %s\n", short(u.AuditCommit), hidden.Show(u.Why))
			continue
		}
		printEvents(out, []ledger.Event{u.Event})
		fmt.Fprintf(out, "    unverified: %s (audit commit %s)\n", hidden.Show(u.Why), short(u.AuditCommit))
	}
	return nil
}

// printEvents prints events one line each, with what they say of the request, the planner and
// the outcome indented below. Every field is anyone's who can push to the audit, the ones
// archiplan writes in its own words (time, name, verdict, planner, model, codes) included: each
// is shown on its line, a line break or a terminal's escape as its code (hidden.Show).
func printEvents(out io.Writer, events []ledger.Event) {
	for _, e := range events {
		id := e.PlanID
		if id == "" {
			id = e.Name
		}
		line := fmt.Sprintf("%s %-9s %s", hidden.Show(e.Time), hidden.Show(string(e.Event)), hidden.Show(id))
		if e.Verdict != "" {
			line += "  " + hidden.Show(string(e.Verdict))
		}
		if e.Summary != "" {
			line += "  " + quoted(e.Summary)
		}
		fmt.Fprintln(out, line)
		var more []string
		if e.Intent != "" {
			more = append(more, "intent "+quoted(e.Intent))
		}
		if e.Planner != "" {
			p := "planner " + hidden.Show(e.Planner)
			if e.Model != "" {
				p += " (" + hidden.Show(e.Model) + ")"
			}
			more = append(more, p)
		}
		if e.Follows != "" {
			more = append(more, "follows "+hidden.Show(e.Follows))
		}
		if len(e.Errors) > 0 {
			more = append(more, "errors "+hidden.Show(strings.Join(e.Errors, ",")))
		}
		if e.Commit != "" && (e.Event == ledger.EventApplied || e.Event == ledger.EventReverted) {
			more = append(more, "commit "+short(e.Commit))
		}
		if e.By != "" {
			more = append(more, "by "+quoted(e.By))
		}
		if e.Reason != "" {
			more = append(more, "reason "+quoted(firstLine(e.Reason)))
		}
		if len(more) > 0 {
			fmt.Fprintln(out, "    "+strings.Join(more, "; "))
		}
		for i, q := range e.Questions {
			if i < len(e.Answers) {
				fmt.Fprintf(out, "    Q: %s  A: %s\n", quoted(q), quoted(e.Answers[i]))
			}
		}
	}
}

// quoted is a planner's text on one line of the audit: quoted, and every character a person
// cannot see shown as its code (hidden.Quote, as the preview quotes it).
func quoted(s string) string { return hidden.Quote(s) }
