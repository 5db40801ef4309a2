package tray

// Notification is a desktop notification of a fired reminder.
type Notification struct {
	Summary, Body string
	// Ref is the reminded item's ref.
	Ref string
}

// Notifier shows notifications. ack, when the system lets a
// notification carry actions, runs when the user picks "Acknowledge".
type Notifier interface {
	Notify(n Notification, ack func()) error
	Close()
}
