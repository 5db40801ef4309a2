//go:build !linux

package netwatch

// listen has no source of network changes here: the channel never sends.
func listen() (<-chan struct{}, func(), error) {
	return make(chan struct{}), func() {}, nil
}
