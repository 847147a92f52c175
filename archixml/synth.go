package archixml

import (
	"fmt"
	"math/rand/v2"
)

// SynthOptions shape a synthetic model. Zero values get defaults that make a model of about the
// size and texture of a real enterprise model: 1.5 relationships an element, a fifth of the
// elements documented, a third with properties, user folders of 500, and a view for every 100
// elements showing 20 of them with their connections.
type SynthOptions struct {
	Elements          int     // number of elements (required)
	RelationshipRatio float64 // relationships per element (default 1)
	PerView           int     // elements shown on each view (default 20; views = Elements/100)
	FolderSize        int     // elements per user folder (default 500)
	Seed              uint64  // random seed; the same options give the same bytes
}

// Synthesize builds a model in Archi's exact form with the edit primitives, so that it is what
// Archi would write and what archiplan's own edits produce.
func Synthesize(o SynthOptions) (*Model, error) {
	if o.Elements <= 0 {
		return nil, fmt.Errorf("synthesize: elements must be positive")
	}
	if o.RelationshipRatio == 0 {
		o.RelationshipRatio = 1.0
	}
	if o.PerView == 0 {
		o.PerView = 20
	}
	if o.FolderSize == 0 {
		o.FolderSize = 500
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x617263686970))
	m := New(fmt.Sprintf("Synthetic %d", o.Elements))
	m.SetIDSeed(fmt.Sprintf("synthetic\x00%d\x00%d", o.Elements, o.Seed))

	folders := map[string]string{} // layer folder type + index -> folder id
	ids := make([]string, 0, o.Elements)
	classes := make([]string, 0, o.Elements)
	types := ElementTypes[:len(ElementTypes)-1] // no junctions: they need relationship rules of their own
	for i := 0; i < o.Elements; i++ {
		t := types[rng.IntN(len(types))]
		key := fmt.Sprintf("%s/%d", t.Folder, i/o.FolderSize)
		fid, ok := folders[key]
		if !ok {
			top, _ := m.TopFolder(t.Folder)
			var err error
			fid, err = m.EnsureFolder(fmt.Sprintf("%s/Area %d", top.Name(), i/o.FolderSize))
			if err != nil {
				return nil, err
			}
			folders[key] = fid
		}
		id, err := m.CreateElement(t.Class, fmt.Sprintf("%s %d", t.Label, i), fid)
		if err != nil {
			return nil, err
		}
		if rng.IntN(5) == 0 {
			doc := fmt.Sprintf("The %s numbered %d, synthesized for benchmarks & tests: it stands for one of the many <things> a real model documents.", t.Label, i)
			if err := m.SetDocumentation(id, doc); err != nil {
				return nil, err
			}
		}
		if rng.IntN(3) == 0 {
			_ = m.SetProperty(id, "owner", fmt.Sprintf("Team %d", rng.IntN(40)))
			if rng.IntN(2) == 0 {
				_ = m.SetProperty(id, "lifecycle", []string{"plan", "build", "run", "retire"}[rng.IntN(4)])
			}
		}
		ids = append(ids, id)
		classes = append(classes, t.Class)
	}
	nRel := int(float64(o.Elements) * o.RelationshipRatio)
	for made, tries := 0, 0; made < nRel && tries < nRel*20; tries++ {
		a := rng.IntN(len(ids))
		// mostly local, as real models are: a target among the next few hundred elements
		b := (a + 1 + rng.IntN(300)) % len(ids)
		allowed := relationshipTable().AllowedTypes(classes[a], classes[b])
		if len(allowed) == 0 {
			continue
		}
		if _, err := m.CreateRelationship(allowed[rng.IntN(len(allowed))], ids[a], ids[b], ""); err != nil {
			return nil, err
		}
		made++
	}
	for v := 0; v < o.Elements/100; v++ {
		vid, err := m.CreateView(fmt.Sprintf("View %d", v), "", "")
		if err != nil {
			return nil, err
		}
		base := v * 100
		for k := 0; k < o.PerView && k < 100; k++ {
			// grid cells, as the first AddToView placed them, so synthetic models stay the same
			b := Bounds{X: 12 + (k%10)*144, Y: 12 + (k/10)*80, Width: DefaultSize.Width, Height: DefaultSize.Height}
			if _, _, err := m.AddToView(vid, ids[base+k*100/o.PerView], &b); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
