//go:build unix && !linux

package composition_test

import "testing"

// waitStdinPending is a no-op where /proc/<pid>/fd is not available: the
// request is then usually, not certainly, written before the kill.
func waitStdinPending(*testing.T, int) {}

// waitStopped is a no-op where /proc is not available.
func waitStopped(*testing.T, int) {}
