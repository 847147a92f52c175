// Command walk follows a decision through the code as a reader would: from one function, every
// static call into a function of this module, in the order the calls are written, to a depth. It
// measures the issue 41 rule "one decision per approval": a decision whose input a reader must
// follow through many stops, back and forth between files and packages, is missing a value.
//
//	go run ./scripts/walk                                   # (*Ledger).Approve in ./daemon/ledger, depth 2
//	go run ./scripts/walk -depth 3 ./daemon/ledger Ledger.Approve
//	go run ./scripts/walk ./plans Check                     # any function: PKG FUNC or PKG TYPE.METHOD
//
// The words of its summary line, "N stops, F files, max V visits (FILE), C climbs":
//
//   - A stop is one call site, in a function on the walk, of a function or method declared in the
//     walked module (the standard library, dependencies, third_party and calls through interfaces
//     or function values are not stops: a reader cannot follow them statically). The root's own
//     call sites are depth 1, those of the functions they call depth 2, and so on; the walk is
//     depth first, each function's call sites in source order (calls inside its function literals
//     included, as written). A call site of a function already on the current path is a stop that
//     is not followed (recursion).
//   - The reader's position is the file of the function last arrived at: first the root's file,
//     then after each stop the callee's file. A visit to a file is arriving there from another file
//     (the start counts as the first visit to the root's file), so three calls in a row into one
//     file are one visit; files counts the distinct files of the walk, the root's included.
//   - A climb is a stop that moves the reader from a package into one that imports it (directly or
//     through others): back up to a package above, the one the decision started in or another
//     between. Data flows one way (STYLE.md), so every climb is the walk returning to ask a
//     higher package again after a lower one answered.
//
// The list below the summary names every stop: its depth (by indentation), the call site, the
// function called and its file, and "climb" where the stop climbs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("walk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.Int("depth", 2, "how many calls deep to follow")
	dir := fs.String("C", ".", "the module's directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	pkg, root := "./daemon/ledger", "Ledger.Approve"
	switch fs.NArg() {
	case 0:
	case 2:
		pkg, root = fs.Arg(0), fs.Arg(1)
	default:
		fmt.Fprintln(stderr, "usage: walk [-depth N] [-C DIR] [PKG FUNC|TYPE.METHOD]")
		return 2
	}
	w, err := Walk(*dir, pkg, root, *depth)
	if err != nil {
		fmt.Fprintln(stderr, "walk:", err)
		return 1
	}
	w.Print(stdout)
	return 0
}

// A Stop is one call site on the walk.
type Stop struct {
	Depth  int
	Site   string // file:line of the call, relative to the module
	Callee string // the function called, as ssa names it
	File   string // the callee's file, relative to the module
	Pkg    string // the callee's package path
	Climb  bool
}

// A Result is a walk: its stops in order and what they add up to.
type Result struct {
	Root, RootFile, RootPkg string
	Depth                   int
	Stops                   []Stop
	Visits                  map[string]int // arrivals per file, the start included
}

// Files is the number of distinct files the walk visits, the root's included.
func (r *Result) Files() int { return len(r.Visits) }

// MaxVisits is the most visits of one file and that file (the first in name order on a tie).
func (r *Result) MaxVisits() (int, string) {
	files := make([]string, 0, len(r.Visits))
	for f := range r.Visits {
		files = append(files, f)
	}
	sort.Strings(files)
	n, at := 0, ""
	for _, f := range files {
		if r.Visits[f] > n {
			n, at = r.Visits[f], f
		}
	}
	return n, at
}

// Climbs is the number of stops that climb back to a package above.
func (r *Result) Climbs() int {
	n := 0
	for _, s := range r.Stops {
		if s.Climb {
			n++
		}
	}
	return n
}

// Summary is the one line the issue measures.
func (r *Result) Summary() string {
	v, f := r.MaxVisits()
	return fmt.Sprintf("%d stops, %d files, max %d visits (%s), %d climbs", len(r.Stops), r.Files(), v, f, r.Climbs())
}

// Print writes the summary and the list of stops.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "walk %s (%s), depth %d: %s\n", r.Root, r.RootFile, r.Depth, r.Summary())
	for _, s := range r.Stops {
		climb := ""
		if s.Climb {
			climb = "  climb"
		}
		fmt.Fprintf(w, "%s%s -> %s (%s)%s\n", strings.Repeat("  ", s.Depth), s.Site, s.Callee, s.File, climb)
	}
}

// Walk loads the module in dir, finds root (FUNC or TYPE.METHOD) in the package pattern pkg and
// walks its static calls to depth.
func Walk(dir, pkg, root string, depth int) (*Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// the module's packages from source, what they import from export data: only the module's
	// functions are walked
	cfg := &packages.Config{Mode: packages.LoadSyntax | packages.NeedModule, Dir: abs}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		return nil, errors.New("the module does not build")
	}
	rootPkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedModule, Dir: abs}, pkg)
	if err != nil || len(rootPkgs) != 1 || rootPkgs[0].Module == nil {
		return nil, fmt.Errorf("%s: not one package of a module", pkg)
	}
	mod := rootPkgs[0].Module
	prog, _ := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	prog.Build()

	w := &walker{prog: prog, modDir: mod.Dir, modPath: mod.Path, above: importers(pkgs, mod.Path)}
	fn, err := w.find(rootPkgs[0].PkgPath, root)
	if err != nil {
		return nil, err
	}
	r := &Result{Root: strings.ReplaceAll(fn.String(), w.modPath+"/", ""), RootFile: w.file(fn), RootPkg: fn.Pkg.Pkg.Path(), Depth: depth, Visits: map[string]int{}}
	w.res = r
	w.at, w.atPkg = r.RootFile, r.RootPkg
	r.Visits[r.RootFile] = 1
	w.walk(fn, 1, map[*ssa.Function]bool{fn: true})
	return r, nil
}

type walker struct {
	prog      *ssa.Program
	modDir    string
	modPath   string
	above     map[string]map[string]bool // package -> every module package that imports it
	res       *Result
	at, atPkg string // where the reader is: file and package
}

// importers maps each package of the module to every package of the module above it (importing
// it, directly or through others).
func importers(pkgs []*packages.Package, mod string) map[string]map[string]bool {
	byPath := map[string]*packages.Package{}
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}
	above := map[string]map[string]bool{}
	var up func(top string, p *packages.Package, seen map[string]bool)
	up = func(top string, p *packages.Package, seen map[string]bool) {
		for path := range p.Imports {
			imp := byPath[path]
			if imp == nil || !inModule(path, mod) || seen[path] {
				continue
			}
			seen[path] = true
			if above[path] == nil {
				above[path] = map[string]bool{}
			}
			above[path][top] = true
			up(top, imp, seen)
		}
	}
	for _, p := range pkgs {
		up(p.PkgPath, p, map[string]bool{})
	}
	return above
}

func inModule(path, mod string) bool { return path == mod || strings.HasPrefix(path, mod+"/") }

func (w *walker) find(pkgPath, name string) (*ssa.Function, error) {
	for _, p := range w.prog.AllPackages() {
		if p.Pkg.Path() != pkgPath {
			continue
		}
		typ, method, ok := strings.Cut(name, ".")
		if !ok {
			if f := p.Func(name); f != nil {
				return f, nil
			}
			break
		}
		t := p.Type(typ)
		if t == nil {
			break
		}
		for _, recv := range []bool{true, false} {
			var sel = w.prog.MethodSets.MethodSet(t.Type())
			if recv {
				sel = w.prog.MethodSets.MethodSet(ptr(t))
			}
			if s := sel.Lookup(p.Pkg, method); s != nil {
				return w.prog.MethodValue(s), nil
			}
		}
		break
	}
	return nil, fmt.Errorf("no function %s in %s", name, pkgPath)
}

// walk visits fn's call sites, depth first, following each callee up to the walk's depth.
func (w *walker) walk(fn *ssa.Function, depth int, path map[*ssa.Function]bool) {
	if depth > w.res.Depth {
		return
	}
	for _, c := range w.calls(fn) {
		callee := c.callee
		s := Stop{Depth: depth, Site: w.pos(c.pos), Callee: strings.ReplaceAll(callee.String(), w.modPath+"/", ""), File: w.file(callee), Pkg: callee.Pkg.Pkg.Path()}
		s.Climb = s.Pkg != w.atPkg && w.above[w.atPkg][s.Pkg]
		if s.File != w.at {
			w.res.Visits[s.File]++
		}
		w.at, w.atPkg = s.File, s.Pkg
		w.res.Stops = append(w.res.Stops, s)
		if !path[callee] {
			path[callee] = true
			w.walk(callee, depth+1, path)
			delete(path, callee)
		}
	}
}

type call struct {
	pos    token.Pos
	line   int
	seq    int // order of evaluation, within one function
	callee *ssa.Function
}

// calls lists fn's static calls into the module, its function literals' included, in the order a
// reader follows them: line by line, and within a line in the order of evaluation (the arguments'
// calls before the call they are passed to).
func (w *walker) calls(fn *ssa.Function) []call {
	var out []call
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if callee := w.declared(ci.Common().StaticCallee()); callee != nil {
					line := w.prog.Fset.Position(ci.Pos()).Line
					out = append(out, call{ci.Pos(), line, len(out), callee})
				}
			}
		}
		for _, a := range f.AnonFuncs {
			add(a)
		}
	}
	add(fn)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].line != out[j].line {
			return out[i].line < out[j].line
		}
		return out[i].seq < out[j].seq
	})
	return out
}

// declared is the module's declared function behind a static callee: the generic function of an
// instance, the method of a wrapper; nil for anything else (function literals are walked as part
// of the function that holds them).
func (w *walker) declared(f *ssa.Function) *ssa.Function {
	if f == nil {
		return nil
	}
	if o := f.Origin(); o != nil {
		f = o
	}
	if f.Synthetic != "" || f.Parent() != nil {
		obj := f.Object()
		if obj == nil || f.Parent() != nil {
			return nil
		}
		if g := w.prog.FuncValue(asFunc(obj)); g != nil && g.Synthetic == "" {
			f = g
		} else {
			return nil
		}
	}
	if f.Pkg == nil || !inModule(f.Pkg.Pkg.Path(), w.modPath) || len(f.Blocks) == 0 {
		return nil
	}
	return f
}

func (w *walker) pos(p token.Pos) string {
	at := w.prog.Fset.Position(p)
	return fmt.Sprintf("%s:%d", w.rel(at.Filename), at.Line)
}

func (w *walker) file(f *ssa.Function) string {
	return w.rel(w.prog.Fset.Position(f.Pos()).Filename)
}

func (w *walker) rel(name string) string {
	if r, err := filepath.Rel(w.modDir, name); err == nil {
		return filepath.ToSlash(r)
	}
	return name
}

func ptr(t *ssa.Type) types.Type { return types.NewPointer(t.Type()) }

func asFunc(obj types.Object) *types.Func {
	f, _ := obj.(*types.Func)
	return f
}
