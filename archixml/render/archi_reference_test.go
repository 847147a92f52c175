package render

import (
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render/internal/ttf"
)

// The reference below is written from Archi's source (com.archimatetool.editor, read, not
// copied): the default fill of each layer (AbstractArchimateElementUIProvider and the UI providers
// of Location, Grouping, Group, Note, Junction), the line derived from the fill at 70 %
// (ColorFactory.getDerivedLineColor), the figure of each type's box (rectangle, rounded rectangle
// with a 20 px arc, the motivation types' bevelled box), the origin of each type's icon
// (getIconOrigin: from the right edge and the top) and how far the label keeps clear of it
// (getIconOffset). The label's line count is computed here from the font file itself and Archi's
// text area (margin 4, the icon offset on both sides of a centred label), breaking at spaces.

var refLayerFill = map[string]string{
	archixml.FolderBusiness: "#ffffb5", archixml.FolderApplication: "#b5ffff", archixml.FolderTechnology: "#c9e7b7",
	archixml.FolderMotivation: "#ccccff", archixml.FolderStrategy: "#f5deaa", archixml.FolderImplementation: "#ffe0e0",
}

// refIcon: class -> origin {from right, from top} and the icon offset
var refIcon = map[string][3]int{
	"BusinessActor": {11, 4, 17}, "BusinessRole": {18, 7, 20}, "BusinessCollaboration": {18, 7, 20},
	"BusinessInterface": {14, 6, 22}, "BusinessProcess": {18, 10, 20}, "BusinessFunction": {16, 19, 20},
	"BusinessInteraction": {12, 5, 20}, "BusinessEvent": {20, 6, 22}, "BusinessService": {20, 7, 22},
	"BusinessObject": {17, 6, 20}, "Contract": {17, 6, 20}, "Representation": {18, 6, 21}, "Product": {17, 6, 20},
	"ApplicationComponent": {14, 19, 20}, "ApplicationCollaboration": {18, 7, 20}, "ApplicationInterface": {14, 6, 22},
	"ApplicationFunction": {16, 19, 20}, "ApplicationInteraction": {12, 5, 20}, "ApplicationProcess": {18, 10, 20},
	"ApplicationEvent": {20, 6, 22}, "ApplicationService": {20, 7, 22}, "DataObject": {17, 6, 20},
	"Node": {18, 8, 20}, "Device": {16, 5, 20}, "SystemSoftware": {17, 7, 20}, "TechnologyCollaboration": {18, 7, 20},
	"TechnologyInterface": {14, 6, 22}, "Path": {20, 10, 22}, "CommunicationNetwork": {18, 14, 22},
	"TechnologyFunction": {16, 19, 20}, "TechnologyProcess": {18, 10, 20}, "TechnologyInteraction": {12, 5, 20},
	"TechnologyEvent": {20, 6, 22}, "TechnologyService": {20, 7, 22}, "Artifact": {16, 6, 22},
	"Equipment": {19, 17, 22}, "Facility": {19, 17, 20}, "DistributionNetwork": {20, 12, 22}, "Material": {12, 12, 22},
	"Stakeholder": {20, 9, 23}, "Driver": {20, 6, 23}, "Assessment": {15, 6, 21}, "Goal": {19, 6, 22},
	"Outcome": {24, 9, 27}, "Principle": {20, 6, 23}, "Requirement": {19, 8, 22}, "Constraint": {19, 8, 23},
	"Meaning": {17, 8, 19}, "Value": {19, 7, 21}, "Resource": {20, 7, 22}, "Capability": {17, 5, 19},
	"ValueStream": {19, 7, 25}, "CourseOfAction": {17, 4, 25}, "WorkPackage": {17, 6, 19}, "Deliverable": {18, 6, 21},
	"ImplementationEvent": {20, 6, 22}, "Plateau": {20, 13, 17}, "Gap": {18, 6, 23}, "Location": {9, 20, 16},
	"Grouping": {17, 6, 20},
}

// refFigure: the box figure of type 0
func refFigure(class string) string {
	switch class {
	case "BusinessProcess", "ApplicationProcess", "TechnologyProcess", "BusinessFunction", "ApplicationFunction",
		"TechnologyFunction", "BusinessInteraction", "ApplicationInteraction", "TechnologyInteraction", "BusinessEvent",
		"ApplicationEvent", "TechnologyEvent", "ImplementationEvent", "BusinessService", "ApplicationService",
		"TechnologyService", "Capability", "CourseOfAction", "ValueStream", "WorkPackage":
		return "rounded"
	case "Stakeholder", "Driver", "Assessment", "Goal", "Outcome", "Principle", "Requirement", "Constraint", "Meaning", "Value":
		return "bevelled"
	}
	return "rectangle"
}

func refScale(c string, f float64) string {
	v, _ := strconv.ParseUint(c[1:], 16, 32)
	r, g, b := float64(v>>16&0xff), float64(v>>8&0xff), float64(v&0xff)
	return fmt.Sprintf("#%02x%02x%02x", int(r*f), int(g*f), int(b*f))
}

// refLines is how many lines Archi breaks a label into, in a text area width wide, measured with
// the font file.
func refLines(f *ttf.Font, size float64, text string, width int) int {
	w := func(s string) float64 {
		u := 0
		for _, r := range s {
			u += f.Advance(r)
		}
		return float64(u) * size / float64(f.UnitsPerEm)
	}
	n, line := 1, ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case w(line+" "+word) <= float64(width):
			line += " " + word
		default:
			n++
			line = word
		}
		for w(line) > float64(width) && len([]rune(line)) > 1 {
			// a word wider than the line is broken where it overflows
			rs := []rune(line)
			k := len(rs)
			for k > 1 && w(string(rs[:k])) > float64(width) {
				k--
			}
			n++
			line = string(rs[k:])
		}
	}
	return n
}

// svgShape is one drawn shape of a figure.
type svgShape struct {
	tag    string
	attr   map[string]string
	group  map[string]string // the enclosing <g data-id>'s attributes
	icon   map[string]string // the enclosing icon group's, if any
	tspans int
}

// shapesByObject reads every shape and text of a rendered view, by diagram object id.
func shapesByObject(t *testing.T, svg []byte) map[string][]svgShape {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	out := map[string][]svgShape{}
	var stack []map[string]string
	var cur, icon map[string]string
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			a := map[string]string{}
			for _, x := range e.Attr {
				a[x.Name.Local] = x.Value
			}
			stack = append(stack, a)
			switch {
			case e.Name.Local == "g" && a["data-id"] != "":
				cur = a
			case e.Name.Local == "g" && a["class"] == "icon":
				icon = a
			case cur != nil && e.Name.Local != "g" && e.Name.Local != "tspan":
				out[cur["data-id"]] = append(out[cur["data-id"]], svgShape{tag: e.Name.Local, attr: a, group: cur, icon: icon})
			case cur != nil && e.Name.Local == "tspan":
				s := out[cur["data-id"]]
				s[len(s)-1].tspans++
			}
		case xml.EndElement:
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if e.Name.Local == "g" {
				if a["class"] == "icon" {
					icon = nil
				} else if a["data-id"] != "" {
					cur = nil
				}
			}
		}
	}
	return out
}

var translateRE = regexp.MustCompile(`^translate\((-?\d+) (-?\d+)\)$`)

func TestView_ArchiReference(t *testing.T) {
	fontPath := "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"
	font, err := ttf.Open(fontPath)
	if err != nil {
		t.Skipf("no Liberation Sans to measure with (%v): apt-get install fonts-liberation", err)
	}
	// every element type at Archi's default size, named as Archi names the type, its figure 0
	var elems, objs strings.Builder
	type placed struct {
		class, label string
		x, y         int
	}
	var all []placed
	i := 0
	for _, ty := range archixml.ElementTypes {
		if ty.Class == "Junction" {
			continue
		}
		x, y := 20+(i%8)*140, 20+(i/8)*200
		if ty.Class == "Grouping" {
			y += 0
		}
		fmt.Fprintf(&elems, `<element xsi:type="archimate:%s" name="%s" id="e%d"/>`+"\n", ty.Class, ty.Label, i)
		w, h := 120, 55
		if ty.Class == "Grouping" {
			w, h = 130, 150
		}
		fmt.Fprintf(&objs, `<child xsi:type="archimate:DiagramObject" id="o%d" archimateElement="e%d"><bounds x="%d" y="%d" width="%d" height="%d"/></child>`+"\n", i, i, x, y, w, h)
		all = append(all, placed{ty.Class, ty.Label, x, y})
		i++
	}
	model := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="ref" id="m" version="5.0.0">
<folder name="All" id="f" type="other">` + elems.String() + `
<element xsi:type="archimate:Junction" name="and" id="jand"/><element xsi:type="archimate:Junction" name="or" id="jor" type="or"/>
</folder>
<folder name="Views" id="fv" type="diagrams"><element xsi:type="archimate:ArchimateDiagramModel" name="ref" id="v">
` + objs.String() + `
<child xsi:type="archimate:DiagramObject" id="oand" archimateElement="jand"><bounds x="20" y="2000" width="15" height="15"/></child>
<child xsi:type="archimate:DiagramObject" id="oor" archimateElement="jor"><bounds x="60" y="2000" width="15" height="15"/></child>
<child xsi:type="archimate:Group" id="ogroup" name="A group"><bounds x="100" y="2000" width="300" height="140"/></child>
<child xsi:type="archimate:Note" id="onote"><bounds x="420" y="2000" width="185" height="80"/><content>a note</content></child>
</element></folder></archimate:model>`
	m, err := archixml.Load([]byte(model))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := View(m, "v")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), `font-family="Liberation Sans`) {
		t.Error("the SVG does not name the font its labels are measured in")
	}
	shapes := shapesByObject(t, svg)
	for n, p := range all {
		id := fmt.Sprintf("o%d", n)
		t.Run(p.class, func(t *testing.T) {
			ss := shapes[id]
			if len(ss) == 0 {
				t.Fatal("not drawn")
			}
			fill := refLayerFill[archixml.ElementType(p.class).Folder]
			switch p.class {
			case "Location":
				fill = "#edcfe2"
			case "Grouping":
				fill = "#ffffff"
			}
			body := ss[0]
			if got := body.attr["fill"]; got != fill {
				t.Errorf("fill %s, Archi %s", got, fill)
			}
			if got, want := body.attr["stroke"], refScale(fill, 0.7); got != want {
				t.Errorf("outline %s, Archi %s", got, want)
			}
			fig := "rectangle"
			switch {
			case body.tag == "rect" && body.attr["rx"] == "10":
				fig = "rounded"
			case body.tag == "path":
				fig = "bevelled"
			}
			want := refFigure(p.class)
			if p.class == "Grouping" {
				want = "rectangle"
				if body.attr["stroke-dasharray"] != "8 4" {
					t.Errorf("a Grouping's outline is dashed 8 4 in Archi, got %q", body.attr["stroke-dasharray"])
				}
			}
			if fig != want {
				t.Errorf("figure %s, Archi %s", fig, want)
			}
			ref := refIcon[p.class]
			var icon map[string]string
			texts := 0
			for _, s := range ss {
				if s.icon != nil && icon == nil {
					icon = s.icon
				}
				if s.tag == "text" {
					texts = s.tspans
				}
			}
			if icon == nil {
				t.Fatal("no icon")
			}
			mt := translateRE.FindStringSubmatch(icon["transform"])
			if mt == nil {
				t.Fatalf("icon placed by %q", icon["transform"])
			}
			ox, _ := strconv.Atoi(mt[1])
			oy, _ := strconv.Atoi(mt[2])
			w, _ := strconv.Atoi(body.group["data-w"])
			if ox != p.x+w-ref[0] || oy != p.y+ref[1] {
				t.Errorf("icon at %d,%d, Archi %d,%d", ox, oy, p.x+w-ref[0], p.y+ref[1])
			}
			area := w - 2*ref[2]
			if p.class == "Grouping" {
				area = w - 2*4 // a Grouping's label is left-aligned over the whole width
			}
			if want := refLines(font, 12, p.label, area); texts != want {
				t.Errorf("label %q in %d lines, Archi %d (text area %d px)", p.label, texts, want, area)
			}
		})
	}
	t.Run("Junction", func(t *testing.T) {
		and, or := shapes["oand"], shapes["oor"]
		if len(and) != 1 || and[0].attr["fill"] != "#000000" || and[0].attr["stroke"] != "none" {
			t.Errorf("an AND junction is a filled black circle: %v", and)
		}
		if len(or) != 1 || or[0].attr["fill"] != "none" || or[0].attr["stroke"] != "#000000" {
			t.Errorf("an OR junction is a hollow circle: %v", or)
		}
	})
	t.Run("Group", func(t *testing.T) {
		g := shapes["ogroup"]
		if len(g) < 2 || g[0].attr["stroke"] != refScale("#d2d7d7", 0.7) || g[1].attr["fill"] != refScale("#d2d7d7", 0.9) {
			t.Errorf("a group: body outlined %s, tab filled %s: %v", refScale("#d2d7d7", 0.7), refScale("#d2d7d7", 0.9), g)
		}
	})
	t.Run("Note", func(t *testing.T) {
		n := shapes["onote"]
		if len(n) < 1 || n[0].attr["stroke"] != "#b2b2b2" || !strings.Contains(n[0].attr["d"], "l-13 13") {
			t.Errorf("a note: outlined #b2b2b2, its corner cut 13 px: %v", n)
		}
	})
	if t.Failed() {
		os.WriteFile(t.TempDir()+"/ref.svg", svg, 0o644)
	}
}
