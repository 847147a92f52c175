package jsonschema

import (
	"strings"
	"testing"
)

// TestLazyMeta: archiplan's fork compiles no metaschema at init, only the one of the draft a
// schema is compiled under, and still validates a schema against it.
func TestLazyMeta(t *testing.T) {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.meta != nil {
			t.Fatalf("%s's metaschema compiled before any schema was", d)
		}
	}
	c := NewCompiler()
	if err := c.AddResource("https://example.com/bad.json", strings.NewReader(`{"type": 5}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("https://example.com/bad.json"); err == nil {
		t.Fatal(`{"type": 5} compiled: not validated against the 2020-12 metaschema`)
	}
	if Draft2020.meta == nil {
		t.Fatal("the 2020-12 metaschema is not kept once compiled")
	}
	if Draft4.meta != nil || Draft2019.meta != nil {
		t.Fatal("a schema of 2020-12 compiled other drafts' metaschemas")
	}
	s, err := CompileString("https://example.com/ok.json", `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate("x") != nil || s.Validate(1) == nil {
		t.Fatal("a draft-07 schema compiled lazily does not validate as written")
	}
}
