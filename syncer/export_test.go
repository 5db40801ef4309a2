package syncer

import "time"

// SetBackoff makes m's workers wait f(failures) after a failed cycle: a
// test's long wait, so that what ends it early is what the test sees.
func SetBackoff(m *Manager, f func(failures int) time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.backoffFn = f
}

// SetExportEvery makes m's workers read the remote's export every d
// while online, instead of every ten minutes.
func SetExportEvery(m *Manager, d time.Duration) { m.exportEvery.Store(int64(d)) }
