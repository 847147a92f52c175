// Package top decides, asking low twice.
package top

import "example.com/walkdemo/low"

// Decider decides.
type Decider struct{ f func(string) string }

// Decide is the walk's root.
func (d *Decider) Decide(s string) string {
	a := low.Ask(s)
	b := d.decide(a)
	d.f(b) // a function value: no stop
	return low.Again(b)
}

func (d *Decider) decide(s string) string {
	return deep(s)
}

func deep(s string) string { return deeper(s) }

func deeper(s string) string { return s }
