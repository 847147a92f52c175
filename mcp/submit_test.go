package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestSubmitPlan_UnsafeInbox(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "plans")
	os.Symlink(real, link)
	if _, err := submitPlan(link, "x", []byte("{}"), nil); !errors.Is(err, ErrUnsafeInbox) {
		t.Fatalf("a symlinked inbox: %v", err)
	}
	if _, err := submitPlan(filepath.Join(real, "missing"), "x", []byte("{}"), nil); !errors.Is(err, ErrUnsafeInbox) {
		t.Fatalf("a missing inbox: %v", err)
	}
	if entries, _ := os.ReadDir(real); len(entries) != 0 {
		t.Fatalf("written through the symlink: %v", entries)
	}
	// a link further up the path: the inbox itself is a folder, reached through the link
	os.Mkdir(filepath.Join(real, "plans"), 0o755)
	if _, err := submitPlan(filepath.Join(link, "plans"), "x", []byte("{}"), nil); !errors.Is(err, ErrUnsafeInbox) {
		t.Fatalf("an inbox under a symlinked folder: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(real, "plans")); len(entries) != 0 {
		t.Fatalf("written through the symlinked folder: %v", entries)
	}
}

// Submissions of one name at the same time: exactly one lands, whole.
func TestSubmitPlan_Race(t *testing.T) {
	inbox := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := submitPlan(inbox, "same", []byte(fmt.Sprintf(`{"n":%d}`, i)), nil); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			} else if !errors.Is(err, ErrPlanExists) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	entries, _ := os.ReadDir(inbox)
	if won != 1 || len(entries) != 1 {
		t.Fatalf("%d won, inbox %v", won, entries)
	}
	var v map[string]int
	if data, _ := os.ReadFile(filepath.Join(inbox, "same.json")); json.Unmarshal(data, &v) != nil {
		t.Fatalf("not whole: %s", data)
	}
}

// A NAME is taken in any state of its plan: pending, approved (either spelling), rejected, or with
// a context waiting. submit_plan never writes NAME.json beside an approval, where it could be
// taken for what the person approved.
func TestSubmitPlan_TakenInAnyState(t *testing.T) {
	for _, f := range []string{"x.json", "x.approved", "x.json.approved", "x.rejected", "x.context.json"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644)
		if _, err := submitPlan(dir, "x", []byte(`{"summary":"new"}`), nil); !errors.Is(err, ErrPlanExists) {
			t.Errorf("with %s in the inbox: %v", f, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("with %s in the inbox, it now holds %d files", f, len(entries))
		}
	}
}

// The README's rule for submit_plan's NAME, as the code has it.
func TestCheckPlanName_README(t *testing.T) {
	for name, ok := range map[string]bool{"a": true, "A-1_b": true, strings.Repeat("x", 100): true,
		"": false, strings.Repeat("x", 101): false, "a.b": false, "a.approved": false, "-a": false, "_a": false, "a b": false, "ä": false} {
		if err := checkPlanName(name); (err == nil) != ok {
			t.Errorf("%q: %v, want ok=%v", name, err, ok)
		}
	}
}
