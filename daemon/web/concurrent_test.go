package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/testenv"
)

// The review page draws views of the ledger's model at HEAD while the daemon applies plans to
// it: the page reads it only between applies, never while an apply edits it in place (run with
// -race in CI; without the lock the race detector, or the runtime's own check of concurrent map
// use, stops it).
func TestLocal_ConcurrentViewsWhileApplying(t *testing.T) {
	_, led, _ := exampleLedger(t)
	local := NewLocal(LocalConfig{Ledger: led})
	const applies = 12
	done, stop := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < applies; i++ {
			select {
			case <-stop: // the reader failed: the test ends, and its folder goes
				return
			default:
			}
			raw := fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"rename %d","actions":[`+
				`{"op":"rename_element","element_id":%q,"new_name":"Customer %d"},`+
				`{"op":"create_element","type":"BusinessActor","name":"Clerk %d"}]}`, i, customer, i, i)
			if _, err := led.Apply(context.Background(), ledger.Request{Name: fmt.Sprintf("p%d", i), File: fmt.Sprintf("p%d.json", i), Raw: []byte(raw)}); err != nil {
				done <- err
				return
			}
		}
	}()
	draws, err := testenv.Beside(done, func() error {
		views, err := local.Views()
		if err != nil || len(views) == 0 {
			return fmt.Errorf("views: %v (%d)", err, len(views))
		}
		svg, err := local.ViewSVG(mainView, "")
		if err != nil || !strings.Contains(string(svg), "<svg") {
			return fmt.Errorf("draw the main view: %v", err)
		}
		return nil
	})
	close(stop)
	for range done {
	}
	if err != nil {
		t.Fatal(err)
	}
	if draws < 2 {
		t.Fatalf("%d draws while %d plans were applied: the test proves nothing", draws, applies)
	}
}
