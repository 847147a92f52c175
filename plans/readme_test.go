package plans

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/schemas"
)

// The README's op tables are held to the one op table: every op of the newest vocabulary has a
// row, and the row names every field the op has.
func TestREADME_OpTables(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		name := strings.SplitN(strings.TrimPrefix(line, "| `"), "`", 2)[0]
		rows[name] += line
	}
	for _, op := range schemas.OpsOf(schemas.Newest) {
		row, ok := rows[string(op.Name)]
		if !ok {
			t.Errorf("README has no row for op %s", op.Name)
			continue
		}
		for _, f := range op.FieldsOf(schemas.Newest) {
			if !strings.Contains(row, "`"+f.Name+"`") {
				t.Errorf("README's row for %s does not name its field %s", op.Name, f.Name)
			}
		}
	}
}
