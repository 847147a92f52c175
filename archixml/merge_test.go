package archixml_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/mergecase"
	"github.com/archiplan/archiplan/internal/testenv"
)

func load(t testing.TB, data []byte) *archixml.Model {
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// merged merges theirs into ours (files) on base and returns the file, or the conflicts.
func merged(t testing.TB, base, ours, theirs []byte, res map[string]archixml.Resolution) ([]byte, []archixml.Conflict) {
	o := load(t, ours)
	cs := archixml.Merge(load(t, base), o, load(t, theirs), res)
	if len(cs) > 0 {
		return nil, cs
	}
	out, err := o.Save()
	if err != nil {
		t.Fatal(err)
	}
	return out, nil
}

// The merge oracle: two plans on different objects, applied on two sides and merged, give the
// file of applying both one after the other, in the order ours then theirs (and the other way).
func TestMerge_OracleDisjointPlans(t *testing.T) {
	merges := 0
	for _, path := range testenv.CorpusModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			base, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(len(base)), 37))
			for round := 0; round < 6; round++ {
				p1, p2, a1, a2, ok := mergecase.DisjointPlans(t, base, rng)
				if !ok {
					t.Logf("round %d: no two plans on different objects", round)
					continue
				}
				want12, _, err := mergecase.Applied(t, a1, p2)
				if err != nil {
					t.Fatalf("round %d: theirs after ours: %v\n%s\n%s", round, err, p1, p2)
				}
				want21, _, err := mergecase.Applied(t, a2, p1)
				if err != nil {
					t.Fatalf("round %d: ours after theirs: %v\n%s\n%s", round, err, p1, p2)
				}
				got, cs := merged(t, base, a1, a2, nil)
				if cs != nil || !bytes.Equal(got, want12) {
					t.Fatalf("round %d: merge of theirs into ours: conflicts %v, %s\nours: %s\ntheirs: %s", round, cs, firstDiff(got, want12), p1, p2)
				}
				got, cs = merged(t, base, a2, a1, nil)
				if cs != nil || !bytes.Equal(got, want21) {
					t.Fatalf("round %d: merge of ours into theirs: conflicts %v, %s\nours: %s\ntheirs: %s", round, cs, firstDiff(got, want21), p2, p1)
				}
				merges += 2
			}
		})
	}
	t.Logf("%d merges give the file of both plans applied in turn", merges)
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("first difference at byte %d:\ngot:  %q\nwant: %q", i, a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}

// Plans changing the same fields give exactly the conflicts expected; each resolved for ours
// gives ours' file, for theirs theirs' values, and the merged model is one Archi opens.
func TestMerge_OracleConflicts(t *testing.T) {
	found, expected := 0, 0
	for _, path := range testenv.CorpusModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			base, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cases := mergecase.Cases(load(t, base))
			if len(base) > 1<<20 && len(cases) > 4 {
				cases = append(cases[:2], cases[len(cases)-4:]...) // a large model: fewer plans (each apply takes seconds)
			}
			for _, c := range cases {
				a1, _, err1 := mergecase.Applied(t, base, mergecase.Plan(c.P1...))
				a2, _, err2 := mergecase.Applied(t, base, mergecase.Plan(c.P2...))
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v %v", c.Name, err1, err2)
				}
				for _, swap := range []bool{false, true} {
					ours, theirs, want := a1, a2, slices.Clone(c.Want)
					if swap {
						ours, theirs = a2, a1
					}
					got, cs := merged(t, base, ours, theirs, nil)
					var keys []string
					for _, x := range cs {
						keys = append(keys, x.Key())
					}
					expected += len(want)
					found += len(keys)
					if !slices.Equal(keys, want) {
						t.Fatalf("%s (swapped %v): conflicts %v, want %v", c.Name, swap, cs, want)
					}
					if len(want) == 0 {
						p := c.P2
						if swap {
							p = c.P1
						}
						seq, _, err := mergecase.Applied(t, ours, mergecase.Plan(p...))
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, seq) {
							t.Fatalf("%s: %s", c.Name, firstDiff(got, seq))
						}
						continue
					}
					for _, side := range []string{archixml.Ours, archixml.Theirs} {
						res := map[string]archixml.Resolution{}
						for _, k := range keys {
							res[k] = archixml.Resolution{Side: side}
						}
						got, cs := merged(t, base, ours, theirs, res)
						if cs != nil {
							t.Fatalf("%s: resolved for %s: conflicts left %v", c.Name, side, cs)
						}
						if err := archixml.Check(load(t, got)); err != nil {
							t.Fatalf("%s: resolved for %s: %v", c.Name, side, err)
						}
						deleted := strings.HasSuffix(keys[0], " deleted")
						if deleted {
							// the side that deleted it wins: it is gone; else it is there
							id := strings.TrimSuffix(keys[0], " deleted")
							_, inOurs := load(t, ours).Object(id)
							_, inGot := load(t, got).Object(id)
							if inGot != inOurs && side == archixml.Ours || inGot == inOurs && side == archixml.Theirs {
								t.Fatalf("%s (swapped %v): resolved for %s: the object is there: %v", c.Name, swap, side, inGot)
							}
							continue
						}
						switch {
						case side == archixml.Ours && !c.OursPlusTheirs && !bytes.Equal(got, ours):
							t.Fatalf("%s: resolved for ours: %s", c.Name, firstDiff(got, ours))
						case side == archixml.Theirs && c.TheirsIsSequential:
							p := c.P2
							if swap {
								p = c.P1
							}
							seq, _, err := mergecase.Applied(t, ours, mergecase.Plan(p...))
							if err != nil {
								t.Fatal(err)
							}
							if !bytes.Equal(got, seq) {
								t.Fatalf("%s: resolved for theirs: %s", c.Name, firstDiff(got, seq))
							}
						}
					}
				}
			}
		})
	}
	t.Logf("conflicts: %d expected, %d found", expected, found)
}
