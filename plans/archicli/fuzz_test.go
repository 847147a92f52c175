package archicli

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConvert: whatever a BOM and the files it includes hold, Convert reads each file at most
// once, reads nothing outside the BOM's folder, and gives a plan of JSON or a coded error
// (issue 35: 21 small files including each other took 66 s and 1.2 GB).
func FuzzConvert(f *testing.F) {
	f.Add(`{"version":"1.0","includes":["a.json","b.json"],"changes":[]}`, `{"version":"1.0","includes":["b.json"],"changes":[]}`,
		`{"version":"1.0","changes":[{"op":"createElement","type":"business-actor","name":"A","tempId":"t1"}]}`)
	f.Add(`{"version":"1.0","includes":["../x.json","a.json"],"changes":[]}`, `{"version":"1.0","includes":["a.json"],"changes":[]}`, `{}`)
	f.Add(`{"version":"1.0","includes":["a.json"],"changes":[{"op":"createRelationship","type":"serving-relationship","sourceId":"t1","targetId":"t1"}]}`,
		`{"version":"1.0","includes":["b.json"],"changes":[]}`, `{"version":"1.0","changes":[{"op":"createElement","type":"business-role","name":"R","tempId":"t1"}]}`)
	f.Fuzz(func(t *testing.T, main, a, b string) {
		dir := filepath.Join(t.TempDir(), "bom")
		files := map[string]string{"main.json": main, "a.json": a, "b.json": b, "sub/a.json": a}
		read := map[string]int{}
		opts := Options{ReadFile: func(path string) ([]byte, error) {
			rel, err := filepath.Rel(dir, path)
			// "..?x.json" is a file of the folder: only ".." itself or a path under it is outside
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Fatalf("read %s, outside the BOM's folder", path)
			}
			if read[rel]++; read[rel] > 1 {
				t.Fatalf("read %s twice", rel)
			}
			if s, ok := files[filepath.ToSlash(rel)]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}}
		plan, err := Convert(filepath.Join(dir, "main.json"), opts)
		if err != nil {
			if !errors.Is(err, ErrConvert) {
				t.Fatalf("an error without a code: %v", err)
			}
			return
		}
		if !json.Valid(plan) {
			t.Fatalf("not JSON: %s", plan)
		}
	})
}
