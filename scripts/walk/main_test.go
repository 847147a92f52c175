package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestWalk walks testdata/mod: top's Decide asks low, decides in top, and asks low again.
func TestWalk(t *testing.T) {
	r, err := Walk("testdata/mod", "./top", "Decider.Decide", 2)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.Print(&out)
	t.Log(out.String())
	// depth 1: low.Ask, decide, low.Again; depth 2: trim and Again under Ask, deep under decide
	// (deeper is depth 3); Again's body calls nothing
	want := []string{"low.Ask", "low.trim", "low.Again", "top.Decider).decide", "top.deep", "low.Again"}
	if len(r.Stops) != len(want) {
		t.Fatalf("%d stops, want %d", len(r.Stops), len(want))
	}
	for i, s := range r.Stops {
		if !strings.Contains(s.Callee, want[i]) {
			t.Errorf("stop %d is %s, want %s", i+1, s.Callee, want[i])
		}
	}
	// top.go, low.go, top.go (decide), low.go (Again): each visited twice; one climb (low back to top)
	if got, want := r.Summary(), "6 stops, 2 files, max 2 visits (low/low.go), 1 climbs"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if !r.Stops[3].Climb {
		t.Error("the call of decide after low answered is no climb")
	}

	r, err = Walk("testdata/mod", "./top", "Decider.Decide", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stops) != 7 {
		t.Errorf("depth 3: %d stops, want 7 (deeper)", len(r.Stops))
	}
}

// TestApprove_OneDecision holds issue 41's measure of (*Ledger).Approve: following it two calls
// deep takes at most 30 stops, and no file is visited more than twice (the inbox is asked once,
// for one value, and the approval decided from it).
func TestApprove_OneDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole module")
	}
	r, err := Walk("../..", "./daemon/ledger", "Ledger.Approve", 2)
	if err != nil {
		t.Fatal(err)
	}
	if v, f := r.MaxVisits(); len(r.Stops) > 30 || v > 2 {
		var out bytes.Buffer
		r.Print(&out)
		t.Errorf("Approve walks %d stops (at most 30), %s visited %d times (at most 2):\n%s", len(r.Stops), f, v, out.String())
	}
}
