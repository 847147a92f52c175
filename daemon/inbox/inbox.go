// Package inbox is the inbox's file protocol, in one place: which files a plan's NAME has and
// what state their names say it is in, the one pattern a NAME must match before it reaches a
// path, a commit, a preview or a log, safe reads (never through a link, never blocking, never
// more than a cap), the outputs archiplan writes (preview, report, pictures) and the record of
// what it wrote, kept under .git/ where no planner can reach it.
//
// The inbox is written by planners, and planners are not trusted: of its files, only the plan is
// input. Previews and reports are outputs; they are never read back as evidence. What an
// approval is checked against is the Record.
package inbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/archiplan/archiplan/internal/osfile"
)

// State is the state a plan file's name gives it.
type State string

// The states of a plan in the inbox.
const (
	Pending  State = "pending"  // NAME.json: previewed on every change
	Approved State = "approved" // NAME.approved or NAME.json.approved: apply it
	Rejected State = "rejected" // NAME.rejected: not applied, never previewed again; Resubmit gives it a new NAME
)

// Suffixes of the inbox's files. Nothing outside this package spells them.
const (
	SuffixPlan         = ".json"
	SuffixApproved     = ".approved"
	SuffixJSONApproved = ".json.approved"
	SuffixRejected     = ".rejected"
	SuffixPreview      = ".preview.md"
	SuffixReport       = ".report.json"
	SuffixContext      = ".context.json"
	// pictures of a preview: NAME.view-N.before.svg and NAME.view-N.after.svg
	picturePrefix = ".view-"
	pictureSuffix = ".svg"
)

// Size caps of what is read from the inbox.
const (
	MaxPlanBytes    = 4 << 20  // a plan
	MaxContextBytes = 32 << 20 // a planning context
	MaxOutputBytes  = 64 << 20 // a preview or picture archiplan wrote, read back to compare its hash
)

var (
	// ErrBadName means a plan's NAME does not match the one safe pattern.
	ErrBadName = errors.New("not a safe plan name")
	// ErrNotRegular means a file is a link, a folder, a pipe, a socket or a device: never read.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge means a file is over its cap.
	ErrTooLarge = errors.New("over the size limit")
	// ErrNotAdopted means an approval is a file another user than archiplan's wrote.
	ErrNotAdopted = errors.New("a file archiplan did not adopt")
	// ErrOwnerUnknown means approvals are to be files archiplan's user owns (planner_group) on a
	// system that cannot tell a file's owner as a user id (Windows): every approval is refused.
	ErrOwnerUnknown = errors.New("this system cannot tell which user owns a file: planner_group needs Linux or macOS")
	// ErrLinked means an approval's file has more than one name (a hard link).
	ErrLinked = errors.New("a file with more than one link")
	// ErrExists means a file with that name is already there.
	ErrExists = errors.New("already in the inbox")
	// ErrNoPlan means no plan file has that NAME.
	ErrNoPlan = errors.New("no such plan in the inbox")
	// ErrNameTaken means a plan cannot be renamed approved or rejected: a directory (a
	// planner's) takes NAME.approved or NAME.rejected, which a rename cannot replace (a file, link
	// or pipe there is replaced). Its text is the code (plans.InboxNameTaken; the inbox imports
	// nothing of plans).
	ErrNameTaken = errors.New("INBOX_NAME_TAKEN")
)

// NamePattern is the pattern every plan NAME matches, for error messages and the README.
const NamePattern = `[A-Za-z0-9][A-Za-z0-9_-]{0,99}`

// CheckName says whether a NAME may be used: letters, digits, '-' and '_', at most 100, starting
// with a letter or digit. No dot (so that no NAME can pass for another's output), no slash, no
// space, no newline, nothing Markdown or a shell would read.
func CheckName(name string) error {
	if !validName(name) {
		if n := NameOf(name); n != "" {
			// archiplan approve plans/client.json: the file's NAME is what was meant
			return fmt.Errorf("%w: %q is a plan's file; its NAME is %s", ErrBadName, clip(name, 80), n)
		}
		return fmt.Errorf("%w: %q (a NAME is %s)", ErrBadName, clip(name, 80), NamePattern)
	}
	return nil
}

// validName says whether name matches NamePattern whole, by hand: the pattern as a regular
// expression is a compile of hundreds of instructions (its bounded repetition), which every apply
// paid (0.4% of a 1k cold apply's CPU in perf) for what this loop says (TestValidName).
func validName(name string) bool {
	if name == "" || len(name) > 100 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Kind says what a file in the inbox is.
type Kind int

// The kinds of files in the inbox.
const (
	KindOther   Kind = iota // not archiplan's: left alone
	KindTemp                // a temporary or hidden file: waited for, never judged
	KindPlan                // a plan: Pending, Approved or Rejected
	KindPreview             // NAME.preview.md (an output)
	KindReport              // NAME.report.json (an output)
	KindPicture             // NAME.view-N.before.svg / .after.svg (an output)
	KindContext             // NAME.context.json (the planning context a plan was asked with)
	KindUnsafe              // looks like a plan but its NAME does not match the pattern
)

// Parse reads an inbox file name: its NAME, kind and (for plans) state.
func Parse(file string) (name string, kind Kind, state State) {
	if isTemp(file) {
		return "", KindTemp, ""
	}
	for _, s := range []struct {
		suffix string
		kind   Kind
		state  State
	}{
		{SuffixPreview, KindPreview, ""},
		{SuffixReport, KindReport, ""},
		{SuffixContext, KindContext, ""},
		{SuffixJSONApproved, KindPlan, Approved},
		{SuffixApproved, KindPlan, Approved},
		{SuffixRejected, KindPlan, Rejected},
		{SuffixPlan, KindPlan, Pending},
	} {
		if n, ok := strings.CutSuffix(file, s.suffix); ok {
			if CheckName(n) != nil {
				if s.kind == KindPlan {
					return n, KindUnsafe, s.state
				}
				return "", KindOther, ""
			}
			return n, s.kind, s.state
		}
	}
	if n, ok := strings.CutSuffix(file, pictureSuffix); ok {
		if i := strings.Index(n, picturePrefix); i > 0 && CheckName(n[:i]) == nil {
			return n[:i], KindPicture, ""
		}
	}
	return "", KindOther, ""
}

// isTemp: editors' and archiplan's own temporary files, and hidden files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") || strings.HasSuffix(name, "~") ||
		strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".part") ||
		strings.Contains(name, ".tmp-")
}

// Names of a NAME's files.
func PlanFile(name string) string     { return name + SuffixPlan }
func ApprovedFile(name string) string { return name + SuffixApproved }
func RejectedFile(name string) string { return name + SuffixRejected }
func PreviewFile(name string) string  { return name + SuffixPreview }
func ReportFile(name string) string   { return name + SuffixReport }
func ContextFile(name string) string  { return name + SuffixContext }

// PictureFile is the file of a view's picture in a preview: the n-th view, before or after.
func PictureFile(name string, n int, after bool) string {
	side := "before"
	if after {
		side = "after"
	}
	return fmt.Sprintf("%s%s%d.%s%s", name, picturePrefix, n, side, pictureSuffix)
}

// WholePictureFile is the file of the n-th view's whole picture, linked from its cropped ones.
func WholePictureFile(name string, n int) string {
	return fmt.Sprintf("%s%s%d.whole%s", name, picturePrefix, n, pictureSuffix)
}

// NameOf is the NAME of a plan file's path (any of its states), or "" when the path's base name
// is not a plan file of a safe NAME.
func NameOf(path string) string {
	name, kind, _ := Parse(filepath.Base(path))
	if kind != KindPlan {
		return ""
	}
	return name
}

// Entry is one plan file in the inbox.
type Entry struct {
	Name  string
	File  string // its file name in the inbox
	State State
	Info  fs.FileInfo // from the listing (Lstat): a link is a link
}

// Listing is the inbox at one moment.
type Listing struct {
	// Plans has one entry per NAME, the one that decides: an approval outranks a rejection, which
	// outranks a pending plan, so a NAME.json left beside NAME.approved cannot overwrite what the
	// approval came to. Sorted by file name: the order approvals are applied in.
	Plans []Entry
	// Outputs are the names of archiplan's outputs and contexts, by NAME.
	Outputs map[string][]string
	// Unsafe are plan-like files whose NAME does not match the pattern: never judged.
	Unsafe []string
}

var rank = map[State]int{Pending: 0, Rejected: 1, Approved: 2}

// outranks says whether p decides its NAME over cur: a file archiplan's user owns (one it adopted,
// or renamed for the person) over one another user wrote, so that a planner's rejected
// self-approval never hides the person's plan; then an approval over a rejection over a pending
// plan; then the first name.
func outranks(p, cur Entry) bool {
	uid := os.Getuid()
	if po, co := Owner(p) == uid, Owner(cur) == uid; po != co {
		return po
	}
	return rank[p.State] > rank[cur.State] || rank[p.State] == rank[cur.State] && p.File < cur.File
}

// Inbox is the inbox folder and the folder under .git/ where archiplan records what it wrote.
type Inbox struct {
	Dir      string // the inbox, absolute
	StateDir string // where records are kept, under .git/
}

// New is the inbox at dir, with records kept in stateDir.
func New(dir, stateDir string) *Inbox { return &Inbox{Dir: dir, StateDir: stateDir} }

// Path is the path of a file in the inbox; file must be a name Parse knows (never a path).
func (b *Inbox) Path(file string) string { return filepath.Join(b.Dir, filepath.Base(file)) }

// List reads the inbox.
func (b *Inbox) List() (*Listing, error) {
	entries, err := os.ReadDir(b.Dir)
	if err != nil {
		return nil, err
	}
	l := &Listing{Outputs: map[string][]string{}}
	top := map[string]Entry{}
	for _, e := range entries {
		n := e.Name()
		name, kind, state := Parse(n)
		switch kind {
		case KindPreview, KindReport, KindPicture, KindContext:
			l.Outputs[name] = append(l.Outputs[name], n)
		case KindUnsafe:
			l.Unsafe = append(l.Unsafe, n)
		case KindPlan:
			info, err := e.Info()
			if err != nil {
				continue // gone since the listing
			}
			p := Entry{Name: name, File: n, State: state, Info: info}
			if cur, ok := top[name]; !ok || outranks(p, cur) {
				top[name] = p
			}
		}
	}
	for _, p := range top {
		l.Plans = append(l.Plans, p)
	}
	sort.Slice(l.Plans, func(i, j int) bool { return l.Plans[i].File < l.Plans[j].File })
	return l, nil
}

// Find is the deciding plan file of NAME, as List would give it.
func (b *Inbox) Find(name string) (Entry, error) {
	if err := CheckName(name); err != nil {
		return Entry{}, err
	}
	l, err := b.List()
	if err != nil {
		return Entry{}, err
	}
	for _, p := range l.Plans {
		if p.Name == name {
			return p, nil
		}
	}
	return Entry{}, fmt.Errorf("%w: %s", ErrNoPlan, name)
}

// ReadPlan reads a plan file of the inbox safely.
func (b *Inbox) ReadPlan(e Entry) ([]byte, error) { return ReadFile(b.Path(e.File), MaxPlanBytes) }

// ReadContext reads NAME.context.json, when there is one (nil, nil when there is none).
func (b *Inbox) ReadContext(name string) ([]byte, error) {
	data, err := ReadFile(b.Path(ContextFile(name)), MaxContextBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// ReadFile reads a file the way every inbox file is read, wherever it lies: a symbolic link is
// not followed, a pipe, socket or device not opened for long (the open does not block, and the
// file is refused once opened), and no more than max bytes are read.
func ReadFile(path string, max int64) ([]byte, error) {
	data, _, err := readFile(path, max)
	return data, err
}

// ReadApproval reads an approved plan as ReadFile does, and refuses it unless the file opened has
// one link and, when owner is not -1, that owner: whatever the kernel's fs.protected_hardlinks, a
// planner's link to a plan archiplan adopted is no approval. A file refused for its links or owner
// is returned with the refusal (ErrLinked, ErrNotAdopted): read, only not taken for an approval,
// so that its rejection shows the very bytes judged.
func (b *Inbox) ReadApproval(e Entry, owner int) ([]byte, error) {
	data, fi, err := readFile(b.Path(e.File), MaxPlanBytes)
	if err != nil {
		return data, err
	}
	nlink, ok := osfile.Links(fi)
	if !ok {
		return data, fmt.Errorf("%s: %w (its links cannot be read)", e.File, ErrNotAdopted)
	}
	if nlink != 1 {
		return data, fmt.Errorf("%s has %d links: %w", e.File, nlink, ErrLinked)
	}
	if uid, ok := osfile.Owner(fi); owner != -1 && (!ok || owner == OwnerUnknown) {
		return data, fmt.Errorf("%s: %w", e.File, ErrOwnerUnknown)
	} else if owner != -1 && uid != owner {
		return data, fmt.Errorf("%s is owned by user %d: %w", e.File, uid, ErrNotAdopted)
	}
	return data, nil
}

func readFile(path string, max int64) ([]byte, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is a %s: %w (archiplan never follows or reads those)", filepath.Base(path), KindOfMode(fi.Mode()), ErrNotRegular)
	}
	if fi.Size() > max {
		return nil, nil, fmt.Errorf("%s is %d bytes: %w of %d", filepath.Base(path), fi.Size(), ErrTooLarge, max)
	}
	f, err := osfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, fmt.Errorf("%s is a symbolic link: %w", filepath.Base(path), ErrNotRegular)
		}
		return nil, nil, err
	}
	defer f.Close()
	// what was opened may not be what was listed: ask the open file
	if fi, err = osfile.Stat(f); err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is a %s: %w", filepath.Base(path), KindOfMode(fi.Mode()), ErrNotRegular)
	}
	// read into room for the size the file has (and one byte more, to see it grow): io.ReadAll's
	// doublings were a third of a 1,000-element textconv's own work
	buf := bytes.NewBuffer(make([]byte, 0, min(fi.Size(), max)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	data := buf.Bytes()
	if int64(len(data)) > max {
		return nil, nil, fmt.Errorf("%s grew while being read: %w of %d", filepath.Base(path), ErrTooLarge, max)
	}
	return data, fi, nil
}

// KindOfMode names a file mode for people.
func KindOfMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "folder"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}

// FreeName is base, or base-2, base-3, ... : the first NAME no file of the inbox uses, and none
// that archiplan keeps a record of (a NAME once previewed valid stays bound to those bytes after
// its files went, so a new plan under it would be refused).
func (b *Inbox) FreeName(base string) (string, error) {
	if err := CheckName(base); err != nil {
		return "", err
	}
	l, err := b.List()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	used := map[string]bool{}
	if l != nil {
		for _, p := range l.Plans {
			used[p.Name] = true
		}
		for n := range l.Outputs {
			used[n] = true
		}
		for _, n := range l.Unsafe {
			used[n] = true
		}
	}
	name := base
	for i := 2; used[name] || b.recorded(name); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
		if CheckName(name) != nil {
			return "", fmt.Errorf("%w: no free name for %s", ErrBadName, base)
		}
	}
	return name, nil
}

// OwnerUnknown is the owner Adopter gives where the system has no user ids: ReadApproval refuses
// every approval then (ErrOwnerUnknown), never skipping the check.
const OwnerUnknown = -2

// Adopter is the owner an approval must have in a workspace that adopts plans: this process's
// user id, or OwnerUnknown where the system has none (Windows).
func Adopter() int {
	if uid := os.Getuid(); uid >= 0 {
		return uid
	}
	return OwnerUnknown
}

// Owner is the user id that owns a plan file, from its listing.
func Owner(e Entry) int {
	uid, _ := osfile.Owner(e.Info)
	return uid
}

// Adopt makes a plan file the daemon's own: its bytes are written again by this process's user
// and renamed over it. In an inbox that is sticky and group-writable, the planner who wrote it
// can then no longer rename it (to approve it) or change it; only this user, the folder's owner,
// can. It returns the entry of the adopted file.
func (b *Inbox) Adopt(e Entry) (Entry, error) {
	if Owner(e) == os.Getuid() {
		return e, nil
	}
	raw, err := b.ReadPlan(e)
	if err != nil {
		return e, err
	}
	if err := writeAtomic(b.Path(e.File), raw); err != nil {
		return e, fmt.Errorf("adopt %s: %w", e.File, err)
	}
	fi, err := os.Lstat(b.Path(e.File))
	if err != nil {
		return e, err
	}
	e.Info = fi
	return e, nil
}

// recorded says whether archiplan keeps a record of NAME's preview, or of what its first valid
// preview fixed.
func (b *Inbox) recorded(name string) bool {
	if b.StateDir == "" {
		return false
	}
	if _, err := os.Lstat(b.recordPath(name)); err == nil {
		return true
	}
	_, err := os.Lstat(b.fixedPath(name))
	return err == nil
}

// firstSubmitted is the NAME a chain of resubmits started from (NAME itself when it was not
// resubmitted): a plan stale twice is submitted again as client-3, after client-2, not as
// client-2-2 (and client-2-2-2 the time after).
func (b *Inbox) firstSubmitted(name string) string {
	for range 100 { // a chain is short; a record looping back on itself must not hang a resubmit
		conv, err := b.Conversation(name)
		if err != nil || conv == nil || conv.ResubmittedFrom == "" || CheckName(conv.ResubmittedFrom) != nil {
			return name
		}
		name = conv.ResubmittedFrom
	}
	return name
}

// ErrNotResubmittable means a plan cannot be submitted again: it is approved (it is applied, or
// rejected with the step that follows).
var ErrNotResubmittable = errors.New("cannot be submitted again")

// Resubmit writes NAME's plan again, the same bytes, as a new plan under the first free NAME
// (FreeName: NAME-2, NAME-3, ...), with NAME's context (a scoped plan stays scoped) and a
// conversation record that links it to NAME; then NAME's plan, context and outputs leave the
// inbox (what its first valid preview fixed stays). It is the step that follows a rejection: a
// rejected NAME is never previewed again, and a NAME once previewed valid is bound to the words
// of that preview, while the new NAME is bound to nothing yet. It returns the new plan's entry.
func (b *Inbox) Resubmit(name string) (Entry, error) {
	e, err := b.Find(name)
	if err != nil {
		return Entry{}, err
	}
	if e.State == Approved {
		return Entry{}, fmt.Errorf("%s: %w: it is approved, and is applied or rejected when archiplan next looks", e.File, ErrNotResubmittable)
	}
	raw, err := b.ReadPlan(e)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w: %v", e.File, ErrNotResubmittable, err)
	}
	cx, err := b.ReadContext(name)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w: its context cannot be read (%v), and a scoped plan is never submitted unscoped", e.File, ErrNotResubmittable, err)
	}
	next, err := b.FreeName(b.firstSubmitted(name))
	if err != nil {
		return Entry{}, err
	}
	conv := &Conversation{Name: next, ResubmittedFrom: name}
	if old, err := b.Conversation(name); err == nil && old != nil {
		// who wrote the plan, asked what: still true of the same bytes
		conv.Intent, conv.Scope, conv.Planner, conv.PlannerName, conv.Model = old.Intent, old.Scope, old.Planner, old.PlannerName, old.Model
		conv.How, conv.Attempts, conv.PlanSHA256, conv.Thread, conv.Turn = old.How, old.Attempts, old.PlanSHA256, old.Thread, old.Turn
	}
	if err := b.SaveConversation(conv); err != nil {
		return Entry{}, err
	}
	if cx != nil {
		if err := b.WriteContext(next, cx); err != nil {
			return Entry{}, err
		}
	}
	if err := b.Submit(next, raw); err != nil {
		return Entry{}, err
	}
	if err := os.Remove(b.Path(e.File)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Entry{}, fmt.Errorf("remove %s: %w", e.File, err)
	}
	os.Remove(b.Path(ContextFile(name)))
	if l, err := b.List(); err == nil {
		b.RemoveOutputs(name, l.Outputs[name])
	}
	return b.Find(next)
}
