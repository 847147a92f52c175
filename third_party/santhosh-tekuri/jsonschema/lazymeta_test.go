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

// TestSkipMetaValidation: a compiler told to skip the metaschema compiles a schema the metaschema
// refuses, without compiling the metaschema, and the schema validates as written.
func TestSkipMetaValidation(t *testing.T) {
	// (an earlier test may have compiled them: set aside while this one runs)
	m7, m2020 := Draft7.meta, Draft2020.meta
	Draft7.meta, Draft2020.meta = nil, nil
	defer func() { Draft7.meta, Draft2020.meta = m7, m2020 }()
	c := NewCompiler()
	c.SkipMetaValidation = true
	if err := c.AddResource("https://example.com/bad.json", strings.NewReader(`{"type": 5}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("https://example.com/bad.json"); err != nil {
		t.Fatalf("validated against the metaschema though told not to: %v", err)
	}
	c = NewCompiler()
	c.SkipMetaValidation = true
	if err := c.AddResource("https://example.com/ok.json", strings.NewReader(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}`)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://example.com/ok.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate("x") != nil || s.Validate(1) == nil {
		t.Fatal("a schema compiled without its metaschema does not validate as written")
	}
	if Draft2020.meta != nil || Draft7.meta != nil {
		t.Fatal("a metaschema was compiled though told to skip it")
	}
}
