package ledger

import "github.com/archiplan/archiplan/archixml"

// Unproved is what the ledger will ask before it uses the model an apply left again (nil: nothing).
func (l *Ledger) Unproved() func() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.unproved
}

// SetUnproved replaces it, for a test of what the ledger does with each answer.
func (l *Ledger) SetUnproved(f func() bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unproved = f
}

// Kept is the model the ledger keeps (nil: none).
func (l *Ledger) Kept() *archixml.Model {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.model
}
