//go:build race

package daemon

// raceOn says the tests run under the race detector, whose own memory
// and pace make a heap bound meaningless.
const raceOn = true
