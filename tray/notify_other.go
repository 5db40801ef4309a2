//go:build !linux

package tray

import (
	"log/slog"

	"github.com/gen2brain/beeep"
)

// beeepNotifier shows notifications through beeep (the macOS and
// Windows notification centres); they carry no actions there, so a
// reminder is acknowledged with padctl or an agent.
type beeepNotifier struct{}

// NewNotifier is the system's notifier: beeep outside Linux.
func NewNotifier(*slog.Logger) Notifier {
	beeep.AppName = "padd"
	return beeepNotifier{}
}

func (beeepNotifier) Notify(n Notification, _ func()) error {
	return beeep.Notify(n.Summary, n.Body, "")
}

func (beeepNotifier) Close() {}
