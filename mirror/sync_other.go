//go:build !linux

package mirror

import (
	"os"
	"runtime"
)

// syncAll makes each file (or folder) durable in turn. Windows cannot
// sync a folder; its renames are as durable as NTFS makes them.
func syncAll(_ string, paths []string) error {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		flag := os.O_RDWR
		if fi.IsDir() {
			if runtime.GOOS == "windows" {
				continue
			}
			flag = os.O_RDONLY
		}
		f, err := os.OpenFile(p, flag, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
