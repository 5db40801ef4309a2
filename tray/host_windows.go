//go:build windows

package tray

import (
	"errors"
	"log/slog"
	"unsafe"

	"golang.org/x/sys/windows"
)

var findWindow = windows.NewLazySystemDLL("user32.dll").NewProc("FindWindowW")

// checkHost says why the tray cannot be shown, before systray tries:
// the icon lives in the taskbar's notification area, and without a
// taskbar (no Explorer shell: a server core, a session of another shell,
// Wine without its desktop) systray's window never gets its icon and it
// fails on a nil pointer, then hangs. padtray started from the Run key
// is started by Explorer, so the taskbar is there by then.
func checkHost(*slog.Logger) error {
	class, err := windows.UTF16PtrFromString("Shell_TrayWnd")
	if err != nil {
		return err
	}
	if err := findWindow.Find(); err != nil {
		return errors.New("no tray host: padtray cannot look for the taskbar here (" + err.Error() + ")")
	}
	if h, _, _ := findWindow.Call(uintptr(unsafe.Pointer(class)), 0); h == 0 {
		return errors.New("no tray host: padtray shows its icon in the taskbar's notification area, and no taskbar (Explorer's Shell_TrayWnd) runs in this session")
	}
	return nil
}
