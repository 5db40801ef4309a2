//go:build !linux

package memuse

import "runtime/metrics"

// read is the Go runtime's own count where there is no smaps: the memory
// the heap and stacks hold. What the system maps of the process's files
// is not known here, and left out.
func read(Files) *Use {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return nil
	}
	return &Use{Own: int64(s[0].Value.Uint64() - s[1].Value.Uint64())}
}
