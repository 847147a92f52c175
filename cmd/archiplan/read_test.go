package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/plans/query"
	"github.com/archiplan/archiplan/store"
)

// corpusModel is a model of the shared corpus, or a skip.
func corpusModel(t *testing.T, rel string) string {
	t.Helper()
	return testenv.CorpusFile(t, rel)
}

// corpusWorkspace is a workspace whose model at HEAD is a corpus model.
func corpusWorkspace(t *testing.T, rel string) string {
	t.Helper()
	seed, err := os.ReadFile(corpusModel(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// archiplan runs the command line in this process.
func archiplan(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// Each read command, for people and as JSON, on corpus models: the two forms say the same.
func TestRead_Commands(t *testing.T) {
	surance := corpusWorkspace(t, "archi/Archisurance.archimate")
	old := corpusModel(t, "archi/Archisurance-2.6.archimate")
	m, err := archixml.Load(must(os.ReadFile(old)))
	if err != nil {
		t.Fatal(err)
	}
	jsonOf := func(v any, args ...string) {
		t.Helper()
		out, stderr, code := archiplan(t, append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	human := func(args ...string) string {
		t.Helper()
		out, stderr, code := archiplan(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}

	t.Run("search", func(t *testing.T) {
		var res query.SearchResult
		jsonOf(&res, "search", "--repo", surance, "customer", "--type", "Business Object")
		if res.Total != 2 || len(res.Results) != 2 {
			t.Fatalf("%+v", res)
		}
		text := human("search", "--repo", surance, "customer", "--type", "Business Object")
		for _, r := range res.Results {
			if !strings.Contains(text, r.ID) || !strings.Contains(text, `"`+r.Name+`"`) {
				t.Fatalf("%s misses %s", text, r.ID)
			}
		}
		// documentation and properties are searched; a folder narrows
		jsonOf(&res, "search", "--model", old, "customer", "--folder", "Application")
		for _, r := range res.Results {
			if !strings.HasPrefix(r.Folder, "Application") {
				t.Fatalf("outside the folder: %+v", r)
			}
		}
		if _, stderr, code := archiplan(t, "search", "--model", old, "--type", "Bogus"); code != exitUsage || !strings.Contains(stderr, "UNKNOWN_TYPE") {
			t.Fatalf("bad type: %d %s", code, stderr)
		}
	})
	t.Run("show", func(t *testing.T) {
		var s query.Shown
		jsonOf(&s, "show", "--model", old, "580", "--impact") // Archi 2 ids are numbers
		o, _ := m.Object("580")
		if s.Name != o.Name() || len(s.Relationships) != len(m.RelationshipsOf("580")) || s.Impact == nil ||
			len(s.Impact.Delete.Relationships) != len(m.RelationshipsOf("580")) || len(s.Views) != len(m.ReferencesTo("580")) {
			t.Fatalf("%+v", s)
		}
		text := human("show", "--model", old, "580", "--impact")
		if !strings.Contains(text, o.Name()) || !strings.Contains(text, "deleting it also deletes") {
			t.Fatal(text)
		}
		// a view: its viewpoint as Archi names it, old numbers mapped
		jsonOf(&s, "show", "--model", old, "4056")
		if s.Viewpoint == nil || s.Viewpoint.Name != "Layered" || s.Viewpoint.ID != "14" || s.Contents == nil {
			t.Fatalf("%+v", s.Viewpoint)
		}
		// in words too: every diagram object with the id the view ops name, its name and bounds,
		// nested ones under what holds them; every connection with its id
		text = human("show", "--model", old, "4056")
		lines := strings.Split(text, "\n")
		indentOf := map[string]int{}
		for _, o := range s.Contents.Objects {
			line := ""
			for _, l := range lines {
				if strings.HasPrefix(strings.TrimLeft(l, " "), o.ID+" ") {
					line = l
				}
			}
			if line == "" || !strings.Contains(line, strconv.Quote(o.Name)) || !strings.Contains(line, boundsText(o.Bounds)) {
				t.Fatalf("show VIEW does not list %s %q at %v:\n%s", o.ID, o.Name, o.Bounds, text)
			}
			indentOf[o.ID] = len(line) - len(strings.TrimLeft(line, " "))
			if o.Parent != "" && indentOf[o.ID] <= indentOf[o.Parent] {
				t.Fatalf("%s is not listed under %s, which holds it:\n%s", o.ID, o.Parent, text)
			}
		}
		for _, k := range s.Contents.Connections {
			if !strings.Contains(text, "  "+k.ID+" ") {
				t.Fatalf("show VIEW does not list connection %s:\n%s", k.ID, text)
			}
		}
		if _, stderr, code := archiplan(t, "show", "--model", old, "nope"); code != exitUsage || !strings.Contains(stderr, "REF_NOT_FOUND") {
			t.Fatalf("missing id: %d %s", code, stderr)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		var a query.AllowedResult
		jsonOf(&a, "allowed", "--model", old, "Business Actor", "BusinessRole")
		if strings.Join(a.Relationships, ",") != "Assignment,Association,Flow,Serving,Triggering" {
			t.Fatalf("%+v", a)
		}
		if text := human("allowed", "--model", old, "Business Actor", "BusinessRole"); !strings.Contains(text, "Assignment") {
			t.Fatal(text)
		}
		jsonOf(&a, "allowed", "--model", old, "Node", "Business Actor")
		for _, r := range a.Relationships {
			if !archixml.Relationships().Allowed(archixml.LookupType(r).Class, "Node", "BusinessActor") {
				t.Fatalf("%s is not allowed", r)
			}
		}
	})
	t.Run("views", func(t *testing.T) {
		var v query.ViewsResult
		jsonOf(&v, "views", "--model", old)
		if len(v.Views) != len(m.Views()) {
			t.Fatalf("%d views of %d", len(v.Views), len(m.Views()))
		}
		text := human("views", "--model", old)
		refs := 0
		for _, x := range v.Views {
			refs += x.References
			if !strings.Contains(text, x.ID) {
				t.Fatalf("%s missing", x.ID)
			}
		}
		if refs == 0 || !strings.Contains(text, "Layered viewpoint") || !strings.Contains(text, "view references") {
			t.Fatal(text)
		}
	})
	t.Run("folders", func(t *testing.T) {
		var f query.FoldersResult
		jsonOf(&f, "folders", "--repo", surance)
		if len(f.Folders) == 0 {
			t.Fatal("no folders")
		}
		total := 0
		for _, x := range f.Folders {
			total += x.Elements
		}
		if total != 120 {
			t.Fatalf("%d elements in folders", total)
		}
		if text := human("folders", "--repo", surance); !strings.Contains(text, "Business/Actors") {
			t.Fatal(text)
		}
	})
	t.Run("stats", func(t *testing.T) {
		var s query.Stats
		jsonOf(&s, "stats", "--repo", surance)
		if s.Elements != 120 || s.Relationships != 176 || s.Views != 17 {
			t.Fatalf("%+v", s)
		}
		if text := human("stats", "--repo", surance); !strings.Contains(text, "120 elements, 176 relationships, 17 views") {
			t.Fatal(text)
		}
	})
	t.Run("check", func(t *testing.T) {
		var c query.CheckResult
		jsonOf(&c, "check", "--repo", surance)
		if len(c.Findings) == 0 || len(c.Checks) != 8 {
			t.Fatalf("%+v", c)
		}
		text := human("check", "--repo", surance)
		if !strings.Contains(text, string(c.Findings[0].Code)) || !strings.Contains(text, "advice") {
			t.Fatal(text)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The read tools through the MCP Inspector's CLI on Archisurance 2.6, whose ids are numbers: the
// Inspector sends id=580 as a JSON number.
func TestRead_InspectorCorpus(t *testing.T) {
	bin := inspector(t)
	dir := corpusWorkspace(t, "archi/Archisurance-2.6.archimate")
	archiplanBin := filepath.Join(t.TempDir(), "archiplan")
	if out, err := exec.Command("go", "build", "-o", archiplanBin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	real, _ := filepath.EvalSymlinks(bin)
	call := func(tool string, args ...string) string {
		t.Helper()
		a := []string{"--cli", archiplanBin, "mcp", "--repo", dir, "--method", "tools/call", "--tool-name", tool}
		for _, x := range args {
			a = append(a, "--tool-arg", x)
		}
		cmd := exec.Command(bin, a...)
		cmd.Dir = filepath.Dir(real)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tool, err, out)
		}
		var v struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}
		if err := json.Unmarshal(out, &v); err != nil || v.IsError || len(v.Content) == 0 {
			t.Fatalf("%s: %v %s", tool, err, out)
		}
		return v.Content[0].Text
	}
	// the same answer as the command line gives
	same := func(cliArgs []string, tool string, args ...string) {
		t.Helper()
		cli, stderr, code := archiplan(t, append(cliArgs, "--repo", dir, "--json")...)
		if code != 0 {
			t.Fatalf("%v: %s", cliArgs, stderr)
		}
		if got := call(tool, args...); strings.TrimSpace(got) != strings.TrimSpace(cli) {
			t.Fatalf("%s over MCP differs from the command line:\n%s\n---\n%s", tool, got, cli)
		}
	}
	same([]string{"show", "580", "--impact"}, "show", "id=580", "impact=true")
	same([]string{"search", "customer", "--type", "Business Role"}, "search", "text=customer", "type=Business Role")
	same([]string{"allowed", "Business Actor", "580"}, "allowed", "source=Business Actor", "target=580")
	same([]string{"views"}, "views")
	same([]string{"folders"}, "folders")
	same([]string{"stats"}, "stats")
	same([]string{"check"}, "check")
}

// check, on a corpus model after a plan that adds an element on no view and an empty view, finds
// both with their codes; the preview warned of both before the apply.
func TestRead_CheckAfterApply(t *testing.T) {
	dir := corpusWorkspace(t, "archi/Archisurance.archimate")
	plan := filepath.Join(dir, "plans", "add.json")
	if err := os.WriteFile(plan, []byte(`{"schema_version": "2.0", "status": "ready", "summary": "A new role and a view for it",
 "actions": [
  {"op": "create_element", "type": "Business Role", "name": "Claims Auditor", "ref_id": "auditor"},
  {"op": "create_view", "name": "Audit (to fill)", "ref_id": "audit"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := archiplan(t, "validate", "--repo", dir, plan, "--json")
	if code != 0 || !strings.Contains(out, `"ARCHI_UNUSED_ELEMENT"`) || !strings.Contains(out, `"ARCHI_EMPTY_VIEW"`) {
		t.Fatalf("validate: %d %s %s", code, out, stderr)
	}
	before, _, _ := archiplan(t, "check", "--repo", dir, "--json")
	if _, stderr, code := archiplan(t, "apply", "--repo", dir, plan); code != 0 {
		t.Fatalf("apply: %s", stderr)
	}
	var b, a query.CheckResult
	if err := json.Unmarshal([]byte(before), &b); err != nil {
		t.Fatal(err)
	}
	after, _, _ := archiplan(t, "check", "--repo", dir, "--json")
	if err := json.Unmarshal([]byte(after), &a); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range b.Findings {
		seen[string(f.Code)+" "+f.Object] = true
	}
	var added []string
	for _, f := range a.Findings {
		if !seen[string(f.Code)+" "+f.Object] {
			added = append(added, string(f.Code)+" "+f.Name)
		}
	}
	if strings.Join(added, "; ") != "ARCHI_UNUSED_ELEMENT Claims Auditor; ARCHI_EMPTY_VIEW Audit (to fill)" {
		t.Fatalf("new findings: %v", added)
	}
	text, _, _ := archiplan(t, "check", "--repo", dir)
	if !strings.Contains(text, "warning ARCHI_UNUSED_ELEMENT") || !strings.Contains(text, "advice ARCHI_EMPTY_VIEW") {
		t.Fatal(text)
	}
}
