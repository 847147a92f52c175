package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
)

// A plan that leaves the inbox between reject's lookup and its rename (a daemon applies it in
// that moment) is not rejected: REJECT_PLAN_GONE, exit 1, no NAME.rejected, no rejection in the
// audit; the apply stands.
func TestReject_PlanAppliedMeanwhile(t *testing.T) {
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com", "HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	archiplan := func(want int, args ...string) string {
		t.Helper()
		var out, stderr bytes.Buffer
		if code := run(append(args, "--repo", ws), &out, &stderr); code != want {
			t.Fatalf("archiplan %v: exit %d, want %d\n%s%s", args, code, want, out.String(), stderr.String())
		}
		return out.String() + stderr.String()
	}
	if code := run([]string{"init", ws}, new(bytes.Buffer), new(bytes.Buffer)); code != exitOK {
		t.Fatalf("init: exit %d", code)
	}
	plan := `{"schema_version":"2.0","status":"ready","summary":"Add a kiosk","actions":[{"op":"create_element","type":"Application Component","name":"Kiosk"}]}`
	if err := os.WriteFile(filepath.Join(ws, "plans", "kiosk.json"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	archiplan(exitOK, "validate", filepath.Join(ws, "plans", "kiosk.json"))
	archiplan(exitOK, "approve", "kiosk")
	// the person found kiosk.approved to reject; the daemon applies it before the rename
	rejectFound = func(e inbox.Entry) {
		if e.File != "kiosk.approved" {
			t.Errorf("reject found %s, want kiosk.approved", e.File)
		}
		archiplan(exitOK, "apply", filepath.Join(ws, "plans", "kiosk.approved"))
	}
	t.Cleanup(func() { rejectFound = func(inbox.Entry) {} })
	out := archiplan(exitRefused, "reject", "kiosk", "--reason", "no kiosks")
	if !strings.Contains(out, "REJECT_PLAN_GONE: kiosk.approved left the inbox while it was being rejected") {
		t.Errorf("reject said %q, want REJECT_PLAN_GONE", out)
	}
	for _, f := range []string{"kiosk.rejected", "kiosk.approved", "kiosk.json", "kiosk.preview.md"} {
		if _, err := os.Lstat(filepath.Join(ws, "plans", f)); err == nil {
			t.Errorf("plans/%s is there after the plan was applied and the reject refused", f)
		}
	}
	if log := archiplan(exitOK, "log", "--all"); strings.Contains(log, "rejected") || !strings.Contains(log, "applied   kiosk-") {
		t.Errorf("the audit says a rejection, or no apply:\n%s", log)
	}
}
