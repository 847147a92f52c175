// Package lazyre is a regular expression compiled when first used, not at a program's start: a
// pattern with a bounded repetition (`[a-z]{0,99}`) takes a compile of hundreds of instructions,
// which every process paid at init, the command that never matches it included.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a pattern compiled on first use (once, safe for concurrent use).
type Regexp struct {
	get func() *regexp.Regexp
}

// New is the pattern, compiled when first matched; a pattern that does not compile panics then,
// as regexp.MustCompile would at init.
func New(pattern string) *Regexp {
	return &Regexp{get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })}
}

// MatchString reports whether s contains a match of the pattern.
func (r *Regexp) MatchString(s string) bool { return r.get().MatchString(s) }

// FindStringSubmatch is regexp's FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.get().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp's FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.get().FindAllStringSubmatch(s, n)
}

// ReplaceAllString is regexp's ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.get().ReplaceAllString(src, repl)
}
