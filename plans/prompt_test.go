package plans

import (
	"strings"
	"testing"
)

// TestPrompt_ExamplePlanIsValid: the example plan in the prompt, its placeholders replaced by
// ids of a real model, passes archiplan's own checks.
func TestPrompt_ExamplePlanIsValid(t *testing.T) {
	m := exampleModel(t)
	start := strings.Index(promptGuide, `{"schema_version"`)
	if start < 0 {
		t.Fatal("no example plan in the prompt")
	}
	example := strings.NewReplacer("EXISTING-ELEMENT-ID", ids(t, m, "{RentaBike}"),
		"EXISTING-VIEW-ID", ids(t, m, "{View}")).Replace(promptGuide[start:])
	o := Check([]byte(example), m, Options{})
	if o.Verdict != VerdictValid {
		t.Fatalf("the example plan is %s: %v", o.Verdict, o.Errors())
	}
}
