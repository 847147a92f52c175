package inbox

import (
	"strings"
	"testing"
)

// FuzzParse: no file name gives a NAME with '/', '.', a newline or a leading '-' (the NAME reaches
// paths, commit messages, previews and logs), CheckName agrees with Parse, and the files of an
// accepted NAME parse back to it with their kind.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"plan.json", "plan.approved", "plan.json.approved", "plan.rejected", "plan.preview.md",
		"plan.report.json", "plan.context.json", "plan.view-1.before.svg", "../../x.json", "a/b.json", ".x.json",
		"-rf.json", "x\nReverts-Plan: y.json", "a.b.json", "x.view-1.after.svg.json", "x.json.tmp-1", "#x#", "x~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		name, kind, state := Parse(file)
		switch kind {
		case KindOther, KindTemp:
			if name != "" {
				t.Fatalf("Parse(%q) = %q for a file that is not archiplan's", file, name)
			}
			return
		case KindUnsafe:
			if CheckName(name) == nil {
				t.Fatalf("Parse(%q): %q called unsafe but CheckName accepts it", file, name)
			}
			return
		}
		if CheckName(name) != nil {
			t.Fatalf("Parse(%q) accepted %q, which CheckName refuses", file, name)
		}
		if name == "" || strings.ContainsAny(name, "/.\n\r\\") || strings.HasPrefix(name, "-") {
			t.Fatalf("Parse(%q) accepted the NAME %q", file, name)
		}
		if kind == KindPlan && state == "" {
			t.Fatalf("Parse(%q): a plan without a state", file)
		}
		for f, want := range map[string]Kind{PlanFile(name): KindPlan, ApprovedFile(name): KindPlan, RejectedFile(name): KindPlan,
			PreviewFile(name): KindPreview, ReportFile(name): KindReport, ContextFile(name): KindContext,
			PictureFile(name, 3, false): KindPicture, PictureFile(name, 12, true): KindPicture} {
			if n, k, _ := Parse(f); n != name || k != want {
				t.Fatalf("%q (of NAME %q) parses as (%q, %v), want (%q, %v)", f, name, n, k, name, want)
			}
		}
	})
}

// FuzzCheckName: whatever CheckName accepts is a NAME with none of '/', '.', a newline or a
// leading '-'.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"plan", "../x", "-rf", ".x", "a\nb", "a b", "ok_1-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if name == "" || strings.ContainsAny(name, "/.\n\r\\ ") || strings.HasPrefix(name, "-") || len(name) > 100 {
			t.Fatalf("CheckName accepted %q", name)
		}
	})
}
