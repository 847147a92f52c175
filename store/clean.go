package store

import (
	"os"
	"strings"
)

// cleanModels is the file under .git where archiplan notes the model blobs it knows Archi can
// open: ones archixml.Check found nothing in, and ones archiplan committed from such a model (an
// apply's edits are validated to keep a model openable; the daemon has always trusted them so).
// A command run cold then skips checking the whole model again (a quarter of a second at 100,000
// elements). It lives under .git, where neither the inbox nor a remote can write; a blob id is the
// hash of the bytes, so a note can only ever speak of those very bytes.
const cleanModels = "archiplan-clean-models"

// keepClean is how many blob ids the note keeps, newest first.
const keepClean = 16

// KnownClean reports whether blob is noted as a model Archi can open.
func (w *Workspace) KnownClean(blob string) bool {
	if len(blob) != 40 {
		return false
	}
	data, err := os.ReadFile(w.GitPath(cleanModels))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l == blob {
			return true
		}
	}
	return false
}

// MarkClean notes blob as a model Archi can open. A note that cannot be written is no harm: the
// next cold load checks the model again.
func (w *Workspace) MarkClean(blob string) {
	if len(blob) != 40 || w.KnownClean(blob) {
		return
	}
	ids := []string{blob}
	if data, err := os.ReadFile(w.GitPath(cleanModels)); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if len(l) == 40 && len(ids) < keepClean {
				ids = append(ids, l)
			}
		}
	}
	_ = w.writeFile(w.GitPath(cleanModels), []byte(strings.Join(ids, "\n")+"\n"), 0o644)
}
