package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/store"
)

func renderCmd() *cobra.Command {
	var at, outDir, modelFile string
	var jumps, curves bool
	c := &cobra.Command{
		Use:   "render [VIEW...] [--at COMMIT | --model FILE] [-o DIR] [--line-jumps] [--curves]",
		Short: "Draw views as SVG, as Archi shows them: the named views (id or name) or all, at any commit or of any model file",
		RunE: func(cmd *cobra.Command, args []string) error {
			m, cfg, err := renderModel(cmd, modelFile, at)
			if err != nil {
				return err
			}
			// Archi's connection preferences: the configuration's, a flag given overriding it
			o := render.Options{Prefs: render.Prefs{LineJumps: cfg.v.GetBool("render.line_jumps"), Curves: cfg.v.GetBool("render.curves")}}
			if cmd.Flags().Changed("line-jumps") {
				o.Prefs.LineJumps = jumps
			}
			if cmd.Flags().Changed("curves") {
				o.Prefs.Curves = curves
			}
			views, err := pickViews(m, args)
			if err != nil {
				return err
			}
			if outDir == "" {
				if len(views) != 1 {
					return usageError{fmt.Errorf("%d views to draw: give -o DIR (or one VIEW for standard output)", len(views))}
				}
				svg, err := render.ViewWith(m, views[0].ID(), o)
				if err != nil {
					return codedError{exitNoUsable, err}
				}
				_, err = cmd.OutOrStdout().Write(svg)
				return err
			}
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return codedError{exitNoUsable, err}
			}
			for _, v := range views {
				svg, err := render.ViewWith(m, v.ID(), o)
				if err != nil {
					return codedError{exitNoUsable, err}
				}
				path := filepath.Join(outDir, fileName(v.ID())+".svg")
				if err := writeAtomic(path, svg); err != nil {
					return codedError{exitNoUsable, err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\n", path, oneLine(v.Name()))
			}
			return nil
		},
	}
	c.Flags().StringVar(&at, "at", "", "the commit to draw the model at (default: the model file as it is)")
	c.Flags().StringVarP(&outDir, "output", "o", "", "folder to write VIEW-ID.svg files into")
	c.Flags().StringVar(&modelFile, "model", "", "draw this .archimate file (plain or zipped), no workspace needed")
	c.Flags().BoolVar(&jumps, "line-jumps", false, "draw a jump where a line crosses another, as Archi's preference does (default: render.line_jumps)")
	c.Flags().BoolVar(&curves, "curves", false, "round the bends of lines, as Archi's preference does (default: render.curves)")
	return c
}

// renderModel is the model render draws, and the configuration: a model file given with
// --model, read without a workspace (a file someone was sent), else the workspace's at a commit
// or as it is.
func renderModel(cmd *cobra.Command, modelFile, at string) (*archixml.Model, *config, error) {
	if modelFile != "" {
		if at != "" {
			return nil, nil, usageError{errors.New("--at draws the workspace's model at a commit: not with --model")}
		}
		cfg, err := newConfig(cmd)
		if err != nil {
			return nil, nil, err
		}
		m, _, err := cfg.loadModel(modelFile)
		return m, cfg, err
	}
	cfg, ws, err := openWorkspace(cmd)
	if err != nil {
		return nil, nil, err
	}
	m, err := modelAt(ws, at)
	return m, cfg, err
}

// modelAt reads the model at a commit, or the model file in the work tree when rev is "".
func modelAt(ws *store.Workspace, rev string) (*archixml.Model, error) {
	var data []byte
	if rev == "" {
		var err error
		if data, err = os.ReadFile(ws.ModelPath()); err != nil {
			return nil, codedError{exitNoUsable, fmt.Errorf("read the model: %w", err)}
		}
	} else {
		commit, err := ws.ResolveCommit(rev)
		if err != nil {
			return nil, usageError{err}
		}
		var ok bool
		data, ok, err = ws.ModelAt(commit)
		if err != nil {
			return nil, codedError{exitNoUsable, err}
		}
		if !ok {
			return nil, codedError{exitNoUsable, fmt.Errorf("no %s at %s: %w", ws.Model, store.Short(commit), store.ErrModelNotCommitted)}
		}
	}
	m, err := archixml.LoadOwned(data) // data is this read's own: no copy of it (a fifth of a small export)
	if err != nil {
		return nil, codedError{exitNoUsable, fmt.Errorf("%s: %w", ws.Model, err)}
	}
	return m, nil
}

// pickViews finds the views named by id or by name; none named means all.
func pickViews(m *archixml.Model, names []string) ([]archixml.Object, error) {
	all := m.Views()
	if len(names) == 0 {
		return all, nil
	}
	var out []archixml.Object
	for _, n := range names {
		if o, ok := m.Object(n); ok && o.Kind() == archixml.KindView {
			out = append(out, o)
			continue
		}
		var found []archixml.Object
		for _, v := range all {
			if v.Name() == n {
				found = append(found, v)
			}
		}
		switch len(found) {
		case 0:
			return nil, usageError{fmt.Errorf("no view %q: %w", n, render.ErrNoView)}
		case 1:
			out = append(out, found[0])
		default:
			return nil, usageError{fmt.Errorf("%d views are named %q: give the id", len(found), n)}
		}
	}
	return out, nil
}

// fileName makes a view's id safe as a file name: Archi's ids are, a hand-edited model's may not be.
func fileName(id string) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	s = strings.TrimLeft(s, ".")
	if s == "" {
		s = "view"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeAtomic writes a file by a temporary file in the same folder, synced and renamed, so a
// reader sees the old picture or the new, never half of one.
func writeAtomic(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("write %s: %w", path, errSymlink)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".render-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(f.Name(), path)
}

var errSymlink = errors.New("is a symbolic link")
