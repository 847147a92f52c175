package lazyre

import (
	"reflect"
	"regexp"
	"testing"
)

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

// The other methods answer as regexp's do.
func TestLazy_AsRegexp(t *testing.T) {
	const pattern = `(://[^/@\s]*?):[^@/\s]+@`
	lazy, now := New(pattern), regexp.MustCompile(pattern)
	for _, s := range []string{"", "https://u:secret@host/x and ssh://a:b@c", "no credentials"} {
		if a, b := lazy.ReplaceAllString(s, "$1:***@"), now.ReplaceAllString(s, "$1:***@"); a != b {
			t.Errorf("ReplaceAllString(%q) = %q, regexp says %q", s, a, b)
		}
		if a, b := lazy.FindStringSubmatch(s), now.FindStringSubmatch(s); !reflect.DeepEqual(a, b) {
			t.Errorf("FindStringSubmatch(%q) = %q, regexp says %q", s, a, b)
		}
		if a, b := lazy.FindAllStringSubmatch(s, -1), now.FindAllStringSubmatch(s, -1); !reflect.DeepEqual(a, b) {
			t.Errorf("FindAllStringSubmatch(%q) = %q, regexp says %q", s, a, b)
		}
	}
}
