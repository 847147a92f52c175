package archixml

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/beevik/etree"
)

// scanAgrees reads data with Scan and with Load: both refuse it with the same error (Scan
// perhaps after handing out the objects before the fault), or Scan
// hands out the objects Load indexes, in the order of a walk of Load's tree, each complete when
// it comes (what Load's queries answer) and with what it refers to named by Find. It returns the
// number of objects and a description of the first disagreement.
func scanAgrees(data []byte) (int, string) {
	m, lerr := Load(data)
	var want []*etree.Element
	place := map[*etree.Element]int{}
	if lerr == nil {
		m.walk(m.root, func(e *etree.Element) {
			place[e] = len(want)
			want = append(want, e)
		})
	}
	at := map[*Scanned]int{}
	n := 0
	problem := ""
	serr := Scan(data, func(o *Scanned) error {
		if problem != "" || lerr != nil {
			return nil // a file Load refuses: Scan may hand out what comes before the fault
		}
		if n >= len(want) {
			problem = fmt.Sprintf("object %d (%s) from a file Load reads %d objects of (%v)", n, o.ID(), len(want), lerr)
			return nil
		}
		at[o] = n
		if d := sameScanned(o, Object{m, want[n]}, at, place); d != "" {
			problem = fmt.Sprintf("object %d (%s): %s", n, o.ID(), d)
		}
		n++
		return nil
	})
	switch {
	case problem != "":
		return n, problem
	case (lerr == nil) != (serr == nil) || lerr != nil && lerr.Error() != serr.Error():
		return n, fmt.Sprintf("Load says %v, Scan says %v", lerr, serr)
	case lerr == nil && n != len(want):
		return n, fmt.Sprintf("Scan handed out %d objects, Load indexes %d", n, len(want))
	}
	return n, ""
}

func sameScanned(o *Scanned, w Object, at map[*Scanned]int, place map[*etree.Element]int) string {
	type named struct {
		Kind        Kind
		Class, Name string
		Found       bool
	}
	find := func(id string) named {
		n, ok := o.Find(id)
		return named{n.Kind, n.Class, n.Name, ok}
	}
	object := func(id string) named {
		x, ok := w.m.Object(id)
		if !ok {
			return named{}
		}
		return named{x.Kind(), x.Class(), x.Name(), true}
	}
	parent := -1
	if p, ok := o.Parent(); ok {
		parent = at[p]
	}
	wantParent := -1
	if p, ok := w.Parent(); ok {
		wantParent = place[p.e]
	}
	got := []any{o.ID(), o.Kind(), o.Class(), o.Type(), o.Name(), parent}
	want := []any{w.ID(), w.Kind(), w.Class(), w.Type(), w.Name(), wantParent}
	if w.Kind() != KindModel { // the model comes before what it holds
		b, ok := o.Bounds()
		wb, wok := w.Bounds()
		got = append(got, o.FolderPath(), o.SourceID(), o.TargetID(), o.ConceptID(), o.Documentation(),
			o.Properties(), b, ok, find(o.SourceID()), find(o.TargetID()), find(o.ConceptID()))
		want = append(want, w.FolderPath(), w.SourceID(), w.TargetID(), conceptRef(w.e), w.Documentation(),
			w.Properties(), wb, wok, object(w.SourceID()), object(w.TargetID()), object(conceptRef(w.e)))
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("Scan has %v, Load %v", got, want)
	}
	return ""
}

// A model whose objects stand where Archi would not put them (views before the concepts they
// show, relationships to later relationships, documentation and properties after children, a
// duplicate id, legacy classes, namespaced attributes), the example, synthetic models, the
// archive form and every corpus model: Scan reads what Load reads.
func TestScan_AgreesWithLoad(t *testing.T) {
	files := map[string][]byte{}
	for _, p := range []string{"out-of-order.archimate", "example.archimate"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "models", p))
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	for _, seed := range []uint64{1, 2} {
		m, err := Synthesize(SynthOptions{Elements: 1500, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		files[fmt.Sprintf("synth-%d", seed)], _ = m.Save()
	}
	if dir := os.Getenv("ARCHIPLAN_CORPUS"); dir != "" {
		for _, p := range corpusFiles(t) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Base(p)] = data
		}
	}
	archived := false
	for name, data := range files {
		archived = archived || bytes.HasPrefix(data, []byte("PK"))
		n, d := scanAgrees(data)
		if d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if n < 10 {
			t.Errorf("%s: only %d objects", name, n)
		}
	}
	if os.Getenv("ARCHIPLAN_CORPUS") != "" && !archived {
		t.Error("no archive among the models")
	}
}

// Scan refuses what Load refuses, with the same error.
func TestScan_Refuses(t *testing.T) {
	valid, _ := Example().Save()
	for name, data := range map[string]string{
		"cut":         string(valid[:len(valid)/2]),
		"not a model": `<model name="x"/>`,
		"doctype":     `<!DOCTYPE m [<!ENTITY a "a">]><archimate:model xmlns:archimate="x"/>`,
		"entity":      `<archimate:model xmlns:archimate="x" name="&a;"/>`,
		"twice":       `<archimate:model xmlns:archimate="x" name="a" name="b"/>`,
		"control":     "<archimate:model xmlns:archimate=\"x\"><folder name=\"a\x01\"/></archimate:model>",
		"zip":         "PK\x03\x04 not an archive",
		"empty":       "",
	} {
		if _, d := scanAgrees([]byte(data)); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if err := Scan([]byte(data), func(*Scanned) error { return nil }); err == nil {
			t.Errorf("%s: Scan read it", name)
		}
	}
	big := MaxModelBytes
	t.Cleanup(func() { MaxModelBytes = big })
	MaxModelBytes = len(valid) - 1
	if err := Scan(valid, func(*Scanned) error { return nil }); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}

// An error from fn stops the calls and is what Scan returns.
func TestScan_StopsAtFnError(t *testing.T) {
	valid, _ := Example().Save()
	stop := errors.New("stop")
	calls := 0
	err := Scan(valid, func(*Scanned) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

// An object comes as soon as it and what it refers to are read, not at the end of the file: in a
// model Archi wrote, a top-level folder's objects come before the next folder is read.
func TestScan_Streams(t *testing.T) {
	m, err := Synthesize(SynthOptions{Elements: 1000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	src := string(data)
	views := strings.Index(src, `type="diagrams"`)
	if views < 0 {
		t.Fatal("no views folder")
	}
	// a file cut just before the views folder: every concept comes before the fault is found
	concepts := 0
	err = Scan([]byte(src[:views]), func(o *Scanned) error {
		if o.Kind() == KindElement || o.Kind() == KindRelationship {
			concepts++
		}
		return nil
	})
	if !errors.Is(err, ErrMalformed) || concepts != len(m.Elements())+len(m.Relationships()) {
		t.Fatalf("%d of %d concepts before the fault (%v)", concepts, len(m.Elements())+len(m.Relationships()), err)
	}
}

// FuzzScan: whatever the input, Scan agrees with Load.
func FuzzScan(f *testing.F) {
	valid, _ := Example().Save()
	f.Add(valid)
	f.Add(valid[:len(valid)/3])
	ooo, _ := os.ReadFile(filepath.Join("..", "testdata", "models", "out-of-order.archimate"))
	f.Add(ooo)
	f.Add([]byte(`<archimate:model xmlns:archimate="x" xmlns:xsi="y"><folder type="business"><element xsi:type="archimate:BusinessActor" id="a" name="&lt;&#x1;"/></folder></archimate:model>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, d := scanAgrees(data); d != "" {
			t.Fatal(d)
		}
	})
}
