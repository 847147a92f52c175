// Package archixml reads, queries, edits and writes Archi's .archimate model files with full
// fidelity.
//
// A model is parsed with etree, and every XML element remembers the bytes it came from. Saving
// writes an untouched element back as those very bytes, and an edited one in the form Archi's EMF
// serializer gives it (attribute order, escaping, two-space indentation), so that loading and
// saving without a change gives back the same file, a rename changes one line, and a model Archi
// wrote stays exactly what Archi would write after any edit.
//
// The package knows the ArchiMate 3.2 catalogue (Archi's class names, jArchi's labels, the folder
// each type lives in) and the relationship table taken from Archi's relationships.xml. It knows
// nothing of plans, files on disk beyond what it is handed, or git.
//
// Both forms Archi writes are read: plain XML and the zipped archive (model.xml with images/), which
// is written back as an archive with the other entries' bytes unchanged.
package archixml
