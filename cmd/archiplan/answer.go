package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planctx"
)

var (
	// ErrNoQuestions means the plan asks nothing to answer: it is not needs_clarification, or has
	// no questions.
	ErrNoQuestions = inbox.ErrNoQuestions
	// ErrAnswers means the answers given do not match the plan's questions one for one.
	ErrAnswers = errors.New("ANSWERS_MISMATCH")
)

func answerCmd() *cobra.Command {
	var answers []string
	var noAsk bool
	var planner string
	c := &cobra.Command{
		Use:   "answer NAME [--answer TEXT...] [--no-ask]",
		Short: "Answer a plan's questions: the answers are kept, and the configured planner is asked again (the new plan lands under a linked NAME)",
		Long: `archiplan answer records a person's answers to the questions of plans/NAME.json (a plan with
status needs_clarification), one --answer for each question in order, under .git/ where nothing a
planner writes can reach them. With a planner configured it asks it again, with the request, the
plan and the questions and answers in the conversation; the new plan lands under a new NAME that
status and the review page link to the first. Without one (or with --no-ask) the answers are kept
and shown in status, on the review page and in the MCP context for that plan. Without --answer it
takes the answers given on the review page.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := inbox.CheckName(name); err != nil {
				return usageError{err}
			}
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			box := cfg.inbox(ws)
			e, err := box.Find(name)
			if err != nil {
				return usageError{err}
			}
			raw, err := box.ReadPlan(e)
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			m, _, err := cfg.loadModel("")
			if err != nil {
				return err
			}
			o := plans.Check(raw, m, optionsOf(cfg))
			if o.Plan == nil || o.Plan.Status != plans.StatusNeedsClarification || len(o.Plan.Questions) == 0 {
				return usageError{fmt.Errorf("%w: %s asks no questions (only a plan with status needs_clarification and questions can be answered)", ErrNoQuestions, name)}
			}
			qs := o.Plan.Questions
			conv, err := box.Conversation(name)
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			if len(answers) == 0 && conv != nil && len(conv.Answers) == len(qs) && strings.Join(conv.Questions, "\n") == strings.Join(qs, "\n") {
				answers = conv.Answers // given on the review page
			}
			if len(answers) != len(qs) {
				return usageError{fmt.Errorf("%w: %s asks %d question(s), %d answer(s) given: one --answer for each, in order", ErrAnswers, name, len(qs), len(answers))}
			}
			if conv == nil {
				conv = &inbox.Conversation{Name: name, Intent: o.Plan.Summary}
			}
			conv.Questions, conv.Answers = qs, answers
			conv.AnsweredBy, conv.AnsweredAt = ws.Identity().Name, time.Now().UTC().Format(time.RFC3339)
			conv.FollowedBy = ""
			if err := box.SaveConversation(conv); err != nil {
				return codedError{exitNoUsable, err}
			}
			if err := ledger.Audit(ws, box, ledger.Event{Event: ledger.EventAnswered, Name: name, SHA256: plans.SHA256(raw),
				Summary: o.Plan.Summary, Status: o.Plan.Status, Questions: qs, Answers: answers, By: conv.AnsweredBy}); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "archiplan: the audit did not record the answers:", err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "answers to %s kept (%d)\n", name, len(answers))
			if planner == "" && conv.PlannerName != "" {
				planner = conv.PlannerName
			}
			if noAsk || planner == "" && cfg.v.GetString("planner.kind") == "" {
				fmt.Fprintf(out, "no planner asked: the answers are shown in status, on the review page and in the MCP context of %s\n", name)
				return nil
			}
			pctx, err := planctx.BuildContext(m, planctx.ContextOptions{Scope: conv.Scope, Intent: conv.Intent}, cfg.policy())
			if err != nil {
				return usageError{err}
			}
			prompt := plans.BuildPrompt(conv.Intent, pctx) + plans.Answered(raw, qs, answers)
			next, err := askPlanner(cmd, cfg, ws, m, pctx, prompt, name+"-answered", planner,
				&inbox.Conversation{Intent: conv.Intent, Scope: conv.Scope, Follows: name})
			if next != "" {
				conv.FollowedBy = next
				if serr := box.SaveConversation(conv); serr != nil && err == nil {
					err = codedError{exitNoUsable, serr}
				}
				fmt.Fprintf(out, "%s follows %s\n", next, name)
			}
			return err
		},
	}
	c.Flags().StringArrayVar(&answers, "answer", nil, "the answer to the next question (repeat, in the order of the questions)")
	c.Flags().BoolVar(&noAsk, "no-ask", false, "keep the answers without asking the planner")
	c.Flags().StringVar(&planner, "planner", "", "ask planners.NAME of the configuration (default: the one that wrote the plan, else planner)")
	return c
}

// printConversation shows, under a plan's line in status, where it came from and the answers
// given to its questions.
func printConversation(w io.Writer, c *inbox.Conversation) {
	if c == nil {
		return
	}
	if c.Intent != "" {
		fmt.Fprintf(w, "             asked: %s", hidden.Quote(c.Intent))
		if c.Planner != "" {
			fmt.Fprintf(w, " (planner %s", c.Planner)
			if c.PlannerName != "" && c.PlannerName != "planner" {
				fmt.Fprintf(w, " %s", c.PlannerName)
			}
			if c.Model != "" {
				fmt.Fprintf(w, ", model %s", c.Model)
			}
			fmt.Fprint(w, ")")
		}
		fmt.Fprintln(w)
	}
	if c.Follows != "" {
		fmt.Fprintf(w, "             follows %s after its questions were answered\n", c.Follows)
	}
	for i, q := range c.Questions {
		if i < len(c.Answers) {
			fmt.Fprintf(w, "             Q: %s\n             A: %s\n", hidden.Quote(q), hidden.Quote(c.Answers[i]))
		}
	}
	switch {
	case c.FollowedBy != "":
		fmt.Fprintf(w, "             answered: followed by %s\n", c.FollowedBy)
	case c.Open():
		fmt.Fprintln(w, "             answered: no planner asked yet (the answers go to whoever plans next)")
	}
}
