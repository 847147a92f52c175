package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/exchange"
)

func exportCmd() *cobra.Command {
	var format, out, commit string
	c := &cobra.Command{
		Use:   "export --format exchange [-o FILE] [--commit REV]",
		Short: "Write the model at a commit in the Open Group's Exchange Format (valid against archimate3_Diagram.xsd)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "exchange" {
				return usageError{fmt.Errorf("--format %q: the one format is exchange", format)}
			}
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			oneShotGC(ws) // the model read once, written out, and the process exits
			m, err := modelAt(ws, commit)
			if err != nil {
				return err
			}
			warnDropped(cmd.ErrOrStderr(), m)
			if out == "" || out == "-" {
				if err := exchange.Export(m, cmd.OutOrStdout()); err != nil {
					return codedError{exitNoUsable, err}
				}
				return nil
			}
			if err := writeWhole(out, func(w io.Writer) error { return exchange.Export(m, w) }); err != nil {
				return codedError{exitNoUsable, err}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "exchange", "the format: exchange (the Open Group's ArchiMate Model Exchange File Format)")
	c.Flags().StringVarP(&out, "output", "o", "", "the file to write (default: standard output)")
	c.Flags().StringVar(&commit, "commit", "HEAD", "the commit whose model is written")
	return c
}

// warnDropped names on w the views an export of m leaves out: the Exchange Format has no sketch or
// canvas views, and a person who exports to move a model should not find them gone later.
func warnDropped(w io.Writer, m *archixml.Model) {
	dropped := exchange.Dropped(m)
	if len(dropped) == 0 {
		return
	}
	names := make([]string, len(dropped))
	for i, v := range dropped {
		names[i] = fmt.Sprintf("%s %s (%s)", archixml.TypeWords(v.Class()), termQuote(v.Name()), v.ID())
	}
	fmt.Fprintf(w, "archiplan: warning: the Exchange Format has no sketch or canvas views: %d view(s) not exported: %s\n",
		len(dropped), strings.Join(names, ", "))
}

// writeWhole writes a file whole or not at all: into a temporary file beside it, synced, then
// renamed over it (export and import both write so).
func writeWhole(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
