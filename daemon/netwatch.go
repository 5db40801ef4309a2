package daemon

import (
	"context"
	"log/slog"

	"github.com/padd/padd/netwatch"
	"github.com/padd/padd/syncer"
)

// watchNetwork tells the sync engine of each change of the machine's
// network until ctx ends. Where padd cannot listen for them, it says so
// once: an unreachable remote is then tried on the backoff's schedule.
func watchNetwork(ctx context.Context, engine *syncer.Manager, log *slog.Logger) {
	if err := netwatch.Watch(ctx, engine.NetworkChanged); err != nil {
		log.Info("network changes are not watched; an unreachable sync remote is retried on its schedule", "err", err)
	}
}
