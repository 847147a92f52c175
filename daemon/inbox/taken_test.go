package inbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// plants are what a planner may put in the inbox under the name a plan is about to be renamed to:
// a file of its own, a link to a file outside, a FIFO. Each reports whether it is still there as
// planted (and the outside file unchanged).
var plants = []struct {
	kind  string
	plant func(t *testing.T, path string) (intact func() bool)
}{
	{"file", func(t *testing.T, path string) func() bool {
		os.WriteFile(path, []byte("planner's"), 0o644)
		return func() bool { data, err := os.ReadFile(path); return err == nil && string(data) == "planner's" }
	}},
	{"link", func(t *testing.T, path string) func() bool {
		outside := filepath.Join(t.TempDir(), "outside")
		os.WriteFile(outside, []byte("outside"), 0o644)
		os.Symlink(outside, path)
		return func() bool {
			fi, err := os.Lstat(path)
			data, _ := os.ReadFile(outside)
			return err == nil && fi.Mode()&fs.ModeSymlink != 0 && string(data) == "outside"
		}
	}},
	{"fifo", func(t *testing.T, path string) func() bool {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		return func() bool { fi, err := os.Lstat(path); return err == nil && fi.Mode()&fs.ModeNamedPipe != 0 }
	}},
}

// byPlanner plants what at path as another user's (nobody's), as a planner running as another OS
// user than the daemon writes it; the daemon's own plan then decides its NAME (outranks).
func byPlanner(t *testing.T, path string, plant func(*testing.T, string) func() bool) func() bool {
	t.Helper()
	intact := plant(t, path)
	if os.Getuid() == 0 {
		if err := os.Lchown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	return intact
}

// Approving renames NAME.json to NAME.approved only when no file takes that name: a planner's
// NAME.approved (a file, a link, a FIFO) is neither replaced nor followed; the approval is refused
// with its code, and the plan stays pending as it was.
func TestInbox_ApproveNeverOverAPlannersFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("a planner's file is another user's: needs root to give it away")
	}
	for _, p := range plants {
		t.Run(p.kind, func(t *testing.T) {
			b, _ := published(t, "x")
			intact := byPlanner(t, b.Path(ApprovedFile("x")), p.plant)
			if e, err := b.Find("x"); err != nil || e.File != PlanFile("x") {
				t.Fatalf("the daemon's x.json does not decide x: %+v %v", e, err)
			}
			if err := b.Approve("x"); !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), "INBOX_NAME_TAKEN") {
				t.Fatalf("approve over the planner's %s: %v", p.kind, err)
			}
			if !intact() {
				t.Fatalf("the planner's %s was replaced or followed", p.kind)
			}
			if data, _ := os.ReadFile(b.Path(PlanFile("x"))); string(data) != `{"summary":"s"}` {
				t.Fatalf("x.json is now %q", data)
			}
		})
	}
}

// Rejecting renames a plan to NAME.rejected only when no file takes that name, pending or
// approved: refused with its code, before the rejection is written over the preview, and the
// planner's file is neither replaced nor followed.
func TestInbox_RejectNeverOverAPlannersFile(t *testing.T) {
	for _, p := range plants {
		for _, state := range []State{Pending, Approved} {
			t.Run(p.kind+"/"+string(state), func(t *testing.T) {
				b, _ := published(t, "x")
				e := Entry{Name: "x", File: PlanFile("x"), State: Pending}
				if state == Approved {
					if err := os.Rename(b.Path(PlanFile("x")), b.Path(ApprovedFile("x"))); err != nil {
						t.Fatal(err)
					}
					e = Entry{Name: "x", File: ApprovedFile("x"), State: Approved}
				}
				preview, _ := os.ReadFile(b.Path(PreviewFile("x")))
				intact := byPlanner(t, b.Path(RejectedFile("x")), p.plant)
				out := Outputs{Preview: []byte("# rejected\n"), Report: []byte(`{"verdict":"rejected"}`)}
				if err := b.Reject(e, out, &Record{Verdict: "rejected"}); !errors.Is(err, ErrNameTaken) {
					t.Fatalf("reject over the planner's %s: %v", p.kind, err)
				}
				if !intact() {
					t.Fatalf("the planner's %s was replaced or followed", p.kind)
				}
				if data, _ := os.ReadFile(b.Path(e.File)); string(data) != `{"summary":"s"}` {
					t.Fatalf("%s is now %q", e.File, data)
				}
				if now, _ := os.ReadFile(b.Path(PreviewFile("x"))); string(now) != string(preview) {
					t.Fatalf("the rejection was half-written: the preview is now %q", now)
				}
			})
		}
	}
}
