package policy

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is the outcome of one of the policy's own tests (a rule named test_* in a
// *_test.rego file, OPA's convention).
type TestResult struct {
	Name     string `json:"name"`     // package.test_name
	Location string `json:"location"` // file:line
	Pass     bool   `json:"pass"`
	Skip     bool   `json:"skip,omitempty"`
	Error    string `json:"error,omitempty"`
	file     string
	row      int
}

// Test runs the policy's own tests against its rules, as `opa test` does.
func (r *Rules) Test(ctx context.Context) ([]TestResult, error) {
	if r.err != nil {
		return nil, r.err
	}
	modules := map[string]*ast.Module{}
	for _, src := range []map[string]string{r.modules, r.tests} {
		for name, text := range src {
			m, err := ast.ParseModuleWithOpts(name, text, parserOptions)
			if err != nil {
				return nil, fmt.Errorf("%w: %s", ErrBroken, oneLine(err))
			}
			modules[name] = m
		}
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	caps := capabilities() // the rules' own tests reach no more than the rules
	for _, b := range testerFunctions() {
		caps.Builtins = append(caps.Builtins, b.Decl)
	}
	compiler := ast.NewCompiler().WithCapabilities(caps).WithEnablePrintStatements(true)
	ch, err := tester.NewRunner().SetCompiler(compiler).AddCustomBuiltins(testerFunctions()).SetModules(modules).SetDefaultRegoVersion(ast.RegoV1).SetTimeout(timeout).
		SetParallel(1).CapturePrintOutput(true).RunTests(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBroken, oneLine(err))
	}
	var out []TestResult
	for res := range ch {
		t := TestResult{Name: strings.TrimPrefix(res.Package, "data.") + "." + res.Name, Pass: res.Pass(), Skip: res.Skip}
		if res.Location != nil {
			t.Location = fmt.Sprintf("%s:%d", res.Location.File, res.Location.Row)
			t.file, t.row = res.Location.File, res.Location.Row
		}
		if res.Error != nil {
			t.Error = res.Error.Error()
		} else if res.Fail {
			t.Error = "failed"
			if res.FailedAt != nil {
				t.Error = "failed at " + res.FailedAt.String()
			}
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].row < out[j].row
	})
	return out, nil
}
