//go:build !linux

package mirror

import "os"

// syncAll makes each file durable in turn.
func syncAll(_ string, paths []string) error {
	for _, p := range paths {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
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
