// Package gfm is goldmark's Table and Strikethrough extensions (github.com/yuin/goldmark v1.8.7,
// extension/table.go and extension/strikethrough.go, MIT: LICENSE), copied unchanged but for the
// package name and for table.go's four delimiter patterns, compiled when a table is first parsed
// (lazyRegexp), not at every process's start. The whole extension package's init (its linkify
// patterns with bounded repetitions among them) cost every archiplan process 2,049 allocations
// and 264 KB before main, and ~140 page faults of 2,200 in `archiplan version`, for two
// extensions the review page uses.
package gfm
