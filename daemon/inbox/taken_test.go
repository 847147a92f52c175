package inbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plants are what a planner may put in the inbox under the name a plan is about to be renamed to:
// a file of its own, a link to a file outside, a FIFO. Each reports whether what lies outside the
// inbox is unchanged (the link never followed).
var plants = []struct {
	kind  string
	plant func(t *testing.T, path string) (outsideKept func() bool)
}{
	{"file", func(t *testing.T, path string) func() bool {
		os.WriteFile(path, []byte("planner's"), 0o644)
		return func() bool { return true }
	}},
	{"link", func(t *testing.T, path string) func() bool {
		outside := filepath.Join(t.TempDir(), "outside")
		os.WriteFile(outside, []byte("outside"), 0o644)
		os.Symlink(outside, path)
		return func() bool { data, _ := os.ReadFile(outside); return string(data) == "outside" }
	}},
	{"fifo", func(t *testing.T, path string) func() bool {
		if err := mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		return func() bool { return true }
	}},
}

// isThePlan reports whether the inbox's file at path is a regular file holding the plan's bytes
// (the planner's file, link or pipe replaced by it).
func isThePlan(path string) bool {
	fi, err := os.Lstat(path)
	data, _ := os.ReadFile(path)
	return err == nil && fi.Mode().IsRegular() && string(data) == `{"summary":"s"}`
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

// Approving renames NAME.json to NAME.approved over whatever a planner put at NAME.approved (a
// file, a link, a FIFO): the person's approval is never blocked by it (issue 35), and the link is
// replaced, never followed. A directory there, which no rename replaces, refuses with its code.
func TestInbox_ApproveOverAPlannersFile(t *testing.T) {
	for _, p := range plants {
		t.Run(p.kind, func(t *testing.T) {
			b, _ := published(t, "x")
			outsideKept := byPlanner(t, b.Path(ApprovedFile("x")), p.plant)
			if e, err := b.Find("x"); err != nil || e.File != PlanFile("x") {
				t.Fatalf("the daemon's x.json does not decide x: %+v %v", e, err)
			}
			if err := b.Approve("x"); err != nil {
				t.Fatalf("approve over the planner's %s: %v", p.kind, err)
			}
			if !outsideKept() {
				t.Fatalf("the planner's %s was followed", p.kind)
			}
			if !isThePlan(b.Path(ApprovedFile("x"))) {
				t.Fatalf("x.approved is not the plan approved")
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		b, _ := published(t, "x")
		byPlanner(t, b.Path(ApprovedFile("x")), func(t *testing.T, path string) func() bool {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		if e, err := b.Find("x"); err != nil || e.File != PlanFile("x") {
			t.Skipf("a planner's directory decides x where it is not another user's: %+v %v", e, err)
		}
		if err := b.Approve("x"); !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), "INBOX_NAME_TAKEN") {
			t.Fatalf("approve over a directory: %v", err)
		}
		if !isThePlan(b.Path(PlanFile("x"))) {
			t.Fatal("x.json changed")
		}
	})
}

// Rejecting renames a plan to NAME.rejected over whatever a planner put there (pending or
// approved), never following it; a directory there refuses with its code before the rejection is
// written over the preview.
func TestInbox_RejectOverAPlannersFile(t *testing.T) {
	kinds := append(plants[:len(plants):len(plants)], struct {
		kind  string
		plant func(t *testing.T, path string) (outsideKept func() bool)
	}{"directory", func(t *testing.T, path string) func() bool {
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		return func() bool { return true }
	}})
	for _, p := range kinds {
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
				outsideKept := byPlanner(t, b.Path(RejectedFile("x")), p.plant)
				out := Outputs{Preview: []byte("# rejected\n"), Report: []byte(`{"verdict":"rejected"}`)}
				err := b.Reject(e, out, &Record{Verdict: "rejected"})
				if !outsideKept() {
					t.Fatalf("the planner's %s was followed", p.kind)
				}
				if p.kind == "directory" {
					if !errors.Is(err, ErrNameTaken) {
						t.Fatalf("reject over a directory: %v", err)
					}
					if !isThePlan(b.Path(e.File)) {
						t.Fatalf("%s changed", e.File)
					}
					if now, _ := os.ReadFile(b.Path(PreviewFile("x"))); string(now) != string(preview) {
						t.Fatalf("the rejection was half-written: the preview is now %q", now)
					}
					return
				}
				if err != nil {
					t.Fatalf("reject over the planner's %s: %v", p.kind, err)
				}
				if !isThePlan(b.Path(RejectedFile("x"))) {
					t.Fatal("x.rejected is not the plan rejected")
				}
				if now, _ := os.ReadFile(b.Path(PreviewFile("x"))); string(now) != "# rejected\n" {
					t.Fatalf("the preview is %q, not the rejection", now)
				}
			})
		}
	}
}

// A planner makes a directory where an output of its plan goes (NAME.preview.md, the report, a
// picture): no rename replaces it, so the preview could never be written, and the daemon tried
// again ten times a second, drawing the plan's pictures into the inbox each time. It is refused
// with its code before anything is written. Fails on main (the pictures were written, then a
// plain rename error).
func TestInbox_PublishOverAPlannersDirectory(t *testing.T) {
	for _, f := range []string{"p.preview.md", "p.report.json", "p.view-1.after.svg"} {
		t.Run(f, func(t *testing.T) {
			b := newInbox(t)
			if err := b.Submit("p", []byte(`{"summary":"s"}`)); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(b.Path(f), 0o755); err != nil {
				t.Fatal(err)
			}
			out := Outputs{Preview: []byte("preview"), Report: []byte("{}"),
				Pictures: map[string][]byte{"p.view-1.after.svg": []byte("<svg/>"), "p.view-1.before.svg": []byte("<svg/>")}}
			err := b.Publish("p", out, &Record{File: "p.json"})
			if !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), f) {
				t.Fatalf("publish over a directory %s: %v; want INBOX_NAME_TAKEN naming it", f, err)
			}
			// status and the review page say the same reason (on mergetest: none)
			if got := b.Taken()["p"]; got != err.Error() {
				t.Errorf("Taken says %q, the refusal %q", got, err.Error())
			}
			entries, _ := os.ReadDir(b.Dir)
			for _, e := range entries {
				if e.Name() != "p.json" && e.Name() != f {
					t.Errorf("%s written though the preview cannot be", e.Name())
				}
			}
			if _, err := b.Record("p"); err == nil {
				t.Error("a record written")
			}
		})
	}
}
