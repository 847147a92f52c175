package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/store"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv("ARCHIPLAN_CRASH_WORKER"); dir != "" {
		os.Exit(crashWorker(dir))
	}
	os.Exit(m.Run())
}

// crashWorker applies the plans waiting in dir's inbox, oldest first, as the daemon does: apply,
// then remove the inbox file; a plan found applied already is only removed.
func crashWorker(dir string) int {
	ws, err := store.Open(dir, "model.archimate")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	l := ledger.New(ledger.Config{Workspace: ws, ApprovedBy: store.Signature{Name: "crash", Email: "crash@test"}})
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "plans", "p*.json"))
		if len(files) == 0 {
			return 0
		}
		sort.Strings(files)
		f := files[0]
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		_, err = l.Apply(context.Background(), ledger.Request{Name: name, File: f, Raw: raw})
		if err != nil && !errors.Is(err, ledger.ErrAlreadyApplied) {
			if errors.Is(err, store.ErrLocked) {
				continue
			}
			fmt.Fprintln(os.Stderr, "apply:", err)
			return 1
		}
		os.Remove(f)
	}
}

// TestCrash_KillDuringApplies kills a process applying plans with SIGKILL at random moments, at
// least 100 times, with plans always waiting. After each kill: the lock can be taken, the model file parses and is the model
// at HEAD (once the next run has finished what the crash interrupted), git fsck is clean, and
// every plan is applied exactly once or still waiting.
func TestCrash_KillDuringApplies(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process 100 times")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "t", Email: "t@t"}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := archixml.Load(seed)
	customer := m.Elements()[0].ID()
	written := 0
	// the inbox is kept topped up before each run, so that how fast applies are never decides
	// whether a run is killed mid-work (a run that empties it anyway is counted, not killed, and
	// the top-up doubles)
	topUp := func(waiting int) {
		files, _ := filepath.Glob(filepath.Join(dir, "plans", "p*.json"))
		for n := len(files); n < waiting; n++ {
			i := written
			p := fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"step %d","actions":[{"op":"set_property","element_id":%q,"key":"step","value":"%d"},{"op":"create_element","type":"Goal","name":"Goal %d"}]}`, i, customer, i, i)
			if err := os.WriteFile(filepath.Join(dir, "plans", fmt.Sprintf("p%05d.json", i)), []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
			written++
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kills, killedMidway, emptied, waiting := 0, 0, 0, 40
	for kills < 100 {
		topUp(waiting)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ARCHIPLAN_CRASH_WORKER="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(150)) * time.Millisecond) // a random moment, not a wait for a state
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if err == nil { // it applied every plan waiting before the kill
			emptied++
			waiting *= 2
			checkAfterCrash(t, ws, dir, written)
			continue
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
			t.Fatalf("worker failed on its own: %v\n%s", err, stderr.String())
		}
		kills++
		if _, err := os.Stat(filepath.Join(dir, ".git", "archiplan-inflight.json")); err == nil {
			killedMidway++
		}
		checkAfterCrash(t, ws, dir, written)
	}
	// and a last run, not killed, finishes every plan exactly once
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ARCHIPLAN_CRASH_WORKER="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	applied := checkAfterCrash(t, ws, dir, written)
	if applied != written {
		t.Fatalf("%d plans applied in the end, want %d", applied, written)
	}
	// and the audit says each apply once, even those a kill cut off before their events were
	// recorded (the next run recorded them from what the apply wrote down first)
	a, err := ledger.ReadAudit(ws)
	if err != nil {
		t.Fatal(err)
	}
	said := map[string]int{}
	for _, e := range a.Events {
		if e.Event == ledger.EventApplied {
			said[e.PlanID]++
		}
	}
	if len(a.Unverified) > 0 || len(said) != written {
		t.Fatalf("the audit says %d plans applied (want %d), %d events unverified: %+v", len(said), written, len(a.Unverified), a.Unverified)
	}
	for id, n := range said {
		if n != 1 {
			t.Fatalf("the audit says %s applied %d times", id, n)
		}
	}
	t.Logf("%d kills (%d with an apply in flight between commit and work tree; %d runs emptied the inbox first), %d plans applied once each", kills, killedMidway, emptied, applied)
}

// checkAfterCrash checks the workspace the way the next run finds it, and returns how many plans
// are applied.
func checkAfterCrash(t *testing.T, ws *store.Workspace, dir string, written int) int {
	t.Helper()
	lock, err := ws.Lock()
	if err != nil {
		t.Fatalf("the lock is stuck after a kill: %v", err)
	}
	if _, err := ws.Recover(); err != nil {
		t.Fatalf("recover: %v", err)
	}
	lock.Unlock()
	head, err := ws.ReadModel()
	if err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(filepath.Join(dir, "model.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(disk, head.Data) {
		t.Fatal("the model file differs from the model at HEAD")
	}
	if _, err := archixml.Load(disk); err != nil {
		t.Fatalf("the model file does not parse: %v", err)
	}
	for _, l := range []string{".git/index.lock", ".git/refs/heads/main.lock"} {
		if _, err := os.Stat(filepath.Join(dir, l)); err == nil {
			t.Fatalf("%s left behind: git would refuse to work", l)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain").CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 && !bytes.Contains(out, []byte("plans/")) {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--full", "--no-dangling").CombinedOutput(); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
	hist, err := ws.History(nil)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range hist {
		if id := c.Trailers[store.TrailerPlanID]; id != "" {
			count[ledger.PlanName(id)]++
		}
	}
	applied := 0
	for name, n := range count {
		if n > 1 {
			t.Fatalf("plan %s applied %d times", name, n)
		}
		applied++
	}
	files, _ := filepath.Glob(filepath.Join(dir, "plans", "p*.json"))
	waiting := map[string]bool{}
	for _, f := range files {
		waiting[strings.TrimSuffix(filepath.Base(f), ".json")] = true
	}
	for i := 0; i < written; i++ {
		name := fmt.Sprintf("p%05d", i)
		if count[name] == 0 && !waiting[name] {
			t.Fatalf("plan %s is neither applied nor waiting: lost", name)
		}
	}
	return applied
}
