package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// sameSite fails the test unless the two sites hold the same files with the same bytes (diff -r).
func sameSite(t *testing.T, step, got, want string) {
	t.Helper()
	g, w := readSite(t, got), readSite(t, want)
	var diffs []string
	for rel, data := range w {
		if gd, ok := g[rel]; !ok {
			diffs = append(diffs, "missing "+rel)
		} else if !bytes.Equal(gd, data) {
			diffs = append(diffs, "differs "+rel)
		}
	}
	for rel := range g {
		if _, ok := w[rel]; !ok {
			diffs = append(diffs, "extra "+rel)
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Fatalf("%s: the updated site is not the site written whole (%d files):\n%s", step, len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
	}
}

// After each apply of a sequence on a corpus model (a rename, a delete with its cascade, a new
// relationship, a view changed and renamed, a property, a move to another folder, an element moved
// on a view and one taken off a view; a folder renamed, an element renamed and named back in two
// commits, an element moved to an earlier folder, two elements of a folder swapped in the file, by
// git), the site
// updated from the previous commit's is the site of the new commit written whole, byte for byte,
// and the update wrote fewer files than the whole site holds. So is the site of a Publisher
// beside, which after the ledger's applies (the first one's update aside) reads no model but
// applies the ledger's plan to the models it keeps.
func TestPublish_UpdateIsTheWholeSite(t *testing.T) {
	seed, err := os.ReadFile(testenv.CorpusFile(t, "archi/Archisurance.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	ws, head, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(seed)
	if err != nil {
		t.Fatal(err)
	}
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: ledgertest.Inbox(ws), ApprovedBy: ledgertest.Signature})
	site := filepath.Join(t.TempDir(), "site")
	first, err := Publish(ws, head, site)
	if err != nil || first.Incremental {
		t.Fatalf("first publish: %+v, %v", first, err)
	}
	// and a Publisher beside, as the daemon's, which applies the ledger's plans to its models
	pub := NewPublisher(ws, filepath.Join(t.TempDir(), "replayed"))
	pub.Replays(led.Replay)
	if _, err := pub.Publish(head); err != nil {
		t.Fatal(err)
	}
	replayedOnce := false // the first apply's update reads the model: the Publisher's copy is made then

	// the model's objects the plans name: the elements with the most relationships, drawn on views
	var busy []archixml.Object
	for _, e := range m.Elements() {
		if len(m.RelationshipsOf(e.ID())) >= 2 && len(m.ReferencesTo(e.ID())) > 0 {
			busy = append(busy, e)
		}
	}
	sort.SliceStable(busy, func(i, j int) bool {
		return len(m.RelationshipsOf(busy[i].ID())) > len(m.RelationshipsOf(busy[j].ID()))
	})
	if len(busy) < 8 {
		t.Fatalf("only %d elements with relationships on views", len(busy))
	}
	var view, absent archixml.Object // a view, and a busy element it does not show
	for _, v := range m.Views() {
		shown := shownOn(v)
		for _, e := range busy[4:] {
			if len(shown) > 2 && !shown[e.ID()] {
				view, absent = v, e
			}
		}
	}
	if !view.Valid() {
		t.Fatal("no view to add an element to")
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	plans := []struct{ name, actions string }{
		{"rename", fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed one"}`, q(busy[0].ID()))},
		// renamed again, to a name with a character a person cannot see: the spliced search index
		// shows it as its code, as a whole site's does
		{"hidden", fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":%s}`, q(busy[0].ID()), q("Renamed\u202eeno"))},
		{"delete", fmt.Sprintf(`{"op":"delete_element","element_id":%s}`, q(busy[1].ID()))},
		{"relate", fmt.Sprintf(`{"op":"create_relationship","source_id":%s,"target_id":%s,"relationship_type":"Association","name":"new link"}`, q(busy[2].ID()), q(busy[3].ID()))},
		{"view", fmt.Sprintf(`{"op":"add_to_view","view_id":%s,"element_id":%s},{"op":"rename_element","element_id":%s,"new_name":"Renamed view"}`,
			q(view.ID()), q(absent.ID()), q(view.ID()))},
		{"property", fmt.Sprintf(`{"op":"set_property","element_id":%s,"key":"owner","value":"Ops"}`, q(busy[4].ID()))},
		{"move", fmt.Sprintf(`{"op":"move_to_folder","element_id":%s,"folder_path":%s}`, q(busy[5].ID()),
			q(strings.Split(busy[5].FolderPath(), "/")[0]+"/Moved here"))},
		// a picture changed and nothing else: the element's history says it moved
		{"layout", fmt.Sprintf(`{"op":"move_view_object","object_id":%s,"x":700,"y":700}`, q(m.ReferencesTo(busy[6].ID())[0].ID()))},
		{"unview", fmt.Sprintf(`{"op":"remove_from_view","object_id":%s}`, q(m.ReferencesTo(busy[7].ID())[0].ID()))},
	}
	// commits of a person's own (Archi saved, git commit): a folder renamed, and an element renamed
	// and named back in two commits the site is updated over at once
	edit := func(msg string, fn func(m *archixml.Model) error) {
		m, err := archixml.Load(ledgertest.Model(t, ws))
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(m); err != nil {
			t.Fatal(err)
		}
		data, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws.Root, ws.Model), data, 0o644); err != nil {
			t.Fatal(err)
		}
		ledgertest.Git(t, ws.Root, "commit", "-qam", msg)
	}
	folder, _ := view.Parent()
	plans = append(plans, struct{ name, actions string }{"folder", ""}, struct{ name, actions string }{"back", ""},
		struct{ name, actions string }{"forward", ""}, struct{ name, actions string }{"swap", ""})
	for _, p := range plans {
		switch p.name {
		case "folder":
			edit("rename a folder", func(m *archixml.Model) error { return m.Rename(folder.ID(), "Renamed folder") })
		case "back":
			edit("rename", func(m *archixml.Model) error { return m.Rename(busy[2].ID(), "For a moment") })
			edit("rename back", func(m *archixml.Model) error { return m.Rename(busy[2].ID(), busy[2].Name()) })
		case "forward":
			// the last element of the first element's layer in another folder moved into the
			// first's: earlier in the search index
			edit("move forward", func(m *archixml.Model) error {
				els := m.Elements()
				first := els[0]
				top := strings.Split(first.FolderPath(), "/")[0]
				for i := len(els) - 1; i > 0; i-- {
					if p := els[i].FolderPath(); p != first.FolderPath() && strings.Split(p, "/")[0] == top {
						_, err := m.MoveToFolder(els[i].ID(), first.FolderPath())
						return err
					}
				}
				return fmt.Errorf("no element of %s in another folder", top)
			})
		case "swap":
			// two elements of a folder change places in the file, by hand: no object's bytes
			// change but the folder's, and the search index lists them the other way round
			data := ledgertest.Model(t, ws)
			m, err := archixml.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			var a, b string
			for _, f := range m.Folders() {
				var kids []string
				for _, c := range f.Children() {
					if o, ok := c.Original(); ok && c.Kind() == archixml.KindElement {
						kids = append(kids, o)
					}
				}
				if len(kids) >= 2 && kids[0] != kids[1] {
					a, b = kids[0], kids[1]
					break
				}
			}
			i, j := bytes.Index(data, []byte(a)), bytes.Index(data, []byte(b))
			if a == "" || i < 0 || j < i+len(a) {
				t.Fatal("no two elements of a folder to swap")
			}
			swapped := slices.Concat(data[:i], []byte(b), data[i+len(a):j], []byte(a), data[j+len(b):])
			if err := os.WriteFile(filepath.Join(ws.Root, ws.Model), swapped, 0o644); err != nil {
				t.Fatal(err)
			}
			ledgertest.Git(t, ws.Root, "commit", "-qam", "swap two elements")
		default:
			raw := `{"schema_version":"3.1","status":"ready","summary":"` + p.name + `","actions":[` + p.actions + `]}`
			ledgertest.Preview(t, led, p.name, []byte(raw))
			if _, err := ledgertest.Approve(t, led, p.name); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
		}
		head, err := ws.Head()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Publish(ws, head, site)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		whole := filepath.Join(t.TempDir(), "whole")
		want, err := Publish(ws, head, whole)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Incremental || want.Incremental {
			t.Fatalf("%s: updated %v, whole %v", p.name, got.Incremental, want.Incremental)
		}
		sameSite(t, p.name, site, whole)
		read, played := modelsRead.Load(), replays.Load()
		if got, err := pub.Publish(head); err != nil || !got.Incremental {
			t.Fatalf("%s: the Publisher: %+v, %v", p.name, got, err)
		}
		sameSite(t, p.name+" (replayed)", pub.dir, whole)
		if p.actions != "" && replayedOnce && (modelsRead.Load() != read || replays.Load() != played+2) {
			t.Errorf("%s: the Publisher read %d models and replayed %d plans, not the ledger's plan on its two models", p.name, modelsRead.Load()-read, replays.Load()-played)
		}
		replayedOnce = replayedOnce || p.actions != ""
		if bound := want.Files / 2; got.Files >= bound && p.name != "folder" || got.Files >= want.Files {
			// a folder holding every view: its rename changes every page naming a view
			t.Errorf("%s: the update wrote %d files of the %d of the site", p.name, got.Files, want.Files)
		}
		t.Logf("%s: wrote %d of %d files (%d pages), removed %d", p.name, got.Files, want.Files, got.Pages, got.Removed)
	}
}

// A site an update left half-written (its marker says so), or one of a commit off the line, is
// written whole.
func TestPublish_UpdateOnlyWhenSure(t *testing.T) {
	e := newEnv(t)
	led := ledger.New(ledger.Config{Workspace: e.ws, Inbox: ledgertest.Inbox(e.ws), ApprovedBy: ledgertest.Signature})
	h0, err := e.ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := Publish(e.ws, h0, site); err != nil {
		t.Fatal(err)
	}
	ledgertest.Preview(t, led, "one", []byte(renamePlan("one", customer, "Client")))
	if _, err := ledgertest.Approve(t, led, "one"); err != nil {
		t.Fatal(err)
	}
	h1, _ := e.ws.Head()
	// half-written: the marker of an update under way, and a stale page
	marker := filepath.Join(site, SiteMarker)
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(marker, bytes.Replace(data, []byte(`"format_version": 2,`), []byte(`"format_version": 2, "writing": true,`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(site, siteElements, "stale.html")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Publish(e.ws, h1, site)
	if err != nil || s.Incremental {
		t.Fatalf("after a half-written update: %+v, %v", s, err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the site written whole kept a page of its own")
	}
	// back to the first commit: not an update (h1 is not on h0's line)
	if s, err = Publish(e.ws, h0, site); err != nil || s.Incremental {
		t.Fatalf("back to an older commit: %+v, %v", s, err)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := Publish(e.ws, h0, whole); err != nil {
		t.Fatal(err)
	}
	sameSite(t, "back", site, whole)
}

// Random edits, committed one to three at a time and sometimes reverted by git, on a corpus
// model: after each round the site updated from the previous round's is the site written whole,
// byte for byte. The edits are of every kind an update tells apart: names of elements,
// relationships, views and folders, properties and documentation, objects created, deleted and
// moved to other folders, views created, copied and deleted, objects added to, taken off and
// moved on views. And so is the site of the daemon's Publisher after rounds of random plans the
// ledger applies (it replays the plan when one was applied since its last publish).
func TestPublish_UpdateOfRandomEdits(t *testing.T) {
	seed, err := os.ReadFile(testenv.CorpusFile(t, "archi/Archisurance.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range []int64{1, 2} {
		t.Run(fmt.Sprint("seed=", rs), func(t *testing.T) {
			ws, head, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
			if err != nil {
				t.Fatal(err)
			}
			site := filepath.Join(t.TempDir(), "site")
			if _, err := Publish(ws, head, site); err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewSource(rs))
			pick := func(list []archixml.Object) archixml.Object { return list[r.Intn(len(list))] }
			edits := []func(m *archixml.Model) error{
				func(m *archixml.Model) error {
					return m.Rename(pick(m.Elements()).ID(), fmt.Sprint("Element ", r.Intn(1000)))
				},
				func(m *archixml.Model) error {
					return m.Rename(pick(m.Relationships()).ID(), fmt.Sprint("rel ", r.Intn(1000)))
				},
				func(m *archixml.Model) error {
					return m.Rename(pick(m.Views()).ID(), fmt.Sprint("View ", r.Intn(1000)))
				},
				func(m *archixml.Model) error {
					return m.Rename(pick(m.Folders()).ID(), fmt.Sprint("Folder ", r.Intn(1000)))
				},
				func(m *archixml.Model) error {
					return m.SetProperty(pick(m.Elements()).ID(), "owner", fmt.Sprint(r.Intn(5)))
				},
				func(m *archixml.Model) error {
					return m.SetDocumentation(pick(m.Views()).ID(), fmt.Sprint("why ", r.Intn(5)))
				},
				func(m *archixml.Model) error { _, err := m.DeleteElement(pick(m.Elements()).ID()); return err },
				func(m *archixml.Model) error {
					_, err := m.DeleteRelationship(pick(m.Relationships()).ID())
					return err
				},
				func(m *archixml.Model) error { _, err := m.DeleteView(pick(m.Views()).ID()); return err },
				func(m *archixml.Model) error {
					_, err := m.CreateElement("BusinessActor", fmt.Sprint("New ", r.Intn(1000)), "")
					return err
				},
				func(m *archixml.Model) error {
					_, err := m.CreateRelationship("Association", pick(m.Elements()).ID(), pick(m.Elements()).ID(), "")
					return err
				},
				func(m *archixml.Model) error {
					o := pick(m.Elements())
					_, err := m.MoveToFolder(o.ID(), strings.Split(o.FolderPath(), "/")[0]+fmt.Sprint("/Moved ", r.Intn(3)))
					return err
				},
				func(m *archixml.Model) error {
					o := pick(m.Views())
					_, err := m.MoveToFolder(o.ID(), strings.Split(o.FolderPath(), "/")[0]+fmt.Sprint("/Views ", r.Intn(3)))
					return err
				},
				func(m *archixml.Model) error {
					_, err := m.CreateView(fmt.Sprint("Made ", r.Intn(1000)), "", "")
					return err
				},
				func(m *archixml.Model) error {
					_, err := m.DuplicateView(pick(m.Views()).ID(), fmt.Sprint("Copy ", r.Intn(1000)))
					return err
				},
				func(m *archixml.Model) error {
					_, _, err := m.AddToView(pick(m.Views()).ID(), pick(m.Elements()).ID(), nil)
					return err
				},
				func(m *archixml.Model) error {
					v := pick(m.Views())
					if len(v.DiagramObjects()) == 0 {
						return nil
					}
					_, err := m.RemoveFromView(pick(v.DiagramObjects()).ID())
					return err
				},
				func(m *archixml.Model) error {
					v := pick(m.Views())
					if len(v.DiagramObjects()) == 0 {
						return nil
					}
					x, y := r.Intn(800), r.Intn(800)
					return m.MoveInto(pick(v.DiagramObjects()).ID(), v.ID(), &x, &y)
				},
			}
			commit := func(msg string) {
				m, err := archixml.Load(ledgertest.Model(t, ws))
				if err != nil {
					t.Fatal(err)
				}
				for n := 1 + r.Intn(4); n > 0; n-- {
					_ = edits[r.Intn(len(edits))](m) // an edit the model refuses is no edit
				}
				data, err := m.Save()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws.Root, ws.Model), data, 0o644); err != nil {
					t.Fatal(err)
				}
				ledgertest.Git(t, ws.Root, "commit", "-q", "--allow-empty", "-am", msg)
			}
			for round := 0; round < 8; round++ {
				for c := 1 + r.Intn(3); c > 0; c-- {
					if round > 0 && r.Intn(4) == 0 {
						ledgertest.Git(t, ws.Root, "revert", "--no-edit", "HEAD")
						continue
					}
					commit(fmt.Sprint("round ", round))
				}
				head, err := ws.Head()
				if err != nil {
					t.Fatal(err)
				}
				got, err := Publish(ws, head, site)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				whole := filepath.Join(t.TempDir(), "whole")
				if _, err := PublishWhole(ws, head, whole); err != nil {
					t.Fatal(err)
				}
				if !got.Incremental {
					t.Fatalf("round %d: the site was written whole", round)
				}
				sameSite(t, fmt.Sprint("round ", round), site, whole)
			}
		})
	}
	// and plans of random ops applied by the ledger, one to three between two publishes, published
	// by the daemon's Publisher: replayed when one was applied since the last publish
	t.Run("ledger", func(t *testing.T) {
		ws, head, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
		if err != nil {
			t.Fatal(err)
		}
		led := ledger.New(ledger.Config{Workspace: ws, Inbox: ledgertest.Inbox(ws), ApprovedBy: ledgertest.Signature})
		p := NewPublisher(ws, filepath.Join(t.TempDir(), "site"))
		p.Replays(led.Replay)
		if _, err := p.Publish(head); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(3))
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		pick := func(list []archixml.Object) string { return q(list[r.Intn(len(list))].ID()) }
		op := func(m *archixml.Model) string {
			els := m.Elements()
			switch r.Intn(8) {
			case 0:
				return fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Element %d"}`, pick(els), r.Intn(1000))
			case 1:
				return fmt.Sprintf(`{"op":"set_property","element_id":%s,"key":"owner","value":"%d"}`, pick(els), r.Intn(5))
			case 2:
				return fmt.Sprintf(`{"op":"delete_element","element_id":%s}`, pick(els))
			case 3:
				return fmt.Sprintf(`{"op":"create_relationship","source_id":%s,"target_id":%s,"relationship_type":"Association","name":"link %d"}`, pick(els), pick(els), r.Intn(1000))
			case 4:
				return fmt.Sprintf(`{"op":"add_to_view","view_id":%s,"element_id":%s}`, pick(m.Views()), pick(els))
			case 5:
				o := els[r.Intn(len(els))]
				return fmt.Sprintf(`{"op":"move_to_folder","element_id":%s,"folder_path":%s}`, q(o.ID()), q(strings.Split(o.FolderPath(), "/")[0]+fmt.Sprint("/Moved ", r.Intn(3))))
			case 6:
				return fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"View %d"}`, pick(m.Views()), r.Intn(1000))
			default:
				v := m.Views()[r.Intn(len(m.Views()))]
				if len(v.DiagramObjects()) == 0 {
					return fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"View %d"}`, q(v.ID()), r.Intn(1000))
				}
				return fmt.Sprintf(`{"op":"move_view_object","object_id":%s,"x":%d,"y":%d}`, pick(v.DiagramObjects()), r.Intn(800), r.Intn(800))
			}
		}
		n, replayedRounds := 0, 0
		for round := 0; round < 8; round++ {
			applied := 0
			for c := 1 + r.Intn(3)*r.Intn(2); c > 0; c-- {
				m, err := archixml.Load(ledgertest.Model(t, ws))
				if err != nil {
					t.Fatal(err)
				}
				var actions []string
				for k := 1 + r.Intn(3); k > 0; k-- {
					actions = append(actions, op(m))
				}
				n++
				name := fmt.Sprint("p", n)
				raw := `{"schema_version":"3.1","status":"ready","summary":"` + name + `","actions":[` + strings.Join(actions, ",") + `]}`
				ledgertest.Preview(t, led, name, []byte(raw))
				if _, err := ledgertest.Approve(t, led, name); err == nil {
					applied++
				} // a plan refused (an element deleted twice) is no commit
			}
			head, err := ws.Head()
			if err != nil {
				t.Fatal(err)
			}
			read := modelsRead.Load()
			if _, err := p.Publish(head); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			whole := filepath.Join(t.TempDir(), "whole")
			if _, err := PublishWhole(ws, head, whole); err != nil {
				t.Fatal(err)
			}
			sameSite(t, fmt.Sprint("round ", round), p.dir, whole)
			t.Logf("round %d: %d plans applied, %d models read", round, applied, modelsRead.Load()-read)
			if modelsRead.Load() == read {
				replayedRounds++
			}
		}
		if replayedRounds == 0 {
			t.Error("no update replayed the ledger's plan")
		}
	})
}

// A Publisher keeps the model of the commit it published: the update after the next apply reads
// the new commit's model only, and writes the site written whole.
func TestPublisher_ReadsEachModelOnce(t *testing.T) {
	e := newEnv(t)
	led := ledger.New(ledger.Config{Workspace: e.ws, Inbox: ledgertest.Inbox(e.ws), ApprovedBy: ledgertest.Signature})
	site := filepath.Join(t.TempDir(), "site")
	p := NewPublisher(e.ws, site)
	for i, name := range []string{"", "Client", "Patron"} {
		if name != "" {
			plan := fmt.Sprint("p", i)
			ledgertest.Preview(t, led, plan, []byte(renamePlan(plan, customer, name)))
			if _, err := ledgertest.Approve(t, led, plan); err != nil {
				t.Fatal(err)
			}
		}
		head, err := e.ws.Head()
		if err != nil {
			t.Fatal(err)
		}
		read := modelsRead.Load()
		got, err := p.Publish(head)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue
		}
		if n := modelsRead.Load() - read; !got.Incremental || n != 1 {
			t.Fatalf("publish %d: updated %v, reading %d models (the kept one read again)", i, got.Incremental, n)
		}
		whole := filepath.Join(t.TempDir(), "whole")
		if _, err := PublishWhole(e.ws, head, whole); err != nil {
			t.Fatal(err)
		}
		sameSite(t, name, site, whole)
	}
}

// A Publisher applies the ledger's plan to its models only when that gives the commit's model:
// what made a commit said otherwise than it was (another plan, or other bytes with that plan's
// model, or a commit on another parent) has the Publisher read the model from git, and its site
// is the commit's written whole. Said as it was, the next update reads no model.
func TestPublisher_ReplaysOnlyTheCommitsModel(t *testing.T) {
	e := newEnv(t)
	led := ledger.New(ledger.Config{Workspace: e.ws, Inbox: ledgertest.Inbox(e.ws), ApprovedBy: ledgertest.Signature})
	site := filepath.Join(t.TempDir(), "site")
	p := NewPublisher(e.ws, site)
	var forge func(r ledger.Replay) ledger.Replay
	p.Replays(func(commit string) (ledger.Replay, bool) {
		r, ok := led.Replay(commit)
		if ok && forge != nil {
			r = forge(r)
		}
		return r, ok
	})
	// another plan, and the model it makes of the parent's
	other := func(r ledger.Replay) ledger.Replay {
		m, err := archixml.Load(must(e.ws.ModelAt(r.Parent)))
		if err != nil {
			t.Fatal(err)
		}
		r.Plan = []byte(renamePlan("forged", customer, "Forged"))
		if _, _, err := plans.Apply(r.Plan, m, r.Options); err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		name  string
		forge func(r ledger.Replay) ledger.Replay
	}{
		{"first", nil}, // the update reads the model; the Publisher's copy is made
		{"bytes", func(r ledger.Replay) ledger.Replay {
			r = other(r)
			m, _ := archixml.Load(must(e.ws.ModelAt(r.Parent)))
			_, _, _ = plans.Apply(r.Plan, m, r.Options)
			r.Data, _ = m.Save()
			return r
		}},
		{"again", nil}, // each forged one drops the copy: read, and made again
		{"plan", func(r ledger.Replay) ledger.Replay { return other(r) }},
		{"again", nil},
		{"parent", func(r ledger.Replay) ledger.Replay { r.Parent = r.Commit; return r }},
		{"again", nil},
		{"replayed", nil},
	}
	head, err := e.ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Publish(head); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		name := fmt.Sprint("p", i)
		ledgertest.Preview(t, led, name, []byte(renamePlan(name, customer, fmt.Sprint("Client ", i))))
		if _, err := ledgertest.Approve(t, led, name); err != nil {
			t.Fatal(err)
		}
		head, err := e.ws.Head()
		if err != nil {
			t.Fatal(err)
		}
		forge = c.forge
		read := modelsRead.Load()
		got, err := p.Publish(head)
		if err != nil || !got.Incremental {
			t.Fatalf("%s: %+v, %v", c.name, got, err)
		}
		whole := filepath.Join(t.TempDir(), "whole")
		if _, err := PublishWhole(e.ws, head, whole); err != nil {
			t.Fatal(err)
		}
		sameSite(t, c.name, site, whole)
		want := int64(1) // read from git
		if c.name == "replayed" {
			want = 0
		}
		if n := modelsRead.Load() - read; n != want {
			t.Errorf("%s: the update read %d models, not %d", c.name, n, want)
		}
	}
}

// must is v, when err is nil.
func must(v []byte, _ bool, err error) []byte {
	if err != nil {
		panic(err)
	}
	return v
}
