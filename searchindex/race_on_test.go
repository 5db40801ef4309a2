//go:build race

package searchindex

// raceOn says the tests run under the race detector, which slows Bleve
// ten times or more.
const raceOn = true
