// Package leakcheck is the goroutine-leak check of padd's tests
// (go.uber.org/goleak): when a package's tests end, every goroutine they
// started has stopped.
package leakcheck

import "go.uber.org/goleak"

// VerifyTestMain runs the tests (m.Run) and fails them if a goroutine is
// still running after them, other than those of libraries that cannot be
// stopped (below). It exits the process; opts add goleak's options (a
// Cleanup that runs before the exit).
func VerifyTestMain(m goleak.TestingM, opts ...goleak.Option) {
	goleak.VerifyTestMain(m, append(ignored(), opts...)...)
}

// ignored are the goroutines of libraries that run for the life of the
// process and that no caller can stop.
func ignored() []goleak.Option {
	return []goleak.Option{
		// Bleve's analysis queue: workers started by bleve's package init
		// (bleve.Config) and shared by every index in the process.
		// Stopping them (Config.Shutdown) would break every index opened
		// after, so they live as long as the process.
		goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
	}
}
