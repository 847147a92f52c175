package archixml

import (
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"
)

// ErrBadStep means an undo step (an applied plan's inverse.json) is not one an edit could have
// recorded: an unknown op, an attribute or element Archi's model does not have, text XML cannot
// carry, or removed XML that is malformed or would bring back an id the model already holds.
// Nothing of such an inverse is undone.
var ErrBadStep = errors.New("invalid undo step")

// journalTags are the XML elements of Archi's model (archimate.ecore and canvas.ecore: the
// containment features and the attributes EMF writes as elements): all that an edit inserts or
// removes, and all that a removed node's XML may hold.
var journalTags = set("folder", "element", "child", "sourceConnection", "bendpoint", "bounds", "property",
	"feature", "profile", "metadata", "entry", "documentation", "purpose", "content", "notes", "hintContent", "hintTitle")

// textTags are the elements whose text an edit sets.
var textTags = set("documentation", "purpose", "content", "notes", "hintContent", "hintTitle")

// journalAttrs are the attributes of Archi's model (the EAttributes and non-containment
// EReferences of archimate.ecore and canvas.ecore, and Archi 2's names), besides id and xsi:type.
var journalAttrs = set("accessType", "alpha", "archimateElement", "archimateRelationship", "background",
	"borderColor", "borderType", "conceptType", "connectionRouterType", "directed", "endX", "endY", "fillColor",
	"font", "fontColor", "height", "imagePath", "imagePosition", "key", "lineColor", "lineWidth", "locked", "name",
	"profiles", "referencedModel", "source", "specialization", "startX", "startY", "strength", "target",
	"targetConnections", "textAlignment", "textPosition", "type", "value", "viewpoint", "width", "x", "y",
	"model", "relationship", "iconColor", "gradient", "lineAlpha", "deriveElementLineColor", "imageSource",
	"iconVisible", "textFont", "image")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ValidateSteps checks undo steps on their own, before any is used: each op is one an edit
// records, each attribute one of Archi's model (never id or a namespace; xsi:type only with a
// type's value), each value and text one XML can carry, each removed node's XML well-formed and
// made only of Archi's elements and attributes. Undo calls it first; a revert may call it to
// refuse an inverse before it starts. The error wraps ErrBadStep and names the step.
func ValidateSteps(steps []Step) error {
	for i, s := range steps {
		if err := validateStep(s); err != nil {
			return fmt.Errorf("step %d (%s): %v: %w", i, s.Op, err, ErrBadStep)
		}
	}
	return nil
}

func validateStep(s Step) error {
	if err := checkID(s.ID); err != nil {
		return err
	}
	for _, p := range s.Path {
		if p < 0 {
			return fmt.Errorf("negative position %d in the path", p)
		}
	}
	if s.Pos != nil && (s.Op != "attr" || s.Old == nil || *s.Pos < 0 || *s.Pos > 1000) {
		return errors.New("a position for no removed attribute")
	}
	switch s.Op {
	case "attr":
		if err := checkAttr(s.Key, s.Old); err != nil {
			return err
		}
	case "text":
		if s.Old != nil {
			if err := checkText(*s.Old); err != nil {
				return err
			}
		}
	case "insert":
		if s.ID == "" && len(s.Path) == 0 {
			return errors.New("it would remove the model")
		}
	case "remove":
		if s.Index < 0 {
			return fmt.Errorf("negative index %d", s.Index)
		}
		if _, err := removedNode(s.XML); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown op %q", s.Op)
	}
	return nil
}

func checkID(id string) error {
	if len(id) > 1000 || strings.ContainsAny(id, "<>&\"'") {
		return fmt.Errorf("id %.40q is not one of Archi's", id)
	}
	return checkText(id)
}

func checkAttr(key string, value *string) error {
	switch {
	case key == "xsi:type":
		if value != nil && !typeValue(*value) {
			return fmt.Errorf("xsi:type %.40q is not a type", *value)
		}
	case !journalAttrs[key]:
		return fmt.Errorf("attribute %.40q is not one of Archi's model", key)
	}
	if value != nil {
		if err := checkText(*value); err != nil {
			return err
		}
	}
	return nil
}

// typeValue is an xsi:type as Archi writes it: "archimate:Class" or "canvas:Class".
func typeValue(v string) bool {
	prefix, name, ok := strings.Cut(v, ":")
	if !ok || (prefix != "archimate" && prefix != "canvas") || name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// removedNode parses a remove step's XML and checks every element and attribute in it.
func removedNode(x string) (*etree.Element, error) {
	if x == "" {
		return nil, errors.New("no XML for the removed node")
	}
	if len(x) > MaxModelBytes {
		return nil, ErrTooLarge
	}
	doc, _, err := read(x)
	if err != nil {
		return nil, fmt.Errorf("removed XML: %v", err)
	}
	root := doc.Root()
	if root == nil {
		return nil, errors.New("removed XML holds no element")
	}
	for _, t := range doc.Child {
		if _, ok := t.(*etree.Element); !ok {
			if _, ok := t.(*etree.CharData); !ok {
				return nil, errors.New("removed XML holds more than one element")
			}
		}
	}
	var walk func(e *etree.Element) error
	walk = func(e *etree.Element) error {
		if e.Space != "" || !journalTags[e.Tag] {
			return fmt.Errorf("element <%.40s> is not one of Archi's model", e.FullTag())
		}
		for _, a := range e.Attr {
			k := a.FullKey()
			if k == "id" {
				if err := checkID(a.Value); err != nil {
					return err
				}
				continue
			}
			v := a.Value
			if err := checkAttr(k, &v); err != nil {
				return err
			}
		}
		for _, t := range e.Child {
			switch t := t.(type) {
			case *etree.Element:
				if err := walk(t); err != nil {
					return err
				}
			case *etree.CharData:
				if err := checkText(t.Data); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return root, walk(root)
}

// checkUndoTarget checks a step against the node it names in this model: text only on the
// elements that hold text, insertions undone only on Archi's elements and never on a top-level
// folder, and removed XML bringing back no top-level folder and no id the model holds already.
func (m *Model) checkUndoTarget(s Step, e *etree.Element) error {
	switch s.Op {
	case "text":
		if !textTags[e.Tag] {
			return fmt.Errorf("text of <%s>, which holds none", e.FullTag())
		}
	case "insert":
		// a top-level folder is inserted only when an edit needs one the model lacks
		// (topFolderFor), and taken out only once it is empty again
		if e == m.root || !journalTags[e.Tag] || (e.Tag == "folder" && e.Parent() == m.root && len(e.ChildElements()) > 0) {
			return fmt.Errorf("removing <%s>, which no edit inserts", e.FullTag())
		}
	case "attr":
		if e == m.root && s.Key != "name" {
			return fmt.Errorf("attribute %q of the model", s.Key)
		}
	case "remove":
		node, err := removedNode(s.XML)
		if err != nil {
			return err
		}
		if e == m.root && node.Tag == "folder" {
			return errors.New("bringing back a top-level folder, which no edit removes")
		}
		var dup error
		var walk func(*etree.Element)
		walk = func(c *etree.Element) {
			if id := c.SelectAttrValue("id", ""); id != "" && dup == nil {
				if _, ok := m.byID[id]; ok {
					dup = fmt.Errorf("it would bring back %q, which the model holds already", id)
				}
			}
			for _, k := range c.ChildElements() {
				walk(k)
			}
		}
		walk(node)
		return dup
	}
	return nil
}
