package ledger_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/store"
)

// corpusModels are the example model and every corpus model archiplan reads.
func corpusModels(t *testing.T) []string {
	return append([]string{filepath.Join("..", "..", "testdata", "models", "example.archimate")}, testenv.CorpusModelsIfSet(t)...)
}

// workspaceWith makes a workspace whose model at HEAD is data, byte for byte.
func workspaceWith(t *testing.T, data []byte) *store.Workspace {
	t.Helper()
	ws, _, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: data, Author: lt.Signature})
	if err != nil {
		t.Fatal(err)
	}
	if got := lt.Model(t, ws); !bytes.Equal(got, data) {
		t.Fatal("the workspace's model is not the seed's bytes")
	}
	return ws
}

// Every op, applied by the ledger in a real repository on every corpus model, is archived with
// its inverse and undone by Revert, which proves that inverse first, back to the model's bytes.
func TestRevert_EveryOpOnEveryCorpusModel(t *testing.T) {
	for _, f := range corpusModels(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel() // each its own repository; the time goes in waiting for the disk
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := archixml.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			ws := workspaceWith(t, data)
			l := lt.Ledger(ws)
			for k, s := range opsamples.For(m) {
				name := fmt.Sprintf("op%d", k)
				res, err := l.Apply(context.Background(), ledger.Request{Name: name, File: name + ".json", Raw: s.Plan()})
				if err != nil {
					t.Fatalf("%s: apply: %v", s.Name(), err)
				}
				// on a model without elements (the zipped one of the corpus), a sample that deletes
				// one creates it first, and its plan as a whole changes nothing
				if bytes.Equal(lt.Model(t, ws), data) && len(m.Elements()) > 0 {
					t.Fatalf("%s: the apply changed nothing", s.Name())
				}
				if _, err := l.Revert(context.Background(), res.PlanID); err != nil {
					t.Fatalf("%s: revert: %v", s.Name(), err)
				}
				if !sameModel(t, ws, data) {
					t.Fatalf("%s: the revert does not give back the model's bytes (for a zipped model, its entries)", s.Name())
				}
			}
		})
	}
}

// A plan whose inverse holds steps of an op other than rename (a style) does not stop the revert
// of an earlier, unrelated plan: reading an archive judges no steps (issue 19).
func TestRevert_EarlierPlanAfterAStylePlan(t *testing.T) {
	seed, _ := archixml.Example().Save()
	ws := workspaceWith(t, seed)
	l := lt.Ledger(ws)
	m, _ := archixml.Load(seed)
	var shown string
	for _, v := range m.Views() {
		for _, d := range v.DiagramObjects() {
			if _, ok := d.Concept(); ok && shown == "" {
				shown = d.ID()
			}
		}
	}
	els := lt.Elements(t, ws)
	first, err := l.Apply(context.Background(), ledger.Request{Name: "rename", File: "rename.json", Raw: lt.Rename(els[0], "Client")})
	if err != nil {
		t.Fatal(err)
	}
	style := []byte(fmt.Sprintf(`{"schema_version":"3.0","status":"ready","summary":"style","actions":[{"op":"style_view_object","object_id":%q,"fill_color":"#ffcc00","text_position":"bottom"},{"op":"move_view_object","object_id":%q,"x":700}]}`, shown, shown))
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "style", File: "style.json", Raw: style}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Revert(context.Background(), first.PlanID); err != nil {
		t.Fatalf("revert of the earlier plan: %v", err)
	}
	model := string(lt.Model(t, ws))
	if strings.Contains(model, `name="Client"`) || !strings.Contains(model, `fillColor="#ffcc00"`) {
		t.Fatal("the revert did not undo the rename alone")
	}
	log, err := ledger.Log(ws)
	if err != nil {
		t.Fatalf("log: %v", err)
	}
	kinds := ""
	for _, e := range log {
		kinds += e.Kind + " "
	}
	if kinds != "revert apply apply " {
		t.Fatalf("log: %s", kinds)
	}
}

// In a team, a local plan with a style is made again on top of a remote that moved: sync reads
// the archive without judging its steps (issue 19: it failed outright).
func TestSync_StylePlanOverAMovedRemote(t *testing.T) {
	_, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	m, _ := archixml.Load(lt.Model(t, w[0]))
	var shown string
	for _, v := range m.Views() {
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); ok && shown == "" && c.ID() != els[0] {
				shown = d.ID()
			}
		}
	}
	if res := applyAndSync(t, a, "client", lt.Rename(els[0], "Client")); !res.Pushed {
		t.Fatal("not pushed")
	}
	style := []byte(fmt.Sprintf(`{"schema_version":"3.0","status":"ready","summary":"style","actions":[{"op":"style_view_object","object_id":%q,"fill_color":"#ffcc00"}]}`, shown))
	res := applyAndSync(t, b, "style", style)
	if !res.Pushed || res.Rebased != 1 || len(res.Dropped) != 0 {
		t.Fatalf("%+v", res)
	}
}
