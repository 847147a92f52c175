package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml/exchange"
)

func importCmd() *cobra.Command {
	var out string
	var force, allowForbidden bool
	c := &cobra.Command{
		Use:   "import FILE.xml -o FILE.archimate [--force]",
		Short: "Make an Archi model of an Open Group Exchange Format file, as Archi's own importer does",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("import needs -o FILE.archimate, the model to write")}
			}
			if _, err := os.Lstat(out); err == nil && !force {
				return usageError{fmt.Errorf("%s exists: give --force to replace it", out)}
			}
			data, err := importExchange(args[0], allowForbidden)
			if err != nil {
				return err
			}
			if err := writeWhole(out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %s into %s\n", args[0], out)
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "the .archimate file to write")
	c.Flags().BoolVar(&force, "force", false, "replace the output file when it exists")
	c.Flags().BoolVar(&allowForbidden, "allow-forbidden", false, "accept relationships the ArchiMate table forbids (Archi holds them; its validator reports them)")
	return c
}

// importExchange reads an exchange file and returns the bytes of the Archi model made of it: a
// file with problems is refused (exit 1) with every problem, coded, at its line.
func importExchange(path string, allowForbidden bool) ([]byte, error) {
	oneShotGCOf(path) // read once, then the process exits
	src, unmap, err := mapFile(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer unmap()
	var data []byte
	err = readMapped(path, func() (err error) {
		data, err = exchange.ImportData(src, exchange.Options{AllowForbidden: allowForbidden})
		return err
	})
	var ie *exchange.ImportError
	if errors.As(err, &ie) && ie.Has(exchange.CodeRelForbidden) {
		// Archi holds such relationships (its validator reports them): say how to keep them
		err = fmt.Errorf("%w\nto import the relationships the ArchiMate 3.2 table forbids, as Archi does: archiplan import %s --allow-forbidden -o FILE.archimate",
			err, path)
	}
	if err != nil {
		return nil, codedError{exitRefused, fmt.Errorf("%s: %w", path, err)}
	}
	return data, nil
}

// isExchangeFile: init --model takes an Exchange Format file by its .xml name.
func isExchangeFile(path string) bool { return strings.EqualFold(filepath.Ext(path), ".xml") }
