package plans

import (
	"strings"
	"testing"
)

func TestMDProse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`Rename Business Actor "A" (id-59a96df4) to "B"`, "Rename Business Actor \"A\" (`id-59a96df4`) to \"B\""},
		{`with 1 connection(s) to it`, `with 1 connection\(s\) to it`},
		{`x](id-12345678)`, `x\]\(id-12345678\)`},
		{"a (id-1`23456) b", "a \\(id-1\\`23456\\) b"},
		{`(abcdef)`, `\(abcdef\)`},
		{`(1234567)`, "(`1234567`)"},
		{`a (id-123456`, `a \(id-123456`},
	} {
		if got := MDProse(c.in); got != c.want {
			t.Errorf("MDProse(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := MDProse(c.in); strings.Contains(got, "](") || strings.Contains(got, "<") {
			t.Errorf("MDProse(%q) = %q holds markup", c.in, got)
		}
	}
	for in, want := range map[string]string{"plan.json": "`plan.json`", "a b.json": `a b\.json`, "x`y": "x\\`y", "": ""} {
		if got := MDCode(in); got != want {
			t.Errorf("MDCode(%q) = %q, want %q", in, got, want)
		}
	}
}
