package ledger

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// The archive of an applied plan: .archiplan/applied/<id>/ holds these files, committed with the
// change the plan made.
const (
	archivePlan    = "plan.json"
	archivePreview = "preview.md"
	archiveReport  = "report.json"
	archiveInverse = "inverse.json"
)

// archivePath is the path of one file of a plan's archive.
func archivePath(id, file string) string { return ArchiveDir + "/" + id + "/" + file }

// Archived is what the archive of one applied plan holds, as committed.
type Archived struct {
	ID      string
	Commit  string // the commit the archive is read at
	Plan    []byte
	Preview []byte
	Report  []byte
	Inverse *plans.Inverse
	Files   []string // every path of the archive, as committed
}

// ReadArchive reads the archive of plan id as committed at commit: the one reader of the archive.
// The inverse is checked step by step before anyone uses it (a commit pulled from a team's remote
// may carry a crafted one).
func ReadArchive(ws *store.Workspace, commit, id string) (*Archived, error) {
	a := &Archived{ID: id, Commit: commit}
	files, err := ws.DirAt(commit, ArchiveDir+"/"+id)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		a.Files = append(a.Files, archivePath(id, f))
	}
	read := func(file string, required bool) ([]byte, error) {
		data, ok, err := ws.FileAt(commit, archivePath(id, file))
		if err != nil {
			return nil, err
		}
		if !ok && required {
			return nil, fmt.Errorf("commit %s has no %s for %s", short(commit), archivePath(id, file), id)
		}
		return data, nil
	}
	if a.Plan, err = read(archivePlan, true); err != nil {
		return nil, err
	}
	if a.Preview, err = read(archivePreview, false); err != nil {
		return nil, err
	}
	if a.Report, err = read(archiveReport, false); err != nil {
		return nil, err
	}
	raw, err := read(archiveInverse, true)
	if err != nil {
		return nil, err
	}
	a.Inverse, err = decodeInverse(raw, id)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// decodeInverse reads an archived inverse strictly.
func decodeInverse(raw []byte, id string) (*plans.Inverse, error) {
	var inv plans.Inverse
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		return nil, fmt.Errorf("read the inverse of %s: %w", id, err)
	}
	if err := validInverse(&inv); err != nil {
		return nil, fmt.Errorf("%w: the inverse of %s: %v", ErrBadInverse, id, err)
	}
	if err := archixml.ValidateSteps(inv.Steps); err != nil {
		return nil, fmt.Errorf("the inverse of %s: %w", id, err)
	}
	return &inv, nil
}

// archiveFiles are what an apply commits beside the model: the plan, the preview the person
// approved (and its pictures), the report (verdict applied), the inverse.
func archiveFiles(id string, raw, preview, report []byte, pictures map[string][]byte, inv *plans.Inverse) map[string][]byte {
	invJSON, _ := json.MarshalIndent(inv, "", " ")
	files := map[string][]byte{
		archivePath(id, archivePlan):    raw,
		archivePath(id, archivePreview): preview,
		archivePath(id, archiveReport):  report,
		archivePath(id, archiveInverse): append(invJSON, '\n'),
	}
	for name, data := range pictures {
		files[archivePath(id, name)] = data
	}
	return files
}

// editedAttrs are the only attributes an apply sets or removes (archixml's edits), so the only
// ones an inverse may put back: never an id, a type or a namespace.
var editedAttrs = map[string]bool{"name": true, "value": true, "targetConnections": true}

// validInverse checks every step of an inverse before it is used: a known op, an attribute name
// that is a plain XML name (never a namespace declaration), values and removed nodes that are
// well-formed XML text of one element. What passes still goes through the model's own undo,
// and the model it makes is read again before it is committed.
func validInverse(inv *plans.Inverse) error {
	if inv.FormatVersion != "1" {
		return fmt.Errorf("unknown format_version %q", inv.FormatVersion)
	}
	for i, s := range inv.Steps {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("step %d (%s): %s", i, s.Op, fmt.Sprintf(format, args...))
		}
		if s.ID != "" && !utf8.ValidString(s.ID) {
			return bad("the id is not UTF-8")
		}
		for _, p := range s.Path {
			if p < 0 {
				return bad("a negative path")
			}
		}
		if s.Old != nil && (!utf8.ValidString(*s.Old) || strings.ContainsFunc(*s.Old, forbidden)) {
			return bad("a value with characters XML cannot hold")
		}
		switch s.Op {
		case "attr":
			if !editedAttrs[s.Key] {
				return bad("attribute %q is not one an edit sets", s.Key)
			}
		case "text":
			if s.Key != "" || s.XML != "" {
				return bad("a text step names an attribute or XML")
			}
		case "insert":
		case "remove":
			if s.Index < 0 {
				return bad("a negative index")
			}
			if err := oneElement(s.XML); err != nil {
				return bad("the removed node is not one well-formed element: %v", err)
			}
		default:
			return bad("unknown op")
		}
	}
	return nil
}

func forbidden(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xfffe || r == 0xffff
}

// oneElement checks that s is exactly one well-formed element, with no directives.
func oneElement(s string) error {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, forbidden) {
		return errors.New("characters XML cannot hold")
	}
	d := xml.NewDecoder(strings.NewReader(s))
	depth, roots := 0, 0
	for {
		t, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(t)) != "" {
				return errors.New("text outside the element")
			}
		case xml.Directive, xml.ProcInst:
			return errors.New("a directive or processing instruction")
		}
	}
	if roots != 1 || depth != 0 {
		return fmt.Errorf("%d elements", roots)
	}
	return nil
}
