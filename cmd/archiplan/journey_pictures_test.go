package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/testenv"
)

// Issue 33, a journey: on every corpus model (the example model without a corpus), a plan that
// only restyles, one that only moves and one that only reroutes, dropped in the inbox of a running
// daemon, each get a preview with pictures, as a person reads it: the view before and after in
// one frame, what changed outlined, a legend line naming the change.
func TestJourney_LayoutPlansArePictured(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	models := []string{filepath.Join("..", "..", "testdata", "models", "example.archimate")}
	for _, f := range testenv.CorpusModelsIfSet(t) {
		if !strings.Contains(f, "zipped") {
			models = append(models, f)
		}
	}
	bin := filepath.Join(t.TempDir(), "archiplan")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, model := range models {
		t.Run(filepath.Base(model), func(t *testing.T) {
			data, err := os.ReadFile(model)
			if err != nil {
				t.Fatal(err)
			}
			m, err := archixml.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			journeyPlans := layoutPlans(m)
			if len(journeyPlans) == 0 {
				t.Skip("no view of the model shows an element")
			}
			ws := filepath.Join(t.TempDir(), "ws")
			env := append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
				"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
			cmd := exec.Command(bin, "init", ws, "--model", model)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("init: %v\n%s", err, out)
			}
			daemon := exec.Command(bin, "daemon", "--repo", ws)
			daemon.Env = env
			var logs bytes.Buffer
			daemon.Stderr = &logs
			if err := daemon.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				daemon.Process.Signal(syscall.SIGTERM)
				daemon.Wait()
				if t.Failed() {
					t.Logf("daemon:\n%s", logs.String())
				}
			})
			inbox := filepath.Join(ws, "plans")
			for _, p := range journeyPlans {
				if err := os.WriteFile(filepath.Join(inbox, p.name+".json"), p.raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range journeyPlans {
				md := waitPreview(t, inbox, p.name)
				if !strings.Contains(md, "## Views") {
					t.Errorf("%s: the preview has no pictures:\n%s", p.name, md)
					continue
				}
				before, err1 := os.ReadFile(filepath.Join(inbox, p.name+".view-1.before.svg"))
				after, err2 := os.ReadFile(filepath.Join(inbox, p.name+".view-1.after.svg"))
				if err1 != nil || err2 != nil {
					t.Errorf("%s: no picture before and after: %v %v\n%s", p.name, err1, err2, md)
					continue
				}
				vb := regexp.MustCompile(`viewBox="[^"]*"`)
				if b, a := vb.Find(before), vb.Find(after); !bytes.Equal(b, a) {
					t.Errorf("%s: before and after are framed differently: %s, %s", p.name, b, a)
				}
				for _, side := range [][]byte{before, after} {
					if !bytes.Contains(side, []byte(`data-mark="changed"`)) {
						t.Errorf("%s: the changed object is not outlined", p.name)
					}
				}
				if !regexp.MustCompile(`(?m)^- .*: ` + p.word + ` \(action 0\)$`).MatchString(md) {
					t.Errorf("%s: no legend line says %q:\n%s", p.name, p.word, md)
				}
			}
		})
	}
}

type journeyPlan struct {
	name string
	raw  []byte
	word string // what the legend calls the change
}

// layoutPlans are a restyle, a move and (where a view draws a connection) a change of router, each
// alone in a plan, on the first view showing an element.
func layoutPlans(m *archixml.Model) []journeyPlan {
	plan := func(action map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{"schema_version": "3.1", "status": "ready", "summary": "layout only",
			"actions": []map[string]any{action}})
		return b
	}
	var out []journeyPlan
	for _, v := range m.Views() {
		if v.Class() != "ArchimateDiagramModel" {
			continue
		}
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); !ok || c.Kind() != archixml.KindElement {
				continue
			}
			b, _ := d.Bounds()
			fill := "#ffcc00"
			if d.Attr("fillColor") == fill {
				fill = "#00ccff"
			}
			out = append(out,
				journeyPlan{"restyle", plan(map[string]any{"op": "style_view_object", "object_id": d.ID(), "fill_color": fill}), "restyled"},
				journeyPlan{"move", plan(map[string]any{"op": "move_view_object", "object_id": d.ID(), "x": b.X + 40, "y": b.Y + 30}), "moved"})
			break
		}
		if len(out) > 0 {
			break
		}
	}
	// a connection drawn (Archi hides one between an object and the object it sits in)
	drawn := func(v archixml.Object) bool {
		for _, c := range v.Connections() {
			s, ok1 := m.Object(c.SourceID())
			t, ok2 := m.Object(c.TargetID())
			if !ok1 || !ok2 || s.Kind() != archixml.KindDiagramObject || t.Kind() != archixml.KindDiagramObject {
				continue
			}
			sp, _ := s.Parent()
			tp, _ := t.Parent()
			if sp.ID() != t.ID() && tp.ID() != s.ID() {
				return true
			}
		}
		return false
	}
	for _, v := range m.Views() {
		if v.Class() == "ArchimateDiagramModel" && drawn(v) && len(out) > 0 {
			router := "manhattan"
			if v.Attr("connectionRouterType") == archixml.Routers["manhattan"] {
				router = "manual"
			}
			out = append(out, journeyPlan{"reroute", plan(map[string]any{"op": "set_connection_router", "view_id": v.ID(), "router": router}), "rerouted"})
			break
		}
	}
	return out
}

// waitPreview waits until the daemon has previewed a plan (its report holds a verdict), and
// returns the preview.
func waitPreview(t *testing.T, inbox, name string) string {
	t.Helper()
	for {
		rep, err := os.ReadFile(filepath.Join(inbox, name+".report.json"))
		if err == nil && bytes.Contains(rep, []byte(`"verdict"`)) {
			md, err := os.ReadFile(filepath.Join(inbox, name+".preview.md"))
			if err == nil {
				if !bytes.Contains(rep, []byte(`"verdict": "valid"`)) {
					t.Fatalf("%s is not valid:\n%s", name, md)
				}
				return string(md)
			}
		}
		if d, ok := t.Deadline(); ok && time.Until(d) < 10*time.Second {
			t.Fatalf("%s: no preview before the test's deadline", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
