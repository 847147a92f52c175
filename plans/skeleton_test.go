package plans

import (
	"math/rand"
	"os"
	"os/exec"
	"strconv"
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

// TestSkeleton_NoTableAtStart: the confusables' table (6,300 runes, 218 KB) is built when a name
// outside ASCII first asks for it, not at every process's start (GODEBUG=inittrace=1 of this
// test binary run again, no test run); ASCII names' skeletons never ask (asciiSkeletons).
func TestSkeleton_NoTableAtStart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := false
	for _, line := range strings.Split(string(out), "\n") {
		// init github.com/mtibben/confusables @1.2 ms, 0.019 ms clock, 72 bytes, 2 allocs
		f := strings.Fields(line)
		if len(f) < 8 || f[0] != "init" || f[1] != "github.com/mtibben/confusables" {
			continue
		}
		seen = true
		if n, _ := strconv.Atoi(f[7]); n > 1024 {
			t.Errorf("%s allocates %d bytes at init: the confusables' table is built at start", f[1], n)
		}
	}
	if !seen {
		t.Fatalf("no init traced:\n%s", out)
	}
	if skeleton("Customer 1") != "Custorner l" {
		t.Fatal("an ASCII name's skeleton")
	}
}
