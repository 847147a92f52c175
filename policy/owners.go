package policy

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/archiplan/archiplan/plans"
)

// Owners is policy/owners.yaml: who owns what, and how many of them approve a plan that touches
// it.
//
//	groups:
//	  business-architects: [alice, bob]
//	owners:
//	  - name: core                 # the rule id the preview shows (default owners[N])
//	    folder: Business/Core      # what it owns: a folder (and below), a layer, an element type
//	    kinds: [deleted]           # optional: only these changes (created, changed, deleted)
//	    from: [group:business-architects, carol]   # people or group:NAME; empty: anyone
//	    approvals: 2               # distinct approvals needed (default 1)
type Owners struct {
	Groups map[string][]string `yaml:"groups"`
	Owners []Owner             `yaml:"owners"`
}

// Owner is one entry of owners.yaml.
type Owner struct {
	Name      string   `yaml:"name"`
	Folder    string   `yaml:"folder"`
	Layer     string   `yaml:"layer"`
	Type      string   `yaml:"type"`
	Kinds     []string `yaml:"kinds"`
	From      []string `yaml:"from"`
	Approvals int      `yaml:"approvals"`
}

func parseOwners(b []byte) (*Owners, error) {
	var o Owners
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	for i := range o.Owners {
		e := &o.Owners[i]
		if e.Name == "" {
			e.Name = fmt.Sprintf("owners[%d]", i)
		}
		n := 0
		for _, s := range []string{e.Folder, e.Layer, e.Type} {
			if s != "" {
				n++
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("%s: name exactly one of folder, layer or type", e.Name)
		}
		e.Folder = strings.Trim(e.Folder, "/")
		if e.Approvals == 0 {
			e.Approvals = 1
		}
		if e.Approvals < 0 || e.Approvals > 100 {
			return nil, fmt.Errorf("%s: approvals must be from 1 to 100", e.Name)
		}
		for _, k := range e.Kinds {
			if k != plans.DeltaCreated && k != plans.DeltaChanged && k != plans.DeltaDeleted {
				return nil, fmt.Errorf("%s: kinds: %q is not created, changed or deleted", e.Name, k)
			}
		}
		for _, f := range e.From {
			if g, ok := strings.CutPrefix(f, "group:"); ok {
				if _, known := o.Groups[g]; !known {
					return nil, fmt.Errorf("%s: from: no group %q in groups", e.Name, g)
				}
			}
		}
		if len(e.From) > 0 && len(o.expand(e.From)) < e.Approvals {
			return nil, fmt.Errorf("%s: %d approvals from %d people can never be given", e.Name, e.Approvals, len(o.expand(e.From)))
		}
	}
	if len(o.Owners) == 0 && len(o.Groups) == 0 {
		return nil, errors.New("neither groups nor owners: an empty owners file is a mistake")
	}
	return &o, nil
}

// matches says whether the entry owns the object of a change.
func (e Owner) matches(c plans.DeltaChange) bool {
	if len(e.Kinds) > 0 {
		found := false
		for _, k := range e.Kinds {
			found = found || k == c.Kind
		}
		if !found {
			return false
		}
	}
	objs := []plans.DeltaObject{c.Object}
	if c.Before != nil {
		objs = append(objs, *c.Before) // a move out of an owned folder is the owners' too
	}
	for _, o := range objs {
		switch {
		case e.Folder != "" && (o.Folder == e.Folder || strings.HasPrefix(o.Folder, e.Folder+"/")):
			return true
		case e.Layer != "" && strings.EqualFold(o.Layer, e.Layer):
			return true
		case e.Type != "" && o.Type == e.Type:
			return true
		}
	}
	return false
}

// approvals are the approvals the owners ask for what a delta changes: one per entry that owns
// something it changes.
func (o *Owners) approvals(d *plans.Delta) []plans.Approval {
	var out []plans.Approval
	for _, e := range o.Owners {
		n := 0
		for _, c := range d.Changes {
			if e.matches(c) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		what := "folder " + e.Folder
		switch {
		case e.Layer != "":
			what = "the " + e.Layer + " layer"
		case e.Type != "":
			what = e.Type + " elements"
		}
		out = append(out, plans.Approval{Rule: e.Name, Count: e.Approvals, From: e.From,
			Message: fmt.Sprintf("the plan changes %d object(s) of %s", n, what)})
	}
	return out
}

// expand replaces each group:NAME by its members, sorted and without repeats.
func (o *Owners) expand(from []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, f := range from {
		if g, ok := strings.CutPrefix(f, "group:"); ok && o != nil {
			for _, m := range o.Groups[g] {
				add(m)
			}
			continue
		}
		add(f)
	}
	sort.Strings(out)
	return out
}
