package jsonscan

import "testing"

func TestWalk(t *testing.T) {
	text := []byte(`x {"a\"}{": ["]", {"id": 1}], "b": "\\"} tail`)
	var opens, closes, strs int
	end, maxDepth := -1, 0
	Walk(text, 2, func(ev Event, i, start, depth int) bool {
		switch ev {
		case Open:
			opens++
			maxDepth = max(maxDepth, depth)
		case Close:
			closes++
			if depth == 0 {
				end = i + 1
				return false
			}
		case StringEnd:
			strs++
			if text[start] != '"' || text[i] != '"' {
				t.Errorf("string [%d,%d] is not between quotes", start, i)
			}
		}
		return true
	})
	if string(text[:end]) != `x {"a\"}{": ["]", {"id": 1}], "b": "\\"}` {
		t.Errorf("the object ends at %d: %q", end, text[:end])
	}
	if opens != 3 || closes != 3 || strs != 5 || maxDepth != 3 {
		t.Errorf("opens %d closes %d strings %d depth %d, want 3 3 5 3", opens, closes, strs, maxDepth)
	}
}
