package planners

import (
	"context"
	"errors"
	"fmt"
)

// Judge reads an answer: done when it needs no other, else the follow-up that tells the planner
// what is wrong with it (plans.FollowUp of its check).
type Judge func(n int, answer string) (followUp string, done bool)

// Converse is the re-ask loop every planner shares: it asks p with prompt, then again on the
// same conversation with the judge's follow-up, until an answer is done or attempts answers were
// given. It returns the last answer and how many answers were given. A prompt the planner cannot
// take (ErrPromptTooLarge) and a planner that fails end the conversation with that error.
func Converse(ctx context.Context, p Planner, prompt string, attempts int, judge Judge, note func(string)) (string, int, error) {
	if attempts <= 0 {
		attempts = 3
	}
	answer, err := p.Ask(ctx, prompt)
	for n := 1; ; n++ {
		if err != nil {
			if errors.Is(err, ErrPromptTooLarge) {
				return "", n - 1, err
			}
			return "", n - 1, fmt.Errorf("answer %d: %w", n, err)
		}
		followUp, done := judge(n, answer)
		if done || n >= attempts {
			return answer, n, nil
		}
		if note != nil {
			note(fmt.Sprintf("asking again with the errors (answer %d of %d)", n+1, attempts))
		}
		answer, err = p.Again(ctx, followUp)
	}
}

// Describer is a planner that says how it asked for the plan (the API and the output format it
// used), for the preview's planner line.
type Describer interface {
	Description() string
}

// Describe says how p asks: its Description, or its kind.
func Describe(p Planner, kind string) string {
	if d, ok := p.(Describer); ok {
		return d.Description()
	}
	return kind
}
