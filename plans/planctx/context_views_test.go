package planctx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/plans"
)

// Every corpus model's context lists every ArchiMate view within the default budget (empty ones
// and those holding only view references too), each with its viewpoint as Archi names it and its
// contents counted; groups, notes and references in contents carry their kind, name and type.
func TestContext_EveryView(t *testing.T) {
	files := testenv.CorpusModels(t)
	sawEmpty, sawRefsOnly, sawKinds := false, false, map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, _ := os.ReadFile(f)
			m, err := archixml.Load(data)
			if err != nil {
				t.Skip(err)
			}
			c, err := BuildContext(m, ContextOptions{Intent: "Fill the empty views"}, plans.Policy{})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.JSON()) > DefaultMaxChars {
				t.Fatalf("%d characters", len(c.JSON()))
			}
			listed := map[string]ContextView{}
			for _, v := range c.Views {
				listed[v.ID] = v
			}
			for _, v := range m.Views() {
				if v.Class() != "ArchimateDiagramModel" {
					continue
				}
				cv, ok := listed[v.ID()]
				if !ok {
					t.Fatalf("view %q is not listed", v.Name())
				}
				if want := archixml.ViewpointOf(v.Attr("viewpoint")).Name; cv.ViewpointName != want {
					t.Fatalf("view %q: viewpoint %q, want %q", v.Name(), cv.ViewpointName, want)
				}
				counts, n := CountView(v)
				if cv.Objects != n || cv.Counts == nil || *cv.Counts != counts {
					t.Fatalf("view %q: %+v, want %+v", v.Name(), cv.Counts, counts)
				}
				if n == 0 {
					sawEmpty = true
				}
				if n > 0 && counts.References == n {
					sawRefsOnly = true
				}
				for _, o := range ViewContentsOf(v).Objects {
					sawKinds[o.Kind] = true
					if o.Kind != "element" && o.Type == "" {
						t.Fatalf("view %q: a %s without a type", v.Name(), o.Kind)
					}
					if o.Kind == "reference" && o.View == "" {
						t.Fatalf("view %q: a reference to no view", v.Name())
					}
				}
			}
		})
	}
	if !sawRefsOnly || !sawEmpty || !sawKinds["group"] || !sawKinds["note"] || !sawKinds["reference"] {
		t.Fatalf("the corpus did not exercise empty views (%v), reference-only views (%v), kinds %v", sawEmpty, sawRefsOnly, sawKinds)
	}
}
