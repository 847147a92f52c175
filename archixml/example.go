package archixml

import "fmt"

// Example returns archiplan's built-in example model, a small bicycle rental business with a
// view: what `archiplan init` starts from when given no model, and what tests edit. It is built
// with the edit primitives, so it is our own and in Archi's exact form.
func Example() *Model {
	m := New("Velo Rental")
	must := func(id string, err error) string {
		if err != nil {
			panic(fmt.Sprintf("archixml: example model: %v", err))
		}
		return id
	}
	customer := must(m.CreateElement("Business Actor", "Customer", ""))
	desk := must(m.CreateElement("Business Role", "Rental Desk", ""))
	rent := must(m.CreateElement("Business Process", "Rent a Bike", ""))
	service := must(m.CreateElement("Business Service", "Bike Rental", ""))
	file := must(m.CreateElement("Business Object", "Customer File", ""))
	app := must(m.CreateElement("Application Component", "Booking App", ""))
	appService := must(m.CreateElement("Application Service", "Booking Service", ""))
	data := must(m.CreateElement("Data Object", "Fleet Records", ""))
	server := must(m.CreateElement("Node", "Booking Server", ""))
	goal := must(m.CreateElement("Goal", "Shorter Queues", ""))
	_ = m.SetDocumentation(customer, "Anyone who rents a bike, at the desk or through the app.")
	_ = m.SetProperty(app, "owner", "IT")
	_ = m.SetProperty(app, "lifecycle", "run")
	must(m.CreateRelationship("Serving", service, customer, ""))
	must(m.CreateRelationship("Realization", rent, service, ""))
	must(m.CreateRelationship("Assignment", desk, rent, ""))
	must(m.CreateRelationship("Access", rent, file, ""))
	must(m.CreateRelationship("Serving", appService, rent, ""))
	must(m.CreateRelationship("Realization", app, appService, ""))
	must(m.CreateRelationship("Access", app, data, ""))
	must(m.CreateRelationship("Realization", server, app, ""))
	must(m.CreateRelationship("Realization", service, goal, ""))
	view := m.Views()[0].ID()
	_ = m.Rename(view, "Main view")
	// a row of grid cells, as the first version of AddToView placed them: the example's bytes
	// stay what every golden file and test was written against
	for i, id := range []string{customer, service, rent, desk, file, appService, app, data, server} {
		b := Bounds{X: 12 + i*144, Y: 12, Width: DefaultSize.Width, Height: DefaultSize.Height}
		must(func() (string, error) { id, _, err := m.AddToView(view, id, &b); return id, err }())
	}
	return m
}
