// Package benchplan makes the plan-sized edit the benchmarks of archixml's sub-packages measure:
// 100 actions spread over a model, as a planner's plan would make them.
package benchplan

import (
	"fmt"

	"github.com/archiplan/archiplan/archixml"
)

// Apply100 makes 100 edits spread over the model: 40 renames, 30 properties, 10 documentations,
// 10 new elements each shown on a view, and 10 existing elements added to views.
func Apply100(m *archixml.Model) error {
	els := m.Elements()
	views := m.Views()
	if len(els) < 40 || len(views) == 0 {
		return fmt.Errorf("benchplan: the model needs 40 elements and a view")
	}
	at := func(i, of int) archixml.Object { return els[(i*len(els))/of] }
	for i := range 40 {
		if err := m.Rename(at(i, 40).ID(), fmt.Sprintf("Renamed %d", i)); err != nil {
			return err
		}
	}
	for i := range 30 {
		if err := m.SetProperty(at(i, 30).ID(), "reviewed", "yes"); err != nil {
			return err
		}
	}
	for i := range 10 {
		if err := m.SetDocumentation(at(i, 10).ID(), "Planned change."); err != nil {
			return err
		}
	}
	for i := range 10 {
		id, err := m.CreateElement("Business Actor", fmt.Sprintf("New %d", i), "")
		if err != nil {
			return err
		}
		if _, _, err := m.AddToView(views[i%len(views)].ID(), id, nil); err != nil {
			return err
		}
	}
	for i := range 10 {
		if _, _, err := m.AddToView(views[i%len(views)].ID(), at(i, 10).ID(), nil); err != nil {
			return err
		}
	}
	return nil
}
