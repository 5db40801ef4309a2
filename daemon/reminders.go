package daemon

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/padd/padd/storage"
)

// The reminder loop (REM-05): padd sleeps until the next armed reminder
// falls due, fires it (a stamped mutation, so the event stream carries
// reminder_fired and the dashboard lists it in pending_reminders) and
// sleeps again. Any commit wakes it, since a commit may have armed an
// earlier reminder; finding the next due one is one cursor read. Armed
// reminders live in the database, so a restart fires the overdue ones at
// once.

// Clock is the loop's time: tests drive it instead of sleeping.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a Clock's one-shot timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Loop tuning.
const (
	// reminderBatch bounds one firing pass (one transaction per
	// workspace); more due reminders make the next pass start at once.
	reminderBatch = 100
	// reminderRetry is the wait after a failed pass.
	reminderRetry = 5 * time.Second
)

// runReminders runs the loop on the wall clock until ctx ends or the
// store closes.
func runReminders(ctx context.Context, store *storage.Store, log *slog.Logger) {
	reminderLoop{store: store, clock: realClock{}, log: log}.run(ctx)
}

type reminderLoop struct {
	store *storage.Store
	clock Clock
	log   *slog.Logger
}

func (l reminderLoop) run(ctx context.Context) {
	commits, unsubscribe := l.store.Subscribe()
	defer unsubscribe()
	for {
		wait := time.Duration(-1) // none: sleep until a commit
		fired, next, err := l.store.FireDueReminders(l.clock.Now(), reminderBatch)
		switch {
		case errors.Is(err, storage.ErrClosed):
			return
		case err != nil:
			l.log.Warn("firing due reminders failed; retrying", "err", err, "retry_in", reminderRetry)
			wait = reminderRetry
		case !next.IsZero():
			wait = max(next.Sub(l.clock.Now()), 0)
		}
		for _, f := range fired {
			l.log.Info("reminder fired", "workspace_id", f.WorkspaceID, "reminder_id", f.ReminderID, "item_id", f.ItemID,
				"remind_at", f.RemindAt)
		}
		var timer Timer
		var due <-chan time.Time
		if wait >= 0 {
			timer = l.clock.NewTimer(wait)
			due = timer.C()
		}
		stop := false
		select {
		case <-ctx.Done():
			stop = true
		case <-due:
		case _, open := <-commits:
			stop = !open // the store closed
		}
		if timer != nil {
			timer.Stop()
		}
		if stop {
			return
		}
	}
}
