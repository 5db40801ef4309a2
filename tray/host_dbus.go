//go:build !darwin && !windows

package tray

import (
	"fmt"
	"log/slog"

	"github.com/godbus/dbus/v5"
)

// watcherName is the desktop's StatusNotifierWatcher: the tray host that
// shows the icons of the session bus.
const watcherName = "org.kde.StatusNotifierWatcher"

// checkHost says why the tray cannot be shown, before systray tries:
// without a D-Bus session bus, systray logs, leaves its menu unset and
// waits forever, then panics on quit. A bus without a tray host yet is
// only logged: the desktop's panel may start after padtray at login, and
// systray registers the icon when it does.
func checkHost(log *slog.Logger) error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("no tray host: padtray shows its icon over the desktop session's D-Bus, and there is none here (%v)", err)
	}
	defer conn.Close()
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&has); err == nil && !has && log != nil {
		log.Warn("no tray host on the session bus yet (nothing owns " + watcherName + "); the icon appears when the desktop's panel starts one")
	}
	return nil
}
