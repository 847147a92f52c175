package plans

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/mtibben/confusables"
)

// slowSkeleton is skeleton by the general path: UTS #39 over the name without its hidden
// characters.
func slowSkeleton(name string) string {
	return confusables.Skeleton(strings.Map(func(r rune) rune {
		if hidden.Is(r) {
			return -1
		}
		return r
	}, name))
}

// The skeleton of an ASCII name, made character by character, is the one UTS #39 gives: for every
// name of one or two ASCII characters and for random longer ones ("rn" reads as "m", "l" as "1",
// and "%" is left to the general path).
func TestSkeleton_ASCIIAsUTS39(t *testing.T) {
	check := func(name string) {
		if got, want := skeleton(name), slowSkeleton(name); got != want {
			t.Fatalf("skeleton(%q) = %q, UTS #39 gives %q", name, got, want)
		}
	}
	for a := 0; a < 0x80; a++ {
		check(string(rune(a)))
		for b := 0; b < 0x80; b++ {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+r.Intn(24))
		for j := range b {
			b[j] = byte(r.Intn(0x80))
		}
		check(string(b))
	}
	for _, name := range []string{"Customer", "Cust0mer", "modern", "rnodern", "100%", "Сustomer", "Customer\u200b"} {
		check(name)
	}
	if skeleton("modern") != skeleton("rnodern") {
		t.Error("modern and rnodern read alike")
	}
}
