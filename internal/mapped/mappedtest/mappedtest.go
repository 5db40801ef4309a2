// Package mappedtest helps tests run releases of mapped pages beside the
// reads and writes they must not disturb.
package mappedtest

import "sync"

// Repeat calls release over and over in a goroutine of its own until the
// returned stop is called; stop waits for it and answers its first error.
func Repeat(release func() error) (stop func() error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err = release(); err != nil {
				return
			}
		}
	}()
	return func() error {
		close(done)
		wg.Wait()
		return err
	}
}
