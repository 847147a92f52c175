package plans

import (
	"encoding/xml"
	"slices"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// Bound is every change a plan makes, as an approval binds it: the ids it creates, each action in
// the words its preview shows, and, for each action, every object its edits create, change or
// delete, read from the journal those edits recorded (the steps its op's Effect declares): the
// relationships and diagram objects a delete takes along, what a merge moves, the folders a create
// or a move makes. A plan made again (a re-preview after HEAD or the policy moved, an apply after
// HEAD moved, a batch, a rebase after a lost push race) applies only when its Bound is Same as the
// one the person read.
type Bound struct {
	Created []string
	Words   []string
	Objects []string
}

// Bound is what the outcome's preview shows and an apply must make again.
func (o *Outcome) Bound() Bound {
	var b Bound
	for _, r := range o.Results {
		b.Created = append(b.Created, r.Created...)
		b.Words = append(b.Words, r.Words())
		b.Objects = append(b.Objects, r.objects)
	}
	return b
}

// Same is the one decision "the same change": whether two makings of a plan create, say and
// touch exactly the same.
func (b Bound) Same(c Bound) bool {
	return slices.Equal(b.Created, c.Created) && slices.Equal(b.Words, c.Words) && slices.Equal(b.Objects, c.Objects)
}

// objectsOf is, in one line, every object a journal's steps create (+id), delete (-id) or change
// (~id), sorted: ids only, never positions, so that a commit that added a sibling elsewhere in a
// folder changes nothing here, and one that swapped a cascaded relationship for another does.
func objectsOf(steps []archixml.Step) string {
	seen := map[string]bool{}
	for _, s := range steps {
		switch {
		case s.Op == "insert" && len(s.Path) == 0:
			seen["+"+s.ID] = true
		case s.Op == "remove":
			if id := rootID(s.XML); id != "" {
				seen["-"+id] = true
			} else {
				seen["~"+s.ID] = true
			}
		default:
			seen["~"+s.ID] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// rootID is the id attribute of the first element of an XML fragment ("" without one): the
// object a remove step took out. Only the first token is read.
func rootID(fragment string) string {
	d := xml.NewDecoder(strings.NewReader(fragment))
	for {
		t, err := d.RawToken()
		if err != nil {
			return ""
		}
		if se, ok := t.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "id" && a.Name.Space == "" {
					return a.Value
				}
			}
			return ""
		}
	}
}
