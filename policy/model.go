package policy

import (
	"context"
	"encoding/json"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/types"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// The rules' read access to the model as it was before the plan: functions, not a document, so
// that a rule pays for what it reads and a preview's cost does not grow with the model.
//
//	archiplan.object(id)         the element, relationship, view or folder as input.changes shows
//	                             objects; undefined when the model has none of that id
//	archiplan.relationships(id)  the relationships whose source or target is id (may be empty)
//
// A rule's tests replace them with `with archiplan.object as ...`; without a model (the policy's
// own tests) object is undefined and relationships empty.
var modelFunctions = []struct {
	fn   *rego.Function
	impl rego.Builtin1
}{
	{&rego.Function{Name: "archiplan.object", Decl: types.NewFunction(types.Args(types.S), types.A), Memoize: true,
		Description: "the object of this id in the model as it was before the plan, or undefined"}, modelObject},
	{&rego.Function{Name: "archiplan.relationships", Decl: types.NewFunction(types.Args(types.S), types.NewArray(nil, types.A)), Memoize: true,
		Description: "the relationships whose source or target is this id, in the model as it was before the plan"}, modelRelationships},
}

type modelKey struct{}

// withModel is ctx carrying the model the functions read.
func withModel(ctx context.Context, m *archixml.Model) context.Context {
	return context.WithValue(ctx, modelKey{}, m)
}

func modelOf(bctx rego.BuiltinContext) *archixml.Model {
	if bctx.Context == nil {
		return nil
	}
	m, _ := bctx.Context.Value(modelKey{}).(*archixml.Model)
	return m
}

func modelObject(bctx rego.BuiltinContext, id *ast.Term) (*ast.Term, error) {
	s, ok := id.Value.(ast.String)
	m := modelOf(bctx)
	if !ok || m == nil {
		return nil, nil
	}
	o, ok := plans.Snapshot(m, string(s))
	if !ok {
		return nil, nil
	}
	return term(o)
}

func modelRelationships(bctx rego.BuiltinContext, id *ast.Term) (*ast.Term, error) {
	out := []plans.DeltaObject{}
	s, ok := id.Value.(ast.String)
	if m := modelOf(bctx); ok && m != nil {
		for _, r := range m.RelationshipsOf(string(s)) {
			if o, ok := plans.Snapshot(m, r.ID()); ok {
				out = append(out, o)
			}
		}
	}
	return term(out)
}

// term is v as Rego reads the JSON it marshals to.
func term(v any) (*ast.Term, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := util.UnmarshalJSON(b, &doc); err != nil {
		return nil, err
	}
	val, err := ast.InterfaceToValue(doc)
	if err != nil {
		return nil, err
	}
	return ast.NewTerm(val), nil
}

// regoFunctions are the model's functions for a query.
func regoFunctions() []func(*rego.Rego) {
	var out []func(*rego.Rego)
	for _, f := range modelFunctions {
		out = append(out, rego.Function1(f.fn, f.impl))
	}
	return out
}

// testerFunctions are the model's functions for the policy's own tests.
func testerFunctions() []*tester.Builtin {
	var out []*tester.Builtin
	for _, f := range modelFunctions {
		out = append(out, &tester.Builtin{Decl: &ast.Builtin{Name: f.fn.Name, Decl: f.fn.Decl}, Func: rego.Function1(f.fn, f.impl)})
	}
	return out
}
