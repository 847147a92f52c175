package ledger_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// issue 34: a plan that puts one box on another gets a preview that says the view now has
// overlapping boxes, and how many it had before; a plan that leaves a view without any says
// nothing of it.
func TestPreview_SaysOverlaps(t *testing.T) {
	_, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	m, err := archixml.Load(lt.Model(t, w[0]))
	if err != nil {
		t.Fatal(err)
	}
	var objs []archixml.Object
	for _, v := range m.Views() {
		for _, d := range v.Children() {
			if _, ok := d.Concept(); ok && len(objs) < 2 {
				objs = append(objs, d)
			}
		}
	}
	b, _ := objs[1].Bounds()
	lt.Preview(t, l, "onto", []byte(fmt.Sprintf(`{"schema_version":"3.1","status":"ready","summary":"onto","actions":[`+
		`{"op":"move_view_object","object_id":%q,"x":%d,"y":%d}]}`, objs[0].ID(), b.X+10, b.Y+10)))
	md, err := os.ReadFile(filepath.Join(w[0].Root, "plans", inbox.PreviewFile("onto")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "1 pair(s) of overlapping boxes (0 before)") {
		t.Errorf("the preview does not say the plan puts a box on another:\n%s", md)
	}

	lt.Preview(t, l, "away", []byte(fmt.Sprintf(`{"schema_version":"3.1","status":"ready","summary":"away","actions":[`+
		`{"op":"move_view_object","object_id":%q,"x":3000,"y":3000}]}`, objs[0].ID())))
	md, err = os.ReadFile(filepath.Join(w[0].Root, "plans", inbox.PreviewFile("away")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "overlapping") {
		t.Errorf("the preview speaks of overlaps on a view without any:\n%s", md)
	}

	// The overlap applied, a plan that only renames what is drawn there leaves the view's faults
	// as they were: the preview says nothing of them (a person reads what the plan changes).
	if _, err := lt.Approve(t, l, "onto"); err != nil {
		t.Fatal(err)
	}
	c, _ := objs[0].Concept()
	lt.Preview(t, l, "rename", lt.Rename(c.ID(), "Renamed over an overlap"))
	md, err = os.ReadFile(filepath.Join(w[0].Root, "plans", inbox.PreviewFile("rename")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Renamed over an overlap") || strings.Contains(string(md), "as drawn after") {
		t.Errorf("the preview of a rename speaks of faults the plan does not change:\n%s", md)
	}
}
