package planctx

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"

	"encoding/json"
	"errors"
	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/plans"
	"strings"
	"testing"
)

func TestContext_Golden(t *testing.T) {
	m := exampleModel(t)
	view := m.Views()[0].ID()
	cases := map[string]ContextOptions{
		"context.model.json":     {Include: []string{"documentation", "properties"}},
		"context.view.json":      {Scope: "view:" + view},
		"context.folder.json":    {Scope: "folder:Application"},
		"context.truncated.json": {MaxElements: 3},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := BuildContext(m, opts, plans.Policy{})
			if err != nil {
				t.Fatal(err)
			}
			again, _ := BuildContext(exampleModel(t), opts, plans.Policy{})
			if string(c.JSON()) != string(again.JSON()) {
				t.Fatal("two builds differ")
			}
			golden(t, name, c.JSON())
		})
	}
	c, _ := BuildContext(m, ContextOptions{MaxElements: 3}, plans.Policy{})
	if len(c.Elements) != 3 || c.Omitted.Elements != 7 || c.Omitted.Relationships == 0 {
		t.Fatalf("truncation: %d elements, omitted %+v", len(c.Elements), c.Omitted)
	}
	summarised(t, m, c)
	// a context's ids are the scope a plan beside it is held to
	ids, err := plans.ScopeFromContext(c.JSON())
	if err != nil || len(ids) != len(c.Elements)+len(c.Relationships)+len(c.Views) {
		t.Fatalf("%v %v", ids, err)
	}
}

func TestContext_Scopes(t *testing.T) {
	m := exampleModel(t)
	app := ids(t, m, "{BookingApp}")
	c, err := BuildContext(m, ContextOptions{Scope: "ids:" + app + "," + ids(t, m, "{FleetRecords}")}, plans.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Elements) != 2 || len(c.Relationships) != 1 {
		t.Fatalf("%d elements, %d relationships", len(c.Elements), len(c.Relationships))
	}
	for _, bad := range []string{"view:nope", "folder:Nowhere", "ids:nope", "colour:red"} {
		if _, err := BuildContext(m, ContextOptions{Scope: bad}, plans.Policy{}); !errors.Is(err, ErrBadScope) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	p, _ := BuildContext(m, ContextOptions{}, plans.Policy{AllowedOps: []string{"rename_element"}, AllowedElementTypes: []string{"Goal"}})
	if strings.Join(p.AllowedOps, ",") != "rename_element" || strings.Join(p.AllowedElementTypes, ",") != "Goal" {
		t.Fatalf("policy not shown: %v %v", p.AllowedOps, p.AllowedElementTypes)
	}
}

func TestPrompt_Golden(t *testing.T) {
	m := exampleModel(t)
	intent := "Rename the customer to Client and make the desk serve them."
	c, _ := BuildContext(m, ContextOptions{Intent: intent}, plans.Policy{})
	p := plans.BuildPrompt(intent, c)
	golden(t, "prompt.txt", []byte(p))
	if !strings.HasPrefix(p, plans.StablePrompt()) {
		t.Fatal("the stable part does not come first")
	}
	if !strings.HasSuffix(p, "make the desk serve them.\n") {
		t.Fatal("the request does not come last")
	}
	var probe map[string]any
	start := strings.Index(p, "```json\n") + len("```json\n")
	end := strings.Index(p[start:], "```")
	if err := json.Unmarshal([]byte(p[start:start+end]), &probe); err != nil {
		t.Fatalf("the context in the prompt is not JSON: %v", err)
	}
}

// summarised checks that what the budget left out is counted by type and folder, and that no
// element type of the model vanishes: each is listed or counted.
func summarised(t *testing.T, m *archixml.Model, c *PlanningContext) {
	t.Helper()
	total, byFolder := 0, 0
	counted := map[string]bool{}
	for _, e := range c.Omitted.ByType {
		total += e.Count
		counted[e.Name] = true
	}
	for _, e := range c.Omitted.ByFolder {
		byFolder += e.Count
	}
	if total != c.Omitted.Elements || byFolder != c.Omitted.Elements {
		t.Fatalf("omitted %d elements, by type %d, by folder %d", c.Omitted.Elements, total, byFolder)
	}
	listed := map[string]bool{}
	for _, e := range c.Elements {
		listed[e.Type] = true
	}
	if c.Scope == "model" {
		for _, e := range m.Elements() {
			if l := e.Type().Label; !listed[l] && !counted[l] {
				t.Fatalf("the %s elements vanished without a trace", l)
			}
		}
	}
}

func TestContext_IntentFirst(t *testing.T) {
	m := exampleModel(t)
	desk := ids(t, m, "{RentalDesk}")
	process := ids(t, m, "{RentaBike}")
	c, err := BuildContext(m, ContextOptions{Intent: "Give the desk a new member role", MaxElements: 2}, plans.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Focus) == 0 || c.Focus[0] != desk {
		t.Fatalf("focus %v, want the desk %s first", c.Focus, desk)
	}
	got := map[string]bool{}
	for _, e := range c.Elements {
		got[e.ID] = true
	}
	if !got[desk] || !got[process] {
		t.Fatalf("the desk and its neighbour are not both kept: %+v", c.Elements)
	}
	// the view showing the desk, with its contents
	if len(c.Views) != 1 || c.Views[0].Contents == nil {
		t.Fatalf("views: %+v", c.Views)
	}
	shown := false
	for _, o := range c.Views[0].Contents.Objects {
		if o.Element == desk && o.Bounds[2] != 0 {
			shown = true
		}
	}
	if !shown {
		t.Fatalf("the view's contents do not show the desk: %+v", c.Views[0].Contents)
	}
	summarised(t, m, c)
	// an id named in the intent is the focus, whatever its name
	c, _ = BuildContext(m, ContextOptions{Intent: "Document " + process + ".", MaxElements: 1}, plans.Policy{})
	if len(c.Elements) != 1 || c.Elements[0].ID != process {
		t.Fatalf("the id named is not kept: %+v", c.Elements)
	}
}

func TestContext_CharacterBudget(t *testing.T) {
	m := exampleModel(t)
	full, _ := BuildContext(m, ContextOptions{}, plans.Policy{})
	budget := len(full.JSON()) - 600
	c, err := BuildContext(m, ContextOptions{MaxChars: budget}, plans.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.JSON()) > budget || c.Omitted.Elements == 0 {
		t.Fatalf("%d characters for a budget of %d, %d omitted", len(c.JSON()), budget, c.Omitted.Elements)
	}
	summarised(t, m, c)
	if _, err := BuildContext(m, ContextOptions{MaxChars: 500}, plans.Policy{}); !errors.Is(err, ErrContextTooLarge) {
		t.Fatalf("a budget nothing fits: %v", err)
	}
}

func TestContext_Specializations(t *testing.T) {
	data := corpusFile(t, "realworld/pyArchimate__pyArchimate__profile.archimate")
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := BuildContext(m, ContextOptions{}, plans.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Specializations) == 0 || len(c.Specializations) != len(m.Profiles()) {
		t.Fatalf("specializations: %+v", c.Specializations)
	}
	specialised := 0
	for _, e := range c.Elements {
		if e.Specialization != "" {
			specialised++
		}
	}
	if specialised == 0 {
		t.Fatal("no element shows its specialization")
	}
}

// corpusFile reads one corpus model, skipping the test when ARCHIPLAN_CORPUS is unset.
func corpusFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(testenv.CorpusFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The corpus's largest models: a request naming one element gets that element, its neighbours
// and the views showing it within the default budget, the prompt fits the Codex app-server,
// and two builds give the same bytes.
func TestContext_CorpusLargest(t *testing.T) {
	for _, name := range []string{
		"realworld/sara-sabr__EA-models__CommonSandbox.archimate",
		"realworld/Health-RI__data-spaces-archimate__model.archimate",
		"realworld/yasenstar__EA__BIZBOK10.0.archimate",
	} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data := corpusFile(t, name)
			m, err := archixml.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			target := namedElement(m)
			intent := "Document what " + target.Name() + " is for, and put it on the relevant view."
			opts := ContextOptions{Intent: intent}
			c, err := BuildContext(m, opts, plans.Policy{})
			if err != nil {
				t.Fatal(err)
			}
			again, _ := BuildContext(m, opts, plans.Policy{})
			if !bytes.Equal(c.JSON(), again.JSON()) {
				t.Fatal("two builds differ")
			}
			if len(c.JSON()) > DefaultMaxChars {
				t.Fatalf("%d characters over the default budget", len(c.JSON()))
			}
			if p := plans.BuildPrompt(intent, c); len(p) > 1<<20 {
				t.Fatalf("the prompt is %d characters", len(p))
			}
			listed := map[string]bool{}
			for _, e := range c.Elements {
				listed[e.ID] = true
			}
			if !listed[target.ID()] || !slices.Contains(c.Focus, target.ID()) {
				t.Fatalf("%s is not listed as the focus", target.Name())
			}
			for _, r := range m.RelationshipsOf(target.ID()) {
				for _, end := range []string{r.SourceID(), r.TargetID()} {
					if o, ok := m.Object(end); ok && o.Kind() == archixml.KindElement && !listed[end] {
						t.Fatalf("the neighbour %s %q is missing", end, o.Name())
					}
				}
			}
			views := map[string]ContextView{}
			for _, v := range c.Views {
				views[v.ID] = v
			}
			for _, ref := range m.ReferencesTo(target.ID()) {
				v, _ := ref.View()
				if v.Class() != "ArchimateDiagramModel" {
					continue
				}
				if _, ok := views[v.ID()]; !ok {
					t.Fatalf("the view %q showing it is missing", v.Name())
				}
				if views[v.ID()].Contents == nil && c.Omitted.ViewContents == 0 {
					t.Fatalf("the view %q is listed without contents, and that is not counted", v.Name())
				}
			}
			summarised(t, m, c)
			t.Logf("%d elements in the model: %d listed, %d characters", len(m.Elements()), len(c.Elements), len(c.JSON()))
		})
	}
}

// namedElement picks an element a person would name: the most connected one with a name of
// two or more words that no other element has, shown on a view.
func namedElement(m *archixml.Model) archixml.Object {
	names := map[string]int{}
	for _, e := range m.Elements() {
		names[strings.ToLower(e.Name())]++
	}
	var best archixml.Object
	bestN := -1
	for _, e := range m.Elements() {
		if names[strings.ToLower(e.Name())] != 1 || len(words(e.Name())) < 2 || len(m.ReferencesTo(e.ID())) == 0 {
			continue
		}
		if n := len(m.RelationshipsOf(e.ID())); n > bestN {
			best, bestN = e, n
		}
	}
	return best
}

// A 20,000-element model with a budget of 5,000 elements: the character budget holds, and the
// prompt fits the Codex app-server's input limit.
func TestContext_LargeModelFitsTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := BuildContext(m, ContextOptions{MaxElements: 5000, Include: []string{"documentation", "properties"}}, plans.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.JSON()); n > DefaultMaxChars || c.Omitted.Elements == 0 {
		t.Fatalf("%d characters, %d omitted", n, c.Omitted.Elements)
	}
	if p := plans.BuildPrompt("anything", c); len(p) > 1<<20 {
		t.Fatalf("the prompt is %d characters", len(p))
	}
	summarised(t, m, c)
}

// Every corpus model gives a context within the budget, with what it leaves out summarised.
func TestContext_CorpusAll(t *testing.T) {
	for _, f := range testenv.CorpusModels(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := archixml.Load(data)
		if err != nil {
			continue // the loader's tests judge what it refuses
		}
		c, err := BuildContext(m, ContextOptions{Intent: "Show the main services", MaxElements: 50}, plans.Policy{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(c.JSON()) > DefaultMaxChars {
			t.Fatalf("%s: %d characters", f, len(c.JSON()))
		}
		summarised(t, m, c)
	}
}
