package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mutant is one small, realistic bug: each edit's Old, found exactly once in File, replaced by
// its New (several edits break a guard that has two layers). Tests are the `go test` argument
// lists (a package and its filter) that must fail with it.
type Mutant struct {
	ID    string
	Why   string
	File  string // slash path from the repository's root
	Edits []Edit
	Tests [][]string
	Line  int // where it starts in the list, for messages
}

// Edit is one replacement of a mutant, in the mutant's File unless it names its own.
type Edit struct{ File, Old, New string }

// Files are the files a mutant edits, the first its File.
func (m Mutant) Files() []string {
	files := []string{m.File}
	for _, e := range m.Edits {
		if e.File != "" && !slices.Contains(files, e.File) {
			files = append(files, e.File)
		}
	}
	return files
}

// fileOf is the file an edit changes.
func (m Mutant) fileOf(e Edit) string {
	if e.File != "" {
		return e.File
	}
	return m.File
}

// parseList reads the list of mutants. Its format (see mutants.txt's head):
//
//	=== ID
//	why: what the guard protects (one line, optional)
//	file: path/from/root.go
//	test: ./pkg -run '^TestX$'     (one or more; run in order, the first failure kills)
//	old: text on one line          (or a block: a line "--- old", the lines, then "--- new", the lines)
//	new: text on one line
//
// Each old starts an edit and the new after it ends it; a mutant may have several.
// Blank lines outside a block and lines starting with '#' are comments; such a line ends a block
// (Go code never starts with '#'). A block's text is its lines each with its newline; blank lines
// ending a block are dropped.
func parseList(data []byte) ([]Mutant, error) {
	var (
		out      []Mutant
		nextFile string // the file of the next edits, once a mutant names a second
		cur      *Mutant
		sect     string // "", "old" or "new": inside a block
		buf      []string
		errs     []string
	)
	flush := func() {
		if cur == nil || sect == "" {
			return
		}
		for len(buf) > 0 && strings.TrimSpace(buf[len(buf)-1]) == "" {
			buf = buf[:len(buf)-1]
		}
		setEdit(cur, sect, strings.Join(buf, "\n")+"\n", nextFile)
		sect, buf = "", nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			flush()
			out = append(out, Mutant{ID: strings.TrimSpace(line[4:]), Line: n})
			cur, nextFile = &out[len(out)-1], ""
			continue
		case line == "--- old" || line == "--- new":
			if cur == nil {
				errs = append(errs, fmt.Sprintf("line %d: %s outside a mutant", n, line))
				continue
			}
			flush()
			sect = line[4:]
			continue
		case sect != "" && !strings.HasPrefix(line, "#"):
			buf = append(buf, line)
			continue
		}
		if sect != "" {
			flush() // a comment at the start of a line ends a block (Go code never starts with '#')
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok || cur == nil {
			errs = append(errs, fmt.Sprintf("line %d: not a field of a mutant: %q", n, line))
			continue
		}
		switch key {
		case "why":
			cur.Why = val
		case "file":
			// the mutant's file; a later file: line (after an edit) names the file of the edits after it
			if len(cur.Edits) == 0 {
				cur.File = strings.TrimSpace(val)
			} else {
				nextFile = strings.TrimSpace(val)
			}
		case "test":
			args, err := splitArgs(val)
			if err != nil || len(args) == 0 {
				errs = append(errs, fmt.Sprintf("line %d: test: %v", n, err))
			}
			cur.Tests = append(cur.Tests, args)
		case "old", "new":
			setEdit(cur, key, val, nextFile)
		default:
			errs = append(errs, fmt.Sprintf("line %d: unknown field %q", n, key))
		}
	}
	flush()
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, sc.Err()
}

// setEdit starts an edit with its old text, or gives the last edit its new text.
func setEdit(m *Mutant, which, text, file string) {
	if which == "old" || len(m.Edits) == 0 {
		m.Edits = append(m.Edits, Edit{File: file})
	}
	if which == "old" {
		m.Edits[len(m.Edits)-1].Old = text
	} else {
		m.Edits[len(m.Edits)-1].New = text
	}
}

// apply is a file's text with the mutant's edits of that file made.
func (m Mutant) apply(file, text string) string {
	for _, e := range m.Edits {
		if m.fileOf(e) == file {
			text = strings.Replace(text, e.Old, e.New, 1)
		}
	}
	return text
}

// splitArgs splits a test line into words; single quotes keep spaces and shell characters.
func splitArgs(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		in    bool // inside quotes
		began bool
	)
	for _, r := range s {
		switch {
		case r == '\'':
			in, began = !in, true
		case !in && (r == ' ' || r == '\t'):
			if began {
				args = append(args, cur.String())
				cur.Reset()
				began = false
			}
		default:
			cur.WriteRune(r)
			began = true
		}
	}
	if in {
		return nil, fmt.Errorf("unclosed quote in %q", s)
	}
	if began {
		args = append(args, cur.String())
	}
	return args, nil
}

// check says what is wrong with the list against the tree at root: every mutant has an id of
// its own, a file, a test, and an old text found exactly once in its file and unlike its new
// text. When code moves, this is what fails first, loudly.
func check(root string, ms []Mutant) []string {
	var problems []string
	seen := map[string]int{}
	for _, m := range ms {
		where := fmt.Sprintf("%s (line %d)", m.ID, m.Line)
		if m.ID == "" {
			problems = append(problems, where+": no id")
		}
		if prev, ok := seen[m.ID]; ok {
			problems = append(problems, fmt.Sprintf("%s: the id is used at line %d too", where, prev))
		}
		seen[m.ID] = m.Line
		if m.File == "" || len(m.Tests) == 0 || len(m.Edits) == 0 {
			problems = append(problems, where+": a mutant needs file, test, old and new")
			continue
		}
		texts, missing := map[string]string{}, false
		for _, f := range m.Files() {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: no such file (moved?)", where, f))
				missing = true
			}
			texts[f] = string(data)
		}
		if missing {
			continue
		}
		for i, e := range m.Edits {
			if e.Old == "" || e.Old == e.New {
				problems = append(problems, fmt.Sprintf("%s: edit %d: no old text, or old and new are the same", where, i+1))
				continue
			}
			if c := strings.Count(texts[m.fileOf(e)], e.Old); c != 1 {
				problems = append(problems, fmt.Sprintf("%s: the old text of edit %d is found %d times in %s (want exactly once): the code moved; update the list", where, i+1, c, m.fileOf(e)))
			}
		}
	}
	return problems
}
