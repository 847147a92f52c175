package archixml

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// relationshipsTSV is generated from Archi's relationships.xml by internal/relgen; see README.
//
//go:generate go run ./internal/relgen -xml ../../shared/corpus/archi/relationships.xml -keys ../../shared/corpus/archi/relationships-keys.xml -out relationships.tsv
//go:embed relationships.tsv
var relationshipsTSV []byte

// RelationshipConcept is the pseudo-type Archi's table uses for "any relationship" as an end
// (an association may join a relationship, an aggregation may hold one).
const RelationshipConcept = "Relationship"

// RelationshipTable says which relationship types may join a source type to a target type, as the
// ArchiMate 3.2 specification's appendix (Archi's relationships.xml) allows.
type RelationshipTable struct {
	Version string
	allowed map[[2]string]relSet // {source, target} -> relationship classes
}

// relSet is a set of relationship classes, a bit each by its place in RelationshipTypes: one
// small map of classes for each of the table's 3,800 pairs was half of a 1,000-element import's
// own work in its process (BenchmarkImportCLI).
type relSet uint32

// relBit is the set of class alone (none for a class that is not a relationship's).
func relBit(class string) relSet {
	for i, r := range RelationshipTypes {
		if r.Class == class {
			return 1 << i
		}
	}
	return 0
}

// relationshipTable is the embedded table, parsed when first asked for: a command that checks no
// relationship does not pay for it (a tenth of a cold command's start).
var relationshipTable = sync.OnceValue(func() *RelationshipTable { return mustParseTSV(relationshipsTSV) })

// Relationships returns the embedded relationship table.
func Relationships() *RelationshipTable { return relationshipTable() }

// endConcept maps a concrete class to the name the table uses: relationships are all "Relationship".
func endConcept(class string) string {
	if relationshipByClass[class] != nil {
		return RelationshipConcept
	}
	return class
}

// Allowed reports whether a relationship of class rel may go from a source of class src to a
// target of class tgt.
func (t *RelationshipTable) Allowed(rel, src, tgt string) bool {
	return t.allowed[[2]string{endConcept(src), endConcept(tgt)}]&relBit(rel) != 0
}

// AllowedTypes lists the relationship classes allowed from src to tgt, in catalogue order.
func (t *RelationshipTable) AllowedTypes(src, tgt string) []string {
	set := t.allowed[[2]string{endConcept(src), endConcept(tgt)}]
	var out []string
	for i, r := range RelationshipTypes {
		if set&(1<<i) != 0 {
			out = append(out, r.Class)
		}
	}
	return out
}

// ParseArchiRelationships reads Archi's relationships.xml and relationships-keys.xml.
func ParseArchiRelationships(table, keys io.Reader) (*RelationshipTable, error) {
	var k struct {
		Keys []struct {
			Char         string `xml:"char,attr"`
			Relationship string `xml:"relationship,attr"`
		} `xml:"key"`
	}
	if err := newSafeDecoder(keys).Decode(&k); err != nil {
		return nil, fmt.Errorf("read relationship keys: %w", err)
	}
	letter := map[rune]string{}
	for _, e := range k.Keys {
		if len(e.Char) != 1 || relationshipByClass[e.Relationship] == nil {
			return nil, fmt.Errorf("relationship key %q=%q: %w", e.Char, e.Relationship, ErrBadTable)
		}
		letter[rune(e.Char[0])] = e.Relationship
	}
	var r struct {
		Version string `xml:"version,attr"`
		Sources []struct {
			Concept string `xml:"concept,attr"`
			Targets []struct {
				Concept   string `xml:"concept,attr"`
				Relations string `xml:"relations,attr"`
			} `xml:"target"`
		} `xml:"source"`
	}
	if err := newSafeDecoder(table).Decode(&r); err != nil {
		return nil, fmt.Errorf("read relationship table: %w", err)
	}
	t := &RelationshipTable{Version: r.Version, allowed: map[[2]string]relSet{}}
	for _, s := range r.Sources {
		for _, tg := range s.Targets {
			for _, c := range tg.Relations {
				rel, ok := letter[c]
				if !ok {
					return nil, fmt.Errorf("letter %q for %s -> %s: %w", c, s.Concept, tg.Concept, ErrBadTable)
				}
				t.add(s.Concept, tg.Concept, rel)
			}
		}
	}
	return t, nil
}

func (t *RelationshipTable) add(src, tgt, rel string) {
	t.allowed[[2]string{src, tgt}] |= relBit(rel)
}

// WriteTSV writes the table in the embedded form: a version line, then one line per source and
// target with the allowed relationship classes, sorted, so that regenerating it gives the same bytes.
func (t *RelationshipTable) WriteTSV(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# ArchiMate relationship table %s, generated from Archi's relationships.xml by archixml/internal/relgen\n", t.Version)
	keys := make([][2]string, 0, len(t.allowed))
	for k := range t.allowed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		var rels []string
		for i, r := range RelationshipTypes {
			if t.allowed[k]&(1<<i) != 0 {
				rels = append(rels, strings.TrimSuffix(r.Class, "Relationship"))
			}
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", k[0], k[1], strings.Join(rels, ","))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// mustParseTSV reads the embedded table without a string made per line or per relationship (the
// concepts' names interned, each relationship's bit found by its name as written): made of
// strings, the table was 15 ms and 11,000 allocations, a fifth of a 1,000-element import's own
// work (BenchmarkImportCLI).
func mustParseTSV(data []byte) *RelationshipTable {
	t := &RelationshipTable{allowed: make(map[[2]string]relSet, bytes.Count(data, []byte("\n")))}
	bits := make(map[string]relSet, len(RelationshipTypes))
	for i, r := range RelationshipTypes {
		bits[strings.TrimSuffix(r.Class, "Relationship")] = 1 << i
	}
	names := map[string]string{}
	intern := func(b []byte) string {
		if s, ok := names[string(b)]; ok {
			return s
		}
		s := string(b)
		names[s] = s
		return s
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if v, ok := bytes.CutPrefix(line, []byte("# ArchiMate relationship table ")); ok {
			version, _, _ := bytes.Cut(v, []byte(","))
			t.Version = string(version)
			continue
		}
		src, rest, ok1 := bytes.Cut(line, []byte("\t"))
		tgt, rels, ok2 := bytes.Cut(rest, []byte("\t"))
		if !ok1 || !ok2 || bytes.IndexByte(rels, '\t') >= 0 {
			panic("archixml: bad line in relationships.tsv: " + string(line))
		}
		var set relSet
		for len(rels) > 0 {
			r := rels
			if i := bytes.IndexByte(rels, ','); i >= 0 {
				r, rels = rels[:i], rels[i+1:]
			} else {
				rels = nil
			}
			bit, ok := bits[string(r)]
			if !ok {
				panic("archixml: unknown relationship in relationships.tsv: " + string(r))
			}
			set |= bit
		}
		t.allowed[[2]string{intern(src), intern(tgt)}] |= set
	}
	return t
}

// newSafeDecoder is a strict decoder that never resolves entities beyond XML's five.
func newSafeDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = true
	return d
}
