package daemon

import (
	"context"
	"time"
)

// deliverer runs Config.Deliver (plans as pull requests: open one for each plan previewed, apply
// the approved ones) apart from the passes: after a pass that previewed a plan, and on the fetch
// timer (a review on the forge makes no event here). The forge's network holds up no pass.
func (d *Daemon) deliverer(ctx context.Context) {
	every := d.cfg.FetchInterval
	if every <= 0 {
		every = 30 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-d.deliverKick:
			}
		}
		if err := d.cfg.Deliver(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("pull requests", "err", err)
		}
		d.Kick() // an apply moved HEAD: the inbox follows
	}
}

// kickDeliver asks the deliverer to look at the inbox's plans soon.
func (d *Daemon) kickDeliver() {
	if d.deliverKick == nil {
		return
	}
	select {
	case d.deliverKick <- struct{}{}:
	default:
	}
}
