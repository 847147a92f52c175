package plans

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// checkEncoding refuses a plan that is not UTF-8: encoding/json would turn each bad byte into
// U+FFFD, a name nobody wrote.
func checkEncoding(raw []byte) *Finding {
	if utf8.Valid(raw) {
		return nil
	}
	at := 0
	for at < len(raw) {
		r, n := utf8.DecodeRune(raw[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	f := newFinding(ExtractInvalidUTF8, -1, "", "", "byte %d (0x%02x) is not UTF-8: write the plan as UTF-8", at, raw[at])
	return &f
}

// checkSurrogates refuses a JSON string escape of a lone UTF-16 surrogate ("\ud800"), which
// encoding/json also turns into U+FFFD.
func checkSurrogates(obj []byte) *Finding {
	in := false
	for i := 0; i < len(obj); i++ {
		c := obj[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(obj):
			if obj[i+1] != 'u' || i+6 > len(obj) {
				i++
				continue
			}
			u := hex4(obj[i+2 : i+6])
			switch {
			case u >= 0xd800 && u <= 0xdbff:
				if i+12 <= len(obj) && obj[i+6] == '\\' && obj[i+7] == 'u' {
					if lo := hex4(obj[i+8 : i+12]); lo >= 0xdc00 && lo <= 0xdfff {
						i += 11
						continue
					}
				}
				fallthrough
			case u >= 0xdc00 && u <= 0xdfff:
				f := newFinding(ExtractInvalidUTF8, -1, "", string(obj[i:i+6]), "the escape %s at byte %d is half a UTF-16 pair, no character", obj[i:i+6], i)
				return &f
			}
			i += 5
		}
	}
	return nil
}

func hex4(b []byte) int {
	v := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}

// checkFields finds what a plan's schema lets through but its meaning cannot hold: a position
// given by half (x without y places at y=0), a folder path with "." or ".." parts (a folder
// named ".."), an element type from a later vocabulary.
func checkFields(p *Plan) []Finding {
	var out []Finding
	for i, a := range p.Actions {
		if op, _ := schemas.OpByName(schemas.Newest, a.Op); !op.PartialXY && (a.X == nil) != (a.Y == nil) {
			have, miss := "x", "y"
			if a.Y != nil {
				have, miss = "y", "x"
			}
			out = append(out, newFinding(SchemaXYIncomplete, i, actionPointer(i, have), "",
				"%s is given without %s: give both, or neither to let archiplan place it", have, miss))
		}
		if a.FolderPath != nil {
			for _, part := range strings.Split(strings.Trim(*a.FolderPath, "/"), "/") {
				if part == "." || part == ".." || part == "" && strings.Trim(*a.FolderPath, "/") != "" {
					out = append(out, newFinding(FolderPathInvalid, i, actionPointer(i, "folder_path"), *a.FolderPath,
						"the folder path %q has the part %q: name each folder, from the top-level one down", *a.FolderPath, part))
					break
				}
			}
		}
		if p.SchemaVersion == "1.0" && a.Type != nil {
			if t := archixml.LookupType(*a.Type); t != nil && t.Class == "Junction" {
				out = append(out, newFinding(SchemaTypeNotInVer, i, actionPointer(i, "type"), *a.Type,
					"Junction is not a type of schema_version 1.0: write \"2.0\""))
			}
		}
	}
	return out
}

// RefuseModel is the outcome of any plan checked against a model Archi cannot open (err from
// archixml.Check): invalid, with one MODEL_INVALID finding, and nothing run. The daemon checks
// each model blob once and uses this instead of Check while the model is broken.
func RefuseModel(raw []byte, err error) *Outcome {
	return &Outcome{SHA256: SHA256(raw), Verdict: VerdictInvalid,
		Findings: []Finding{newFinding(ModelInvalid, -1, "", "", "%s", fmt.Sprint(err))}}
}

// CheckModel checks a plan as Check does, against a model the caller loaded itself (the command
// line, MCP): on a model Archi cannot open the outcome is RefuseModel's, as the daemon's is, so a
// plan has one outcome whatever the front end.
func CheckModel(raw []byte, m *archixml.Model, opts Options) *Outcome {
	if err := archixml.Check(m); err != nil {
		return RefuseModel(raw, fmt.Errorf("the model cannot be opened by Archi: %w", err))
	}
	return Check(raw, m, opts)
}

// Unreadable is the outcome of a plan file that was not read (a link, a folder, a special file,
// or one over the size cap): invalid, with one finding saying why, whatever the front end.
func Unreadable(raw []byte, tooLarge bool, err error) *Outcome {
	code := ExtractNotRegular
	if tooLarge {
		code = ExtractTooLarge
	}
	return &Outcome{SHA256: SHA256(raw), Verdict: VerdictInvalid,
		Findings: []Finding{{Severity: Error, Code: code, Message: err.Error()}}}
}
