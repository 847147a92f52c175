package archixml

import "fmt"

// AddPropertyValue adds a property of the key with the value after the others, whatever values
// the key has already (Archi allows a key several times).
func (m *Model) AddPropertyValue(id, key, value string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	if err := checkText(key); err != nil {
		return err
	}
	if err := checkText(value); err != nil {
		return err
	}
	m.insertChild(e, newEl("property", "key", key, "value", value))
	return nil
}

// RemovePropertyValue removes the first property of the key with the value; ErrNotFound when
// there is none.
func (m *Model) RemovePropertyValue(id, key, value string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	for _, p := range e.SelectElements("property") {
		if p.SelectAttrValue("key", "") == key && p.SelectAttrValue("value", "") == value {
			m.removeChild(p)
			return nil
		}
	}
	return fmt.Errorf("property %q = %q on %q: %w", key, value, id, ErrNotFound)
}
