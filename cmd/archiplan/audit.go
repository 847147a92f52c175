package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// printAudit is `log --all`: the audit's events, oldest first, rejected and withdrawn plans
// beside the applied ones, each with the request and the planner behind it.
func printAudit(cmd *cobra.Command, ws *store.Workspace, asJSON bool) error {
	events, err := ledger.AuditLog(ws)
	if err != nil {
		return codedError{exitNoUsable, err}
	}
	out := cmd.OutOrStdout()
	if asJSON {
		b, _ := json.MarshalIndent(map[string]any{"format_version": "1", "events": events}, "", "  ")
		fmt.Fprintln(out, string(b))
		return nil
	}
	for _, e := range events {
		id := e.PlanID
		if id == "" {
			id = e.Name
		}
		line := fmt.Sprintf("%s %-9s %s", e.Time, e.Event, id)
		if e.Verdict != "" {
			line += "  " + e.Verdict
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
			p := "planner " + e.Planner
			if e.Model != "" {
				p += " (" + e.Model + ")"
			}
			more = append(more, p)
		}
		if e.Follows != "" {
			more = append(more, "follows "+e.Follows)
		}
		if len(e.Errors) > 0 {
			more = append(more, "errors "+strings.Join(e.Errors, ","))
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
	return nil
}

// quoted is a planner's text on one line of the audit: quoted, and every character a person
// cannot see shown as its code (strconv.Quote leaves variation selectors as they are).
func quoted(s string) string { return plans.ShowHidden(strconv.Quote(s)) }
