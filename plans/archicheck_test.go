package plans

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Our list of checks is Archi's: the checkers its Validator runs, in its order. The Archi sources
// come from a git clone of archimatetool/archi ($ARCHIPLAN_ARCHI_SRC, a git directory); the test
// skips without one.
func TestArchiChecks_AreArchis(t *testing.T) {
	src := os.Getenv("ARCHIPLAN_ARCHI_SRC")
	if src == "" {
		src = "/work/.mirror/archimatetool+archi/repo"
	}
	if _, err := os.Stat(src); err != nil {
		t.Skip("no Archi sources: set ARCHIPLAN_ARCHI_SRC to a git clone of archimatetool/archi")
	}
	out, err := exec.Command("git", "--git-dir", src, "show",
		"HEAD:com.archimatetool.hammer/src/com/archimatetool/hammer/validation/Validator.java").Output()
	if err != nil {
		t.Skipf("Validator.java: %v", err)
	}
	var archi []string
	for _, m := range regexp.MustCompile(`new (\w+Checker)\(`).FindAllStringSubmatch(string(out), -1) {
		archi = append(archi, m[1])
	}
	var ours []string
	for _, c := range ArchiChecks {
		ours = append(ours, c.Archi)
	}
	if strings.Join(archi, " ") != strings.Join(ours, " ") {
		t.Fatalf("Archi's validator runs\n  %v\nwe run\n  %v", archi, ours)
	}
	// and each severity is the one the checker gives
	for _, c := range ArchiChecks {
		java, err := exec.Command("git", "--git-dir", src, "show",
			"HEAD:com.archimatetool.hammer/src/com/archimatetool/hammer/validation/checkers/"+c.Archi+".java").Output()
		if err != nil {
			t.Fatal(err)
		}
		want := map[Severity]string{Error: "new ErrorType(", Warning: "new WarningType(", Advice: "new AdviceType("}[c.Severity]
		if !strings.Contains(string(java), want) {
			t.Errorf("%s: Archi's %s does not make %s issues", c.Code, c.Archi, c.Severity)
		}
	}
}
