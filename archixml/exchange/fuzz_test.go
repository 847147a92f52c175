package exchange

import (
	"errors"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// FuzzImport: whatever an Exchange file holds, Import either refuses it with coded problems, or
// makes a model that saves and loads again: it never writes a model archiplan cannot load
// (issue 35: 2,000 nested organizations did).
func FuzzImport(f *testing.F) {
	head := `<?xml version="1.0" encoding="UTF-8"?>
<model xmlns="http://www.opengroup.org/xsd/archimate/3.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" identifier="id-m">
<name>m</name>
<elements><element identifier="id-a" xsi:type="BusinessActor"><name>Actor</name></element>
<element identifier="id-r" xsi:type="BusinessRole"><name>Role</name></element></elements>
<relationships><relationship identifier="id-as" source="id-a" target="id-r" xsi:type="Assignment"/></relationships>
`
	f.Add(head + `</model>`)
	f.Add(head + `<organizations><item><label>B</label><item><label>S</label><item identifierRef="id-a"/></item></item></organizations></model>`)
	f.Add(head + `<organizations>` + strings.Repeat(`<item><label>L</label>`, 40) + `<item identifierRef="id-a"/>` + strings.Repeat(`</item>`, 40) + `</organizations></model>`)
	f.Add(head + `<views><diagrams><view identifier="id-v" xsi:type="Diagram"><name>V</name>
<node identifier="id-n1" elementRef="id-a" xsi:type="Element" x="10" y="10" w="120" h="55"><node identifier="id-n2" elementRef="id-r" xsi:type="Element" x="20" y="20" w="100" h="40"/></node>
</view></diagrams></views></model>`)
	codes := map[string]bool{CodeMalformed: true, CodeNotExchange: true, CodeSchema: true, CodeUnknownType: true, CodeDanglingRef: true,
		CodeWrongRef: true, CodeDuplicateID: true, CodeRelForbidden: true, CodeUnsupported: true, CodeLimit: true}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := Import(strings.NewReader(src))
		if _, berr := ImportBytes(strings.NewReader(src), Options{}); (err == nil) != (berr == nil) {
			t.Fatalf("Import: %v, ImportBytes: %v", err, berr)
		} else if err == nil {
			writesAsSave(t, []byte(src), Options{}, m) // what archiplan import writes is what the model saves as
		}
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) {
				return // a model Import made but archixml refused to build: reported as an error, nothing written
			}
			for _, p := range ie.Problems {
				if !codes[p.Code] || p.Line < 0 {
					t.Fatalf("a problem without a known code or line: %+v", p)
				}
			}
			return
		}
		data, err := m.Save()
		if err != nil {
			t.Fatalf("an imported model does not save: %v", err)
		}
		if _, err := archixml.Load(data); err != nil {
			t.Fatalf("an imported model does not load again: %v", err)
		}
	})
}
