// Package archicli converts the peer's BOM files (archicli's `batch apply` input: version "1.0",
// changes, includes, idFiles) into archiplan plans for a person to review. It never applies
// anything: the plan it writes goes through the inbox like any other.
//
// What it does to a BOM: includes are flattened depth first (as archicli does), camelCase ops
// become archiplan's ops and kebab-case types jArchi's labels, tempIds become ref_ids, an update
// op becomes one action per field it sets, the defaults the peer's server applies (positions and
// sizes of new diagram objects, the duplicate strategy) are written out, and a tempId the BOM
// does not declare is looked up in its idFiles: the peer's own .ids.json when it lies beside the
// BOM, else the ref_id -> id map of the plan of that name applied earlier (from the archive).
// What archiplan cannot express is an error with a code, naming the change and its op.
package archicli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// Code is the stable code of a conversion error.
type Code string

// The conversion error codes (README: "Converting the peer's BOM files").
const (
	CodeInvalid     Code = "CONVERT_INVALID"         // not a BOM: bad JSON, no version 1.0, a change that is no object
	CodeUnknownOp   Code = "CONVERT_UNKNOWN_OP"      // an op archicli does not have
	CodeUnsupported Code = "CONVERT_UNSUPPORTED"     // an op or field archiplan cannot express
	CodeBadValue    Code = "CONVERT_BAD_VALUE"       // a field with a value the peer's schema refuses
	CodeInclude     Code = "CONVERT_INCLUDE"         // an include missing, unreadable, or in a cycle
	CodeIDFile      Code = "CONVERT_ID_FILE"         // an idFile neither beside the BOM nor applied before
	CodeTempID      Code = "CONVERT_TEMPID_TWICE"    // two changes declare one tempId
	CodeOutside     Code = "CONVERT_INCLUDE_OUTSIDE" // an include outside the BOM's folder
	CodeTooLarge    Code = "CONVERT_TOO_LARGE"       // a BOM with its includes over the files or bytes allowed
)

// Codes lists every code with its meaning, for the README.
var Codes = []struct {
	Code    Code
	Meaning string
}{
	{CodeInvalid, "the file is not a BOM: not JSON, no version \"1.0\", or a change that is not an object"},
	{CodeUnknownOp, "a change's op is not one archicli knows"},
	{CodeUnsupported, "a change archiplan cannot express (the message names the op and the field)"},
	{CodeBadValue, "a field's value is one the peer's schema refuses (a type, an access type, ...)"},
	{CodeInclude, "an include is missing, unreadable, includes itself, or is included a second time (each file is read once)"},
	{CodeIDFile, "an idFile is neither beside the BOM nor the ids of a plan of that name applied earlier"},
	{CodeTempID, "two changes declare the same tempId"},
	{CodeOutside, "an include lies outside the folder of the BOM converted (`--includes-anywhere` allows it)"},
	{CodeTooLarge, "a BOM with what it includes is more than 1,000 files or 32 MiB"},
}

// Error is a conversion error: its code, the file and change (index in the flattened BOM, -1 for
// the file itself), the op, and what is wrong.
type Error struct {
	Code    Code
	File    string
	Change  int
	Op      string
	Message string
}

func (e *Error) Error() string {
	if e.Change < 0 {
		return fmt.Sprintf("%s: %s: %s", e.Code, e.File, e.Message)
	}
	return fmt.Sprintf("%s: %s: change %d (%s): %s", e.Code, e.File, e.Change, e.Op, e.Message)
}

// ErrConvert is what every *Error matches with errors.Is.
var ErrConvert = errors.New("cannot convert")

func (e *Error) Is(target error) bool { return target == ErrConvert }

// IDs finds the ref_id -> id map of the plan of that NAME applied earlier; ok false when no plan
// of that name was applied.
type IDs func(name string) (refs map[string]string, ok bool, err error)

// Options for a conversion.
type Options struct {
	// Applied resolves idFiles the BOM's folder does not hold (nil: only files beside it).
	Applied IDs
	// ReadFile reads the BOM and what it includes (nil: regular files only, at most MaxBOM+1
	// bytes read).
	ReadFile func(path string) ([]byte, error)
	// IncludesAnywhere lets includes lie outside the folder of the BOM converted (links resolved).
	IncludesAnywhere bool
}

// The bounds of one conversion: every input costs bounded time and memory. Each file is read
// once (a file included a second time is refused), so a BOM and its includes read at most
// MaxBOMFiles files and MaxBOMBytes bytes.
const (
	MaxBOM      = 8 << 20 // one BOM file (the peer's largest fixture is 57 KiB)
	MaxBOMFiles = 1000
	MaxBOMBytes = 32 << 20
)

// readCapped reads a regular file, at most MaxBOM+1 bytes of it: never a pipe or a device.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, MaxBOM+1))
}

// bom is a BOM file as archicli reads it.
type bom struct {
	Version           *string           `json:"version"`
	Description       string            `json:"description"`
	Changes           []json.RawMessage `json:"changes"`
	Includes          []string          `json:"includes"`
	IDFiles           []string          `json:"idFiles"`
	IdempotencyKey    string            `json:"idempotencyKey"`
	DuplicateStrategy string            `json:"duplicateStrategy"`
}

// change is one flattened change with the file it came from.
type change struct {
	file string
	raw  map[string]any
}

// Convert reads the BOM at path (and what it includes) and returns the archiplan plan, indented
// JSON with a final newline.
func Convert(path string, opts Options) ([]byte, error) {
	if opts.ReadFile == nil {
		opts.ReadFile = readCapped
	}
	c := &converter{opts: opts, root: path, read: map[string]string{}}
	if abs, err := filepath.Abs(filepath.Dir(path)); err == nil {
		c.rootDir = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			c.rootDir = real
		}
	}
	top, err := c.load(path, nil)
	if err != nil {
		return nil, err
	}
	if err := c.loadIDFiles(); err != nil {
		return nil, err
	}
	c.strategy = "error" // the peer's server default for createOrGet*
	if top.DuplicateStrategy != "" {
		c.strategy = strings.ToLower(top.DuplicateStrategy)
		if !oneOf(c.strategy, "error", "reuse", "rename") {
			return nil, c.fail(CodeBadValue, -1, "", "duplicateStrategy %q is none of error, reuse, rename", top.DuplicateStrategy)
		}
	}
	if err := c.declare(); err != nil {
		return nil, err
	}
	for i, ch := range c.changes {
		if err := c.convert(i, ch); err != nil {
			return nil, err
		}
	}
	summary := strings.TrimSpace(top.Description)
	if summary == "" {
		summary = "Converted from " + filepath.Base(path)
	}
	plan := ordered{
		{"schema_version", schemas.Latest},
		{"status", "ready"},
		{"summary", summary},
	}
	var warnings []string
	if top.IdempotencyKey != "" {
		warnings = append(warnings, "converted from an archicli BOM: its idempotencyKey is not kept (archiplan refuses a plan applied twice by its bytes)")
	}
	if len(warnings) > 0 {
		plan = append(plan, kv{"warnings", warnings})
	}
	if c.actions == nil {
		c.actions = []ordered{} // an empty BOM is a plan without actions, never "actions": null
	}
	plan = append(plan, kv{"actions", c.actions})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(plan); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type converter struct {
	opts     Options
	root     string
	rootDir  string            // the folder of the BOM converted, links resolved: includes stay under it
	read     map[string]string // every file read (links resolved) -> the file that included it
	bytes    int               // read so far
	changes  []change
	idFiles  []string // paths, as declared (relative to the declaring file)
	ids      map[string]string
	temp     map[string]string // tempId -> what it names: "element", "relationship", "view", "object", ...
	strategy string
	actions  []ordered
}

func (c *converter) fail(code Code, i int, op, format string, args ...any) *Error {
	file := c.root
	if i >= 0 && i < len(c.changes) {
		file = c.changes[i].file
	}
	return &Error{Code: code, File: file, Change: i, Op: op, Message: fmt.Sprintf(format, args...)}
}

// load reads one BOM and, depth first, what it includes (archicli's order: idFiles, includes,
// then its own changes).
func (c *converter) load(path string, stack []string) (*bom, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for _, s := range stack {
		if s == abs {
			return nil, &Error{Code: CodeInclude, File: path, Change: -1, Message: "includes itself: " + strings.Join(append(stack, abs), " -> ")}
		}
	}
	real := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	}
	if len(stack) > 0 {
		if rel, err := filepath.Rel(c.rootDir, real); !c.opts.IncludesAnywhere && (err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))) {
			return nil, &Error{Code: CodeOutside, File: path, Change: -1, Message: fmt.Sprintf("included by %s, it lies outside %s, the folder of the BOM converted (--includes-anywhere allows it)", stack[len(stack)-1], c.rootDir)}
		}
		if by, seen := c.read[real]; seen {
			return nil, &Error{Code: CodeInclude, File: path, Change: -1, Message: fmt.Sprintf("included a second time (by %s, and before by %s): each file is read once", stack[len(stack)-1], by)}
		}
	}
	if len(c.read) >= MaxBOMFiles {
		return nil, &Error{Code: CodeTooLarge, File: path, Change: -1, Message: fmt.Sprintf("the BOM includes more than %d files", MaxBOMFiles)}
	}
	c.read[real] = c.root
	if len(stack) > 0 {
		c.read[real] = stack[len(stack)-1]
	}
	data, err := c.opts.ReadFile(path)
	if err != nil {
		code := CodeInclude
		if len(stack) == 0 {
			code = CodeInvalid
		}
		return nil, &Error{Code: code, File: path, Change: -1, Message: err.Error()}
	}
	if c.bytes += len(data); c.bytes > MaxBOMBytes {
		return nil, &Error{Code: CodeTooLarge, File: path, Change: -1, Message: fmt.Sprintf("the BOM with its includes is more than %d bytes", MaxBOMBytes)}
	}
	if len(data) > MaxBOM {
		return nil, &Error{Code: CodeInvalid, File: path, Change: -1, Message: fmt.Sprintf("larger than %d bytes", MaxBOM)}
	}
	var b bom
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, &Error{Code: CodeInvalid, File: path, Change: -1, Message: err.Error()}
	}
	if b.Version == nil || *b.Version != "1.0" {
		return nil, &Error{Code: CodeInvalid, File: path, Change: -1, Message: `no "version": "1.0"`}
	}
	dir := filepath.Dir(path)
	for _, f := range b.IDFiles {
		if strings.TrimSpace(f) == "" {
			return nil, &Error{Code: CodeInvalid, File: path, Change: -1, Message: "an empty idFiles entry"}
		}
		c.idFiles = append(c.idFiles, filepath.Join(dir, f))
	}
	for _, inc := range b.Includes {
		if strings.TrimSpace(inc) == "" {
			return nil, &Error{Code: CodeInvalid, File: path, Change: -1, Message: "an empty includes entry"}
		}
		if _, err := c.load(filepath.Join(dir, inc), append(stack, abs)); err != nil {
			return nil, err
		}
	}
	for i, raw := range b.Changes {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&m); err != nil || m == nil {
			return nil, &Error{Code: CodeInvalid, File: path, Change: len(c.changes), Message: fmt.Sprintf("change %d of the file is not an object", i)}
		}
		c.changes = append(c.changes, change{file: path, raw: m})
	}
	return &b, nil
}

// loadIDFiles reads each idFile: the peer's own file beside the BOM, else the ids of the plan of
// that name applied earlier.
func (c *converter) loadIDFiles() error {
	c.ids = map[string]string{}
	seen := map[string]bool{}
	for _, f := range c.idFiles {
		if seen[f] {
			continue
		}
		seen[f] = true
		data, err := c.opts.ReadFile(f)
		if err == nil {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				return &Error{Code: CodeIDFile, File: f, Change: -1, Message: "not a JSON object of tempId -> id: " + err.Error()}
			}
			for k, v := range m {
				if s, ok := v.(string); ok {
					c.ids[k] = s
				}
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return &Error{Code: CodeIDFile, File: f, Change: -1, Message: err.Error()}
		}
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".json"), ".ids")
		if c.opts.Applied == nil {
			return &Error{Code: CodeIDFile, File: f, Change: -1, Message: "no such file, and no archive to look for a plan " + name + " applied earlier"}
		}
		refs, ok, err := c.opts.Applied(name)
		if err != nil {
			return &Error{Code: CodeIDFile, File: f, Change: -1, Message: err.Error()}
		}
		if !ok {
			return &Error{Code: CodeIDFile, File: f, Change: -1, Message: "no such file, and no plan " + name + " was applied (convert and apply it first)"}
		}
		for k, v := range refs {
			c.ids[k] = v
		}
	}
	return nil
}

// declare records every tempId the flattened BOM declares, refusing one declared twice.
func (c *converter) declare() error {
	c.temp = map[string]string{}
	at := map[string]int{}
	for i, ch := range c.changes {
		op, _ := ch.raw["op"].(string)
		for _, t := range tempIDs(ch.raw) {
			if j, dup := at[t]; dup {
				return c.fail(CodeTempID, i, op, "tempId %q is declared by change %d too", t, j)
			}
			at[t] = i
			c.temp[t] = op
		}
	}
	return nil
}

func tempIDs(raw map[string]any) []string {
	var out []string
	if t, ok := raw["tempId"].(string); ok && t != "" {
		out = append(out, t)
	}
	if cr, ok := raw["create"].(map[string]any); ok {
		if t, ok := cr["tempId"].(string); ok && t != "" && (len(out) == 0 || out[0] != t) {
			out = append(out, t)
		}
	}
	return out
}

// ref turns a reference (a tempId of this BOM, a tempId of an idFile, or an id) into what a plan
// writes: the ref_id, or the id.
func (c *converter) ref(v string) string {
	if _, ok := c.temp[v]; ok {
		return v
	}
	if id, ok := c.ids[v]; ok {
		return id
	}
	return v
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// kv and ordered write a JSON object with its keys in the order given.
type kv struct {
	k string
	v any
}

type ordered []kv

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p.v); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// elementType turns the peer's kebab-case element type into jArchi's label.
func elementType(s string) (string, bool) {
	t := archixml.LookupType(strings.ReplaceAll(s, "-", " "))
	if t == nil || t.IsRelationship() {
		return "", false
	}
	return t.Label, true
}

// relationshipType turns "serving-relationship" into "Serving".
func relationshipType(s string) (string, bool) {
	t := archixml.LookupType(strings.ReplaceAll(strings.TrimSuffix(s, "-relationship"), "-", " "))
	if t == nil || !t.IsRelationship() {
		return "", false
	}
	return t.Label, true
}

// sortedProps turns the peer's properties object into archiplan's list, by key.
func sortedProps(m map[string]any) []ordered {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []ordered
	for _, k := range keys {
		out = append(out, ordered{{"key", k}, {"value", fmt.Sprint(m[k])}})
	}
	return out
}
