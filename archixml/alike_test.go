package archixml

import (
	"slices"
	"strings"
	"testing"
)

var lowerFold Fold = strings.ToLower

// alikeAll is, for every element and view, the ids Alike gives for its name and class.
func alikeAll(m *Model) map[string][]string {
	out := map[string][]string{}
	for _, o := range append(m.Elements(), m.Views()...) {
		for _, a := range m.Alike(o.Class(), strings.ToUpper(o.Name()), &lowerFold) {
			out[o.Class()+" "+o.Name()] = append(out[o.Class()+" "+o.Name()], a.ID())
		}
	}
	return out
}

// The index of folded names follows every edit and its undo, as a fresh load reads the model: the
// daemon keeps one model across checks and applies and folds each name once.
func TestAlike_FollowsEdits(t *testing.T) {
	m := testModel(t)
	want := alikeAll(m) // builds the index before the edits
	customer := mustID(t, m, "Customer")
	m.Record()
	must(t, m.Rename(customer, "Client"))
	twin, err := m.CreateElement("Business Actor", "CLIENT", "")
	must(t, err)
	got := func(name string) []string {
		var ids []string
		for _, o := range m.Alike("BusinessActor", name, &lowerFold) {
			ids = append(ids, o.ID())
		}
		return ids
	}
	if ids := got("client"); !slices.Equal(ids, []string{customer, twin}) && !slices.Equal(ids, []string{twin, customer}) {
		t.Fatalf("after a rename and a create, client is folded from %v, want %s and %s", ids, customer, twin)
	}
	if ids := got("customer"); len(ids) != 0 {
		t.Fatalf("after the rename, customer is still folded from %v", ids)
	}
	if _, err := m.DeleteElement(twin); err != nil {
		t.Fatal(err)
	}
	if ids := got("Client"); !slices.Equal(ids, []string{customer}) {
		t.Fatalf("after the delete, client is folded from %v, want %s alone", ids, customer)
	}
	must(t, m.Undo(m.Recorded()))
	if after := alikeAll(m); !mapsEqual(after, want) {
		t.Fatalf("after the undo the index gives %v, a fresh model %v", after, want)
	}
	if fresh := alikeAll(testModel(t)); !mapsEqual(fresh, want) {
		t.Fatalf("a fresh model gives %v, want %v", fresh, want)
	}
}

func mapsEqual(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
