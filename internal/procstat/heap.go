package procstat

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// sampleEvery is how often HeapPeak reads the heap.
const sampleEvery = time.Millisecond

// HeapPeak samples this process's heap in use while fn runs and answers
// the highest figure above the heap in use before it (after a GC): what
// fn cost in memory at its worst, for tests that bound it. It samples
// every sampleEvery, not in a loop: each sample stops the world, and a
// loop of them slowed what it measured past its deadlines on a busy
// machine.
func HeapPeak(fn func()) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	var end runtime.MemStats
	runtime.ReadMemStats(&end) // what fn left, had no sample caught it
	if end.HeapInuse > peak.Load() {
		peak.Store(end.HeapInuse)
	}
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}
