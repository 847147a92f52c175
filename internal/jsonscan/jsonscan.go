// Package jsonscan walks JSON text without decoding it, knowing at each bracket how deep it is
// and where each string starts and ends: for the places that must look at text a decoder would
// refuse or choke on (a plan inside a planner's prose, a message nested too deep to decode).
package jsonscan

// Event is what Walk reports at a byte.
type Event int

const (
	Open      Event = iota // '{' or '[' outside a string; depth is the depth after it
	Close                  // '}' or ']' outside a string; depth is the depth after it
	StringEnd              // the closing quote of a string; start is its opening quote
)

// Walk reads text from offset from and calls f at every bracket and at the end of every string
// (at offset i; for a string, start is the offset of its opening quote), with the depth of
// objects and arrays counted from from. It stops when f returns false. Brackets and quotes inside
// strings, escaped quotes included, are never reported as structure.
func Walk(text []byte, from int, f func(ev Event, i, start, depth int) bool) {
	depth, inString, escaped, start := 0, false, false, -1
	for i := from; i < len(text); i++ {
		c := text[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if !f(StringEnd, i, start, depth) {
					return
				}
			}
		case c == '"':
			inString, start = true, i
		case c == '{' || c == '[':
			depth++
			if !f(Open, i, -1, depth) {
				return
			}
		case c == '}' || c == ']':
			depth--
			if !f(Close, i, -1, depth) {
				return
			}
		}
	}
}
