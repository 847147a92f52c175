package lazyre

import "testing"

// A pattern is compiled at its first match, not when it is declared, and matches as regexp does.
func TestLazy(t *testing.T) {
	bad := New(`(`) // compiled at init, this would panic here
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile matched")
		}
	}()
	name := New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)
	if !name.MatchString("plan-1") || name.MatchString("-plan") || name.MatchString("a.b") {
		t.Fatal("the pattern does not match as written")
	}
	bad.MatchString("x")
}
