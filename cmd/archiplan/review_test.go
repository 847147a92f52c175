package main

import (
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/archiplan/archiplan/archixml"
)

// archiedit FILE EDIT...: edits a model as a person does in Archi and saves it as Archi writes
// it (archixml's edits, which archi-emf checks elsewhere write Archi's form), for scripts of
// commits made in Archi. The edits, one after the other:
//
//	rename ID NAME          element TYPE NAME (a new element, on no view)
//	bounds ID X Y W H       style ID ATTR VALUE
//	delete ID               property ID KEY VALUE
func archiedit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: archiedit FILE EDIT...")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	m, err := archixml.Load(data)
	ts.Check(err)
	m.SetIDSeed("archiedit " + args[0])
	num := func(s string) *int {
		n, err := strconv.Atoi(s)
		ts.Check(err)
		return &n
	}
	rest := args[1:]
	take := func(n int) []string {
		if len(rest) < n+1 {
			ts.Fatalf("archiedit %s: %d argument(s) wanted", rest[0], n)
		}
		a := rest[1 : n+1]
		rest = rest[n+1:]
		return a
	}
	for len(rest) > 0 {
		switch rest[0] {
		case "rename":
			a := take(2)
			ts.Check(m.Rename(a[0], a[1]))
		case "element":
			a := take(2)
			_, err := m.CreateElement(a[0], a[1], "")
			ts.Check(err)
		case "bounds":
			a := take(5)
			ts.Check(m.SetBounds(a[0], num(a[1]), num(a[2]), num(a[3]), num(a[4])))
		case "style":
			a := take(3)
			ts.Check(m.SetStyle(a[0], a[1], a[2]))
		case "property":
			a := take(3)
			ts.Check(m.SetProperty(a[0], a[1], a[2]))
		case "delete":
			a := take(1)
			o, ok := m.Object(a[0])
			if !ok {
				ts.Fatalf("archiedit delete: no object %s", a[0])
			}
			if o.Kind() == archixml.KindRelationship {
				_, err = m.DeleteRelationship(a[0])
			} else {
				_, err = m.DeleteElement(a[0])
			}
			ts.Check(err)
		default:
			ts.Fatalf("archiedit: unknown edit %q", rest[0])
		}
	}
	out, err := m.Save()
	ts.Check(err)
	ts.Check(os.WriteFile(path, out, 0o644))
}
