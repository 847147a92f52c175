package plans

import (
	"fmt"
	"strings"
)

// Answered is the part of a prompt that carries a conversation on after a plan asked questions:
// the plan the planner wrote, its questions and the person's answers. archiplan sends it after
// the whole prompt when the person answers (archiplan answer, the review page), because a planner's
// thread does not outlive the ask that started it.
func Answered(plan []byte, questions, answers []string) string {
	var b strings.Builder
	b.WriteString("\n\n## Earlier in this conversation\n\nYou answered this request with a plan that needs clarification:\n\n")
	b.WriteString(strings.TrimSpace(string(plan)))
	b.WriteString("\n\nThe person answers your questions:\n\n")
	for i, q := range questions {
		a := ""
		if i < len(answers) {
			a = answers[i]
		}
		fmt.Fprintf(&b, "%d. Q: %s\n   A: %s\n", i+1, oneLineText(q), oneLineText(a))
	}
	b.WriteString("\nWith these answers, write the plan now: status \"ready\" if you can, as one JSON object and nothing else. " +
		"Ask again (status \"needs_clarification\") only what the answers leave open.\n")
	return b.String()
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
