package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mutant is one small, realistic bug: Old, found exactly once in File, replaced by New. Tests
// are the `go test` argument lists (a package and its filter) that must fail with it.
type Mutant struct {
	ID    string
	Why   string
	File  string // slash path from the repository's root
	Old   string
	New   string
	Tests [][]string
	Line  int // where it starts in the list, for messages
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
// Outside a block, blank lines and lines starting with '#' are comments. A block's text is its
// lines each with its newline; blank lines ending a block are dropped.
func parseList(data []byte) ([]Mutant, error) {
	var (
		out  []Mutant
		cur  *Mutant
		sect string // "", "old" or "new": inside a block
		buf  []string
		errs []string
	)
	flush := func() {
		if cur == nil || sect == "" {
			return
		}
		for len(buf) > 0 && strings.TrimSpace(buf[len(buf)-1]) == "" {
			buf = buf[:len(buf)-1]
		}
		text := strings.Join(buf, "\n") + "\n"
		if sect == "old" {
			cur.Old = text
		} else {
			cur.New = text
		}
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
			cur = &out[len(out)-1]
			continue
		case line == "--- old" || line == "--- new":
			if cur == nil {
				errs = append(errs, fmt.Sprintf("line %d: %s outside a mutant", n, line))
				continue
			}
			flush()
			sect = line[4:]
			continue
		case sect != "":
			buf = append(buf, line)
			continue
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
			cur.File = strings.TrimSpace(val)
		case "test":
			args, err := splitArgs(val)
			if err != nil || len(args) == 0 {
				errs = append(errs, fmt.Sprintf("line %d: test: %v", n, err))
			}
			cur.Tests = append(cur.Tests, args)
		case "old":
			cur.Old = val
		case "new":
			cur.New = val
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
		if m.File == "" || len(m.Tests) == 0 || m.Old == "" {
			problems = append(problems, where+": a mutant needs file, test, old and new")
			continue
		}
		if m.Old == m.New {
			problems = append(problems, where+": old and new are the same")
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		if c := strings.Count(string(data), m.Old); c != 1 {
			problems = append(problems, fmt.Sprintf("%s: its old text is found %d times in %s (want exactly once): the code moved; update the list", where, c, m.File))
		}
	}
	return problems
}
