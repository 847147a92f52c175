// Package low is below top: top imports it.
package low

import "strings"

// Ask is asked by top.
func Ask(s string) string { return trim(s) + Again(s) }

func trim(s string) string { return strings.TrimSpace(s) } // the standard library is no stop

// Again is asked a second time.
func Again(s string) string { return s }
