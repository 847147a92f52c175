package inbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// newInbox is an empty inbox with its records in a folder of their own.
func newInbox(t *testing.T) *Inbox {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return New(dir, filepath.Join(root, "state"))
}

// published is an inbox holding the plan NAME.json with a preview archiplan wrote (one picture,
// the preview, the report) and its record.
func published(t *testing.T, name string) (*Inbox, *Record) {
	t.Helper()
	b := newInbox(t)
	if err := b.Submit(name, []byte(`{"summary":"s"}`)); err != nil {
		t.Fatal(err)
	}
	out := Outputs{Preview: []byte("# preview\n"), Report: []byte(`{"verdict":"valid"}`),
		Pictures: map[string][]byte{PictureFile(name, 1, true): []byte("<svg/>")}}
	rec := &Record{File: PlanFile(name), Verdict: "valid"}
	if err := b.Publish(name, out, rec); err != nil {
		t.Fatal(err)
	}
	back, err := b.Record(name)
	if err != nil {
		t.Fatal(err)
	}
	return b, back
}

// Verify calls a preview forged when any file it wrote is not its bytes any more, and when it
// cannot be read at all: replaced by a link (to the very bytes archiplan wrote), a FIFO, a folder,
// or removed. An unreadable output is never skipped: the person may have read something else.
func TestInbox_Verify(t *testing.T) {
	for _, file := range []string{PreviewFile("p"), ReportFile("p"), PictureFile("p", 1, true)} {
		for _, c := range []struct {
			how    string
			plant  func(t *testing.T, path string)
			reason string
		}{
			{"changed", func(t *testing.T, path string) { os.WriteFile(path, []byte("# a forgery\n"), 0o644) }, "changed after"},
			{"link to its own bytes", func(t *testing.T, path string) {
				data, _ := os.ReadFile(path)
				real := filepath.Join(t.TempDir(), "same")
				os.WriteFile(real, data, 0o644)
				os.Remove(path)
				if err := os.Symlink(real, path); err != nil {
					t.Fatal(err)
				}
			}, "symbolic link"},
			{"fifo", func(t *testing.T, path string) {
				os.Remove(path)
				if err := mkfifo(path, 0o644); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			}, "named pipe"},
			{"folder", func(t *testing.T, path string) { os.Remove(path); os.Mkdir(path, 0o755) }, "folder"},
			{"removed", func(t *testing.T, path string) { os.Remove(path) }, "no such file"},
		} {
			t.Run(file+"/"+c.how, func(t *testing.T) {
				b, rec := published(t, "p")
				if got, err := b.Verify(rec); err != nil || len(got) != 3 {
					t.Fatalf("before: %d files, %v", len(got), err)
				}
				c.plant(t, b.Path(file))
				got, err := b.Verify(rec)
				if !errors.Is(err, ErrForged) || !strings.Contains(err.Error(), c.reason) {
					t.Fatalf("Verify with %s %s: %v (want %v saying %q)", file, c.how, err, ErrForged, c.reason)
				}
				if got != nil {
					t.Fatalf("Verify returned files with a forgery: %v", got)
				}
				// the approval a review page would make refuses too
				if err := b.ApproveSeen("p", rec.Outputs[PreviewFile("p")], "r"); !errors.Is(err, ErrForged) {
					t.Fatalf("ApproveSeen: %v", err)
				}
				if _, err := os.Lstat(b.Path(ApprovedFile("p"))); err == nil {
					t.Fatal("approved over a forged preview")
				}
			})
		}
	}
}

// The one plan file of a NAME that decides: an approval over a rejection over a pending plan, in
// either spelling of the approval, whatever the order of the names. A NAME.json a planner drops
// beside NAME.approved must never become what is applied or previewed.
func TestInbox_ListRanksApprovalFirst(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{"x.json", "x.approved"}, "x.approved"},
		{[]string{"x.json", "x.json.approved"}, "x.json.approved"},
		{[]string{"x.json", "x.rejected"}, "x.rejected"},
		{[]string{"x.rejected", "x.approved"}, "x.approved"},
		{[]string{"x.json", "x.rejected", "x.json.approved"}, "x.json.approved"},
		{[]string{"x.approved", "x.json.approved"}, "x.approved"},
		{[]string{"x.json"}, "x.json"},
	} {
		b := newInbox(t)
		for _, f := range c.files {
			os.WriteFile(b.Path(f), []byte("{}"), 0o644)
		}
		l, err := b.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Plans) != 1 || l.Plans[0].File != c.want {
			t.Errorf("%v: listed %+v, want only %s", c.files, l.Plans, c.want)
		}
		e, err := b.Find("x")
		if err != nil || e.File != c.want {
			t.Errorf("%v: Find gave %s (%v), want %s", c.files, e.File, err, c.want)
		}
	}
}

// A NAME reaches paths, commits and previews: only letters, digits, '-' and '_', never a dot (a
// NAME with one could pass for another's output), at most 100.
func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "plan-1", "A_b", strings.Repeat("a", 100), "0"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a.b", "x.preview", "a/b", "..", "-rf", "_x", "a b", "a\nb", strings.Repeat("a", 101), "ä"} {
		if err := CheckName(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
	if n, k, _ := Parse("x.preview.json"); k != KindUnsafe || n != "x.preview" {
		t.Errorf("x.preview.json parses as %q %v", n, k)
	}
}

// validName says what NamePattern, the pattern the messages show, matches whole: every string of
// one and two bytes, and the lengths around the cap.
func TestValidName(t *testing.T) {
	re := regexp.MustCompile(`^` + NamePattern + `$`)
	check := func(name string) {
		if got, want := validName(name), re.MatchString(name); got != want {
			t.Errorf("validName(%q) = %v, the pattern says %v", name, got, want)
		}
	}
	check("")
	for a := 0; a < 256; a++ {
		check(string([]byte{byte(a)}))
		for b := 0; b < 256; b++ {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
	for n := 98; n <= 102; n++ {
		for _, s := range []string{strings.Repeat("a", n), "a" + strings.Repeat("-", n-1), "_" + strings.Repeat("a", n-1), strings.Repeat("a", n-1) + "."} {
			check(s)
		}
	}
}

// Submit never replaces a file: a second plan of the same NAME, or a link planted at its name, is
// refused and left as it was.
func TestInbox_SubmitNeverOverwrites(t *testing.T) {
	b := newInbox(t)
	if err := b.Submit("p", []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := b.Submit("p", []byte("second")); !errors.Is(err, ErrExists) {
		t.Fatalf("a second submission: %v", err)
	}
	if data, _ := os.ReadFile(b.Path(PlanFile("p"))); string(data) != "first" {
		t.Fatalf("the plan is now %q", data)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.Symlink(outside, b.Path(PlanFile("l")))
	if err := b.Submit("l", []byte("through")); !errors.Is(err, ErrExists) {
		t.Fatalf("a submission over a link: %v", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "outside" {
		t.Fatal("written through a link")
	}
	if fi, _ := os.Lstat(b.Path(PlanFile("l"))); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
}

// Withdraw puts an approval back to NAME.json only when no NAME.json is there: a plan a planner
// left beside the approval is never overwritten by it, nor the other way round.
func TestInbox_WithdrawNeverOverAPlan(t *testing.T) {
	b := newInbox(t)
	os.WriteFile(b.Path("x.approved"), []byte("approved"), 0o644)
	os.WriteFile(b.Path("x.json"), []byte("pending"), 0o644)
	e, err := b.Find("x")
	if err != nil || e.State != Approved {
		t.Fatalf("%+v %v", e, err)
	}
	if err := b.Withdraw(e); !errors.Is(err, ErrExists) {
		t.Fatalf("Withdraw over x.json: %v", err)
	}
	if data, _ := os.ReadFile(b.Path("x.json")); string(data) != "pending" {
		t.Fatalf("x.json is now %q", data)
	}
	if _, err := os.Lstat(b.Path("x.approved")); err != nil {
		t.Fatal("the approval is gone")
	}
	os.Remove(b.Path("x.json"))
	if err := b.Withdraw(e); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(b.Path("x.json")); string(data) != "approved" {
		t.Fatalf("x.json is %q after the withdrawal", data)
	}
}

// A NAME.json a planner writes while Withdraw runs (after any look it could take, before it
// moves the approval) is never overwritten: the withdrawal fails and both files stay as they are.
func TestInbox_WithdrawRaceWithAPlanner(t *testing.T) {
	b := newInbox(t)
	os.WriteFile(b.Path("x.approved"), []byte("approved"), 0o644)
	e, err := b.Find("x")
	if err != nil || e.State != Approved {
		t.Fatalf("%+v %v", e, err)
	}
	withdrawHook = func() { os.WriteFile(b.Path("x.json"), []byte("planner's"), 0o644) }
	defer func() { withdrawHook = nil }()
	if err := b.Withdraw(e); !errors.Is(err, ErrExists) {
		t.Fatalf("Withdraw while x.json was written: %v", err)
	}
	if data, _ := os.ReadFile(b.Path("x.json")); string(data) != "planner's" {
		t.Fatalf("x.json is now %q: the planner's plan was overwritten", data)
	}
	if data, _ := os.ReadFile(b.Path("x.approved")); string(data) != "approved" {
		t.Fatalf("the approval is %q", data)
	}
}

// ApproveSeen approves only the very preview the reviewer was shown: once it was written again,
// the reviewer must read it again.
func TestInbox_ApproveSeenPreviewChanged(t *testing.T) {
	b, rec := published(t, "p")
	shown := rec.Outputs[PreviewFile("p")]
	// the daemon previews the plan again (HEAD moved): a new preview and record
	if err := b.Publish("p", Outputs{Preview: []byte("# preview, again\n"), Report: []byte(`{"verdict":"valid"}`)}, &Record{File: "p.json", Verdict: "valid"}); err != nil {
		t.Fatal(err)
	}
	if err := b.ApproveSeen("p", shown, "r"); !errors.Is(err, ErrPreviewChanged) {
		t.Fatalf("approval of a preview no longer on disk: %v", err)
	}
	if e, _ := b.Find("p"); e.State != Pending {
		t.Fatalf("approved: %+v", e)
	}
	now, _ := b.Record("p")
	if err := b.ApproveSeen("p", now.Outputs[PreviewFile("p")], "  Ann <a@b> \n"); err != nil {
		t.Fatal(err)
	}
	if e, _ := b.Find("p"); e.State != Approved {
		t.Fatalf("not approved: %+v", e)
	}
	if r, _ := b.Record("p"); r.Reviewer != "Ann a@b" {
		t.Fatalf("reviewer %q", r.Reviewer)
	}
}

// ReadFile never follows a link, never blocks on or reads a FIFO, a folder or a device, and never
// reads more than its cap.
func TestReadFile_OnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	os.WriteFile(regular, []byte("12345"), 0o644)
	if data, err := ReadFile(regular, 5); err != nil || string(data) != "12345" {
		t.Fatalf("%q %v", data, err)
	}
	if _, err := ReadFile(regular, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(regular, link)
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo, dir, "/dev/zero", "/dev/null"} {
		if data, err := ReadFile(p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: read %d bytes, %v", p, len(data), err)
		}
	}
}

// Publish writes only the files of its own NAME: a picture named as anything else (a plan, an
// approval, another NAME's output) is refused before anything is written.
func TestInbox_PublishOnlyItsOwnPictures(t *testing.T) {
	for _, bad := range []string{"p.approved", "p.json", "q.view-1.after.svg", "p.view-1.after.svg/../x", "p.preview.md"} {
		b := newInbox(t)
		err := b.Publish("p", Outputs{Preview: []byte("#\n"), Report: []byte("{}"), Pictures: map[string][]byte{bad: []byte("<svg/>")}}, &Record{})
		if !errors.Is(err, ErrBadName) {
			t.Errorf("picture %q: %v", bad, err)
		}
		if entries, _ := os.ReadDir(b.Dir); len(entries) != 0 {
			t.Errorf("picture %q: the inbox holds %d files", bad, len(entries))
		}
	}
}

// A record is NAME's only when it says so: one copied from another NAME proves nothing.
func TestInbox_RecordNamesItsPlan(t *testing.T) {
	b, _ := published(t, "p")
	data, err := os.ReadFile(b.recordPath("p"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(b.recordPath("q"), data, 0o644)
	if _, err := b.Record("q"); !errors.Is(err, ErrNotPreviewed) {
		t.Fatalf("p's record taken for q's: %v", err)
	}
	if _, err := b.Record("nothing"); !errors.Is(err, ErrNotPreviewed) {
		t.Fatalf("no record: %v", err)
	}
}

// Only a plan previewed valid is approved from a page: an approval of the very preview the
// person saw, when that preview says invalid, is refused and nothing is renamed.
func TestInbox_ApproveSeenOnlyValid(t *testing.T) {
	b := newInbox(t)
	if err := b.Submit("p", []byte(`{"summary":"s"}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish("p", Outputs{Preview: []byte("# invalid\n"), Report: []byte(`{"verdict":"invalid"}`)}, &Record{File: "p.json", Verdict: "invalid"}); err != nil {
		t.Fatal(err)
	}
	rec, _ := b.Record("p")
	if err := b.ApproveSeen("p", rec.Outputs[PreviewFile("p")], "r"); !errors.Is(err, ErrNotValid) {
		t.Fatalf("approval of a preview that says invalid: %v", err)
	}
	if e, _ := b.Find("p"); e.State != Pending {
		t.Fatalf("renamed: %+v", e)
	}
}

// issue 35: a file another user wrote (a planner's rejected self-approval) never outranks the
// plan archiplan's user owns (the one it adopted), whatever their states.
func TestList_AdoptedOutranksAPlannersFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to write a file as another user")
	}
	b := newInbox(t)
	for f, owner := range map[string]int{"p.json": os.Getuid(), "p.rejected": 65534, "q.json": 65534, "q.approved": 65534} {
		path := filepath.Join(b.Dir, f)
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, owner, -1); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"p": "p.json", "q": "q.approved"} {
		if e, err := b.Find(name); err != nil || e.File != want {
			t.Errorf("%s decides %s, want %s (%v)", name, e.File, want, err)
		}
	}
}

// issue 35: an approval is read only from a file with one link and, where asked, archiplan's
// user as its owner: judged on the file opened, whatever fs.protected_hardlinks lets a planner do.
func TestReadApproval_OneLinkOneOwner(t *testing.T) {
	b := newInbox(t)
	if err := os.WriteFile(filepath.Join(b.Dir, "p.approved"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := Entry{Name: "p", File: "p.approved", State: Approved}
	if _, err := b.ReadApproval(e, os.Getuid()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadApproval(e, os.Getuid()+1); !errors.Is(err, ErrNotAdopted) {
		t.Fatalf("another owner: %v", err)
	}
	// a system without user ids (Windows) cannot check adoption: the approval is refused
	if _, err := b.ReadApproval(e, OwnerUnknown); !errors.Is(err, ErrOwnerUnknown) {
		t.Fatalf("owner unknown: %v", err)
	}
	if err := os.Link(filepath.Join(b.Dir, "p.approved"), filepath.Join(b.Dir, "q.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadApproval(e, -1); !errors.Is(err, ErrLinked) {
		t.Fatalf("two links: %v", err)
	}
}
