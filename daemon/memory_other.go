//go:build !linux

package daemon

import (
	"runtime/metrics"

	"github.com/padd/padd/api"
)

// readMemory is the Go runtime's own count where there is no smaps: the
// memory padd's heap and stacks hold. What the system maps of padd's
// files is not known here, and left out.
func readMemory(memoryKinds) *api.MemoryUse {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return nil
	}
	return &api.MemoryUse{OwnBytes: int64(s[0].Value.Uint64() - s[1].Value.Uint64())}
}
