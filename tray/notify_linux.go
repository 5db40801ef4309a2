//go:build linux

package tray

import (
	"errors"
	"log/slog"
	"slices"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service on the session bus, spoken
// directly: it carries actions (Acknowledge), which a plain notifier
// library does not.
const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	ackActionID = "ack"
)

// dbusNotifier holds its own connection: systray's listens to every
// signal on its connection and stops at one it does not expect.
type dbusNotifier struct {
	log *slog.Logger

	mu      sync.Mutex
	conn    *dbus.Conn
	actions bool              // the server supports actions
	acks    map[uint32]func() // by notification id, until closed
}

// NewNotifier is the system's notifier: D-Bus notifications on Linux.
func NewNotifier(log *slog.Logger) Notifier {
	return &dbusNotifier{log: log, acks: map[uint32]func(){}}
}

// connect opens the connection on first use (the notification service
// may start after the tray) and listens for the actions picked.
func (n *dbusNotifier) connect() (*dbus.Conn, error) {
	if n.conn != nil && n.conn.Connected() {
		return n.conn, nil
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, err
	}
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyName)); err != nil {
		conn.Close()
		return nil, err
	}
	var caps []string
	if err := conn.Object(notifyName, notifyPath).Call(notifyName+".GetCapabilities", 0).Store(&caps); err != nil {
		conn.Close()
		return nil, err
	}
	n.actions = slices.Contains(caps, "actions")
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	go n.listen(ch)
	n.conn = conn
	return conn, nil
}

func (n *dbusNotifier) listen(ch chan *dbus.Signal) {
	for sig := range ch {
		switch sig.Name {
		case notifyName + ".ActionInvoked":
			var id uint32
			var key string
			if dbus.Store(sig.Body, &id, &key) != nil || key != ackActionID {
				continue
			}
			n.mu.Lock()
			ack := n.acks[id]
			delete(n.acks, id)
			n.mu.Unlock()
			if ack != nil {
				go ack()
			}
		case notifyName + ".NotificationClosed":
			var id, reason uint32
			if dbus.Store(sig.Body, &id, &reason) == nil {
				n.mu.Lock()
				delete(n.acks, id)
				n.mu.Unlock()
			}
		}
	}
}

func (n *dbusNotifier) Notify(note Notification, ack func()) error {
	// The lock is held over the call, so that an action picked at once
	// finds its callback. godbus never holds its connection up for a
	// signal channel that is not read, so listen waiting here is safe.
	n.mu.Lock()
	defer n.mu.Unlock()
	conn, err := n.connect()
	if err != nil {
		return err
	}
	var actions []string
	if n.actions && ack != nil {
		actions = []string{ackActionID, "Acknowledge"}
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(1))}
	if note.Ref != "" {
		hints["x-padd-ref"] = dbus.MakeVariant(note.Ref)
	}
	var id uint32
	err = conn.Object(notifyName, notifyPath).Call(notifyName+".Notify", 0,
		"padd", uint32(0), "", note.Summary, note.Body, actions, hints, int32(-1)).Store(&id)
	if err != nil {
		var derr dbus.Error
		if errors.As(err, &derr) && derr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
			n.closeLocked() // no service now: ask again next time
		}
		return err
	}
	if len(actions) > 0 {
		n.acks[id] = ack
	}
	return nil
}

func (n *dbusNotifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closeLocked()
}

func (n *dbusNotifier) closeLocked() {
	if n.conn != nil {
		n.conn.Close()
		n.conn = nil
	}
}
