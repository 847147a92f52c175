package plans

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/archiplan/archiplan/internal/jsonscan"
	"io"
	"strings"

	"github.com/archiplan/archiplan/schemas"
)

// MaxPlanBytes bounds a plan file; real plans are a few kilobytes.
const MaxPlanBytes = 1 << 20

// Limits applied while a plan's JSON is read token by token, before anything is built from it or
// checked against a schema: a hostile plan up to MaxPlanBytes costs a bounded, small amount of
// memory and time (a million-item array is refused at its 1001st item, not decoded whole).
const (
	// maxJSONDepth bounds nesting; a plan nests four levels.
	maxJSONDepth = 32
	// MaxMembers bounds the members of any array or object; the schema's longest list
	// (select_ids) allows 300.
	MaxMembers = 1000
	// MaxValues bounds the values of a whole plan (a real one holds a few hundred).
	MaxValues = 20000
	// MaxStringBytes bounds a string or key, decoded; the schema's longest text allows 10,000
	// characters.
	MaxStringBytes = 64 << 10
)

// Extract takes one JSON object out of what a planner wrote. A bare object is taken as it is.
// Otherwise (unless strict) markdown fences and text around the object are stripped, each
// reported as a warning, and of several complete objects the last is taken. Nothing is guessed:
// a truncated or invalid object is an error, never repaired.
func Extract(raw []byte, strict bool) ([]byte, []Finding, *Finding) {
	fail := func(c Code, snippet, format string, args ...any) ([]byte, []Finding, *Finding) {
		f := newFinding(c, -1, "", snippet, format, args...)
		return nil, nil, &f
	}
	if len(raw) > MaxPlanBytes {
		return fail(ExtractTooLarge, "", "the plan is %d bytes, over the limit of %d", len(raw), MaxPlanBytes)
	}
	if f := checkEncoding(raw); f != nil {
		return nil, nil, f
	}
	var warns []Finding
	if b, ok := bytes.CutPrefix(raw, []byte("\xef\xbb\xbf")); ok {
		raw = b
		if bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("\xef\xbb\xbf")) {
			return fail(ExtractDoubleBOM, "", "a second byte order mark follows the first: write the plan as UTF-8, with at most one")
		}
		if strict {
			return fail(ExtractStrict, "", "a byte order mark precedes the object")
		}
		warns = append(warns, newFinding(ExtractBOMStripped, -1, "", "", "a byte order mark was stripped"))
	}
	text := bytes.TrimSpace(raw)
	if len(text) == 0 {
		return fail(ExtractEmpty, "", "the plan file is empty")
	}
	// a bare object: the whole text is one JSON value
	if text[0] == '{' {
		if end, complete := objectEnd(text, 0); complete && end == len(text) {
			obj, f := checkJSON(text)
			if f != nil {
				return nil, nil, f
			}
			return obj, warns, nil
		} else if strict {
			if !complete {
				return fail(ExtractTruncated, tail(text), "the object starting at byte 0 never closes: the answer was cut off")
			}
			return fail(ExtractStrict, string(text[end:]), "text follows the object")
		}
	}
	if strict {
		if j := firstJSON(text); j != "" && j != "{" {
			return fail(ExtractNotObject, string(text), "the plan must be a JSON object, not a JSON %s", j)
		}
		return fail(ExtractStrict, string(text), "the plan must be a bare JSON object, with nothing around it")
	}
	if j := firstJSON(text); j != "" && j != "{" {
		return fail(ExtractNotObject, string(text), "the plan must be a JSON object, not a JSON %s", j)
	}
	// fenced blocks first: planners put the plan in ```json fences among prose
	search := text
	if blocks, outside := fences(text); len(blocks) > 0 {
		warns = append(warns, newFinding(ExtractFenceStripped, -1, "", "", "markdown code fences were stripped"))
		if strings.TrimSpace(outside) != "" {
			warns = append(warns, newFinding(ExtractProseStripped, -1, "", outside, "text outside the fences was stripped"))
		}
		search = []byte(strings.Join(blocks, "\n"))
	}
	var objs [][2]int
	truncatedAt := -1
	for i := 0; i < len(search); i++ {
		if search[i] != '{' {
			continue
		}
		end, complete := objectEnd(search, i)
		if !complete {
			if truncatedAt < 0 {
				truncatedAt = i
			}
			break
		}
		objs = append(objs, [2]int{i, end})
		i = end - 1
	}
	if len(objs) == 0 {
		if truncatedAt >= 0 {
			return fail(ExtractTruncated, tail(search), "the object starting at byte %d never closes: the answer was cut off", truncatedAt)
		}
		if j := firstJSON(search); j != "" {
			return fail(ExtractNotObject, string(search), "the plan must be a JSON object, not a JSON %s", j)
		}
		return fail(ExtractNoJSON, string(text), "no JSON object found: the planner answered in prose")
	}
	last := objs[len(objs)-1]
	if len(objs) > 1 {
		warns = append(warns, newFinding(ExtractSeveral, -1, "", "", "%d JSON objects were written; the last was taken", len(objs)))
	}
	if search[last[0]:last[1]] != nil && (last[0] > 0 || last[1] < len(search)) {
		around := strings.TrimSpace(string(search[:last[0]]) + " " + string(search[last[1]:]))
		if around != "" && !hasCode(warns, ExtractProseStripped) {
			warns = append(warns, newFinding(ExtractProseStripped, -1, "", around, "text around the object was stripped"))
		}
	}
	obj, f := checkJSON(search[last[0]:last[1]])
	if f != nil {
		return nil, nil, f
	}
	return obj, warns, nil
}

func hasCode(fs []Finding, c Code) bool {
	for _, f := range fs {
		if f.Code == c {
			return true
		}
	}
	return false
}

func tail(b []byte) string {
	if len(b) > 80 {
		return "…" + string(b[len(b)-80:])
	}
	return string(b)
}

// firstJSON names the JSON value the text is, when it is one and not an object ("array", ...).
// It builds nothing: a megabyte array costs one pass over its bytes.
func firstJSON(text []byte) string {
	if !json.Valid(text) {
		return ""
	}
	switch t := bytes.TrimLeft(text, " \t\r\n"); t[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "{"
	}
	return "number"
}

// objectEnd finds the end of the object that starts at text[start] by balancing braces outside
// strings; complete is false when the text ends first.
func objectEnd(text []byte, start int) (end int, ok bool) {
	end = len(text)
	jsonscan.Walk(text, start, func(ev jsonscan.Event, i, _, depth int) bool {
		if ev == jsonscan.Close && depth == 0 {
			end, ok = i+1, true
			return false
		}
		return true
	})
	return end, ok
}

// fences returns the contents of markdown code fences and the text outside them.
func fences(text []byte) (blocks []string, outside string) {
	lines := strings.Split(string(text), "\n")
	var cur []string
	var out []string
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if in {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, l)
		} else {
			out = append(out, l)
		}
	}
	if in && len(cur) > 0 { // an unclosed fence still holds what was written
		blocks = append(blocks, strings.Join(cur, "\n"))
	}
	return blocks, strings.Join(out, "\n")
}

// jsonFrame is an array or object being read.
type jsonFrame struct {
	keys    map[string]bool
	path    string
	object  bool
	index   int  // members read
	expect  bool // in an object: the next string token is a key
	actions bool // the plan's actions
}

// checkJSON checks that obj is valid JSON without duplicate keys or deep nesting.
func checkJSON(obj []byte) ([]byte, *Finding) {
	if f := checkSurrogates(obj); f != nil {
		return nil, f
	}
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber()
	var stack []*jsonFrame
	pathOf := func() string {
		if len(stack) == 0 {
			return ""
		}
		return stack[len(stack)-1].path
	}
	lastKey := ""
	values := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *json.SyntaxError
			snippet := ""
			if errors.As(err, &se) {
				from := max(0, int(se.Offset)-30)
				snippet = string(obj[from:min(len(obj), int(se.Offset)+10)])
			}
			f := newFinding(ExtractInvalidJSON, -1, "", snippet, "invalid JSON: %v", err)
			return nil, &f
		}
		var top *jsonFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		_, isString := tok.(string)
		isKey := isString && top != nil && top.object && top.expect
		if d, ok := tok.(json.Delim); !isKey && (!ok || d == '{' || d == '[') {
			if values++; values > MaxValues {
				f := newFinding(ExtractTooManyItems, -1, pathOf(), "", "more than %d values in the plan (reading stopped there)", MaxValues)
				return nil, &f
			}
		}
		childPath := func() string {
			if top == nil {
				return ""
			}
			if top.object {
				return top.path + "/" + escapePointer(lastKey)
			}
			return fmt.Sprintf("%s/%d", top.path, top.index)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= maxJSONDepth {
					f := newFinding(ExtractTooDeep, -1, pathOf(), "", "the JSON nests deeper than %d levels", maxJSONDepth)
					return nil, &f
				}
				p := childPath()
				if f := member(top); f != nil {
					return nil, f
				}
				stack = append(stack, &jsonFrame{keys: map[string]bool{}, path: p, object: t == '{', expect: t == '{',
					actions: t == '[' && len(stack) == 1 && p == "/actions"})
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if len(t) > MaxStringBytes {
				f := newFinding(ExtractStringTooLong, -1, childPath(), t[:80], "a string of %d bytes: at most %d are read", len(t), MaxStringBytes)
				return nil, &f
			}
			if top != nil && top.object && top.expect {
				if top.keys[t] {
					f := newFinding(ExtractDuplicateKey, -1, top.path+"/"+escapePointer(t), t, "key %q appears twice in the same object", t)
					return nil, &f
				}
				top.keys[t] = true
				top.expect = false
				lastKey = t
				continue
			}
			if f := member(top); f != nil {
				return nil, f
			}
		default:
			if f := member(top); f != nil {
				return nil, f
			}
		}
	}
	return obj, nil
}

// member counts one more member of an array or object (a value, not a key), and says when that
// is more than a plan may hold.
func member(top *jsonFrame) *Finding {
	if top == nil {
		return nil
	}
	top.index++
	top.expect = true
	switch {
	case top.actions && top.index > schemas.MaxActions:
		f := newFinding(ExtractTooManyActions, -1, "/actions", "", "more than %d actions: split the plan (reading stopped at action %d)", schemas.MaxActions, top.index-1)
		return &f
	case top.index > MaxMembers:
		f := newFinding(ExtractTooManyItems, -1, top.path, "", "more than %d members in one array or object (reading stopped there)", MaxMembers)
		return &f
	}
	return nil
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
