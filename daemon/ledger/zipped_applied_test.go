package ledger_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// zipOf is a model in Archi's zipped form: its XML as the archive's model.xml, stored (store) or
// deflated. Two archivers' bytes of one model (another Go's deflater, say) differ just so.
func zipOf(t *testing.T, xml []byte, store bool) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	h := &zip.FileHeader{Name: "model.xml", Method: zip.Deflate}
	if store {
		h.Method = zip.Store
	}
	w, err := zw.CreateHeader(h)
	if err == nil {
		_, err = w.Write(xml)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// recompress commits HEAD again (amended: message, trailers and archive kept) with its zipped
// model's model.xml stored rather than deflated: the same model in other bytes, as an archiplan
// built with another Go writes it.
func recompress(t *testing.T, ws *store.Workspace) {
	t.Helper()
	data, err := os.ReadFile(ws.ModelPath())
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(zr.File) != 1 {
		t.Fatalf("the model is not the one-entry archive the test made: %v", err)
	}
	r, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	xml, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	again := zipOf(t, xml, true)
	if bytes.Equal(again, data) {
		t.Fatal("the model in other bytes is the same bytes")
	}
	if err := os.WriteFile(ws.ModelPath(), again, 0o644); err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "commit", "-q", "-a", "--amend", "--no-edit")
}

// A zipped model's apply whose model.xml another archiver compressed (a colleague's archiplan
// built with another Go) is still the plan's apply, as the models decide: the same plan bytes
// approved again are recognised as applied (before, the blobs were compared, so the plan was
// applied a second time: two kiosks); and a revert compressed so undid the plan, so the same
// bytes apply again (before, PLAN_ALREADY_APPLIED said its record was removed without undoing).
func TestApplied_ZippedModelInOtherBytes(t *testing.T) {
	xml, err := os.ReadFile(filepath.Join("..", "..", "testdata", "models", "example.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kiosk := []byte(`{"schema_version":"2.0","status":"ready","summary":"Add a kiosk","actions":[{"op":"create_element","type":"Application Component","name":"Kiosk"}]}`)
	kiosks := func(t *testing.T, ws *store.Workspace) int {
		data, err := os.ReadFile(ws.ModelPath())
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := zr.File[0].Open()
		b, _ := io.ReadAll(r)
		return strings.Count(string(b), `name="Kiosk"`)
	}

	t.Run("apply", func(t *testing.T) {
		ws := workspaceWith(t, zipOf(t, xml, false))
		if _, err := lt.Ledger(ws).Apply(ctx, ledger.Request{Name: "kiosk", File: "kiosk.json", Raw: kiosk}); err != nil {
			t.Fatal(err)
		}
		recompress(t, ws)
		_, err := lt.Ledger(ws).Apply(ctx, ledger.Request{Name: "kiosk", File: "kiosk.json", Raw: kiosk})
		if !errors.Is(err, ledger.ErrAlreadyApplied) {
			t.Fatalf("the same plan approved again after its apply in other bytes: %v (want %v)", err, ledger.ErrAlreadyApplied)
		}
		if n := kiosks(t, ws); n != 1 {
			t.Fatalf("%d kiosks in the model, want 1", n)
		}
	})
	t.Run("revert", func(t *testing.T) {
		ws := workspaceWith(t, zipOf(t, xml, false))
		l := lt.Ledger(ws)
		res, err := l.Apply(ctx, ledger.Request{Name: "kiosk", File: "kiosk.json", Raw: kiosk})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Revert(ctx, res.PlanID); err != nil {
			t.Fatal(err)
		}
		recompress(t, ws)
		res, err = lt.Ledger(ws).Apply(ctx, ledger.Request{Name: "kiosk", File: "kiosk.json", Raw: kiosk})
		if err != nil || res.Verdict != "" {
			t.Fatalf("the same plan approved again after its revert in other bytes: %v %s %s", err, res.Verdict, res.Reason)
		}
		if n := kiosks(t, ws); n != 1 {
			t.Fatalf("%d kiosks in the model, want 1", n)
		}
	})
}
