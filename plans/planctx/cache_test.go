package planctx

import (
	"bytes"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// A Cache builds a context once for each HEAD, options and policy; a new HEAD empties it, and a
// model read at another commit than the HEAD asked for is never kept under that HEAD.
func TestCache_PerHeadOptionsPolicy(t *testing.T) {
	var c Cache
	loads, commit := 0, "c1"
	load := func() (*archixml.Model, string, error) {
		loads++
		return archixml.Example(), commit, nil
	}
	ask := func(head string, o ContextOptions, p plans.Policy) []byte {
		t.Helper()
		data, err := c.JSON(head, o, p, load)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	want := func(n int, why string) {
		t.Helper()
		if loads != n {
			t.Fatalf("%s: %d loads, want %d", why, loads, n)
		}
	}
	first := ask("c1", ContextOptions{Intent: "Rename the customer"}, plans.Policy{})
	built, _ := BuildContext(archixml.Example(), ContextOptions{Intent: "Rename the customer"}, plans.Policy{})
	if !bytes.Equal(first, built.JSON()) {
		t.Fatal("the cached context is not BuildContext's")
	}
	if again := ask("c1", ContextOptions{Intent: "Rename the customer"}, plans.Policy{}); !bytes.Equal(again, first) {
		t.Fatal("asked again, another answer")
	}
	want(1, "asked again")
	ask("c1", ContextOptions{Intent: "Something else"}, plans.Policy{})
	want(2, "other options")
	ask("c1", ContextOptions{Intent: "Rename the customer"}, plans.Policy{AllowedOps: []string{"rename_element"}})
	want(3, "another policy")
	commit = "c2"
	ask("c2", ContextOptions{Intent: "Rename the customer"}, plans.Policy{})
	want(4, "HEAD moved")
	ask("c1", ContextOptions{Intent: "Rename the customer"}, plans.Policy{})
	want(5, "back to the first HEAD (emptied when HEAD moved)")
	ask("c1", ContextOptions{Intent: "Rename the customer"}, plans.Policy{})
	want(6, "a model read at c2 kept as c1's")
	ask("", ContextOptions{}, plans.Policy{})
	ask("", ContextOptions{}, plans.Policy{})
	want(8, "no HEAD: nothing cached")
}

// A Cache keeps at most maxCached contexts of one HEAD: an agent asking many different things
// does not grow it without end.
func TestCache_Bounded(t *testing.T) {
	var c Cache
	load := func() (*archixml.Model, string, error) { return archixml.Example(), "c1", nil }
	for i := range maxCached + 3 {
		if _, err := c.JSON("c1", ContextOptions{MaxElements: i + 1}, plans.Policy{}, load); err != nil {
			t.Fatal(err)
		}
		if n := len(c.contexts); n > maxCached {
			t.Fatalf("%d contexts kept, at most %d", n, maxCached)
		}
	}
}
