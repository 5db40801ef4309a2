//go:build !unix

package main

// underJournal: journald is Linux's; elsewhere padd logs to its file.
func underJournal() bool { return false }
