// Command relgen turns Archi's relationships.xml into archixml's embedded relationships.tsv, so
// that a new Archi table can be taken in with `go generate ./archixml`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/archiplan/archiplan/archixml"
)

func main() { os.Exit(run()) }

func run() int {
	table := flag.String("xml", "", "Archi's relationships.xml")
	keys := flag.String("keys", "", "Archi's relationships-keys.xml")
	out := flag.String("out", "relationships.tsv", "file to write")
	flag.Parse()
	tf, err := os.Open(*table)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relgen:", err)
		return 1
	}
	defer tf.Close()
	kf, err := os.Open(*keys)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relgen:", err)
		return 1
	}
	defer kf.Close()
	t, err := archixml.ParseArchiRelationships(tf, kf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relgen:", err)
		return 1
	}
	var b bytes.Buffer
	if err := t.WriteTSV(&b); err != nil {
		fmt.Fprintln(os.Stderr, "relgen:", err)
		return 1
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "relgen:", err)
		return 1
	}
	return 0
}
