package testenv

import (
	"testing"
	"time"
)

// Poll waits until cond reports true, checking it every few milliseconds,
// and fails the test with "what" once bound has passed. It is for states
// the kernel or the runtime offers no notification of (a thread's stop
// state, the bytes queued in a pipe, goroutine and fd counts back to a
// baseline); anything that can be waited on (a channel, a line a server
// writes, a pidfd) is waited on instead. bound is a generous limit that
// only a genuine hang reaches, never an assertion about speed.
func Poll(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for wait := time.Millisecond; !cond(); wait = min(2*wait, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %s", bound, what)
		}
		time.Sleep(wait)
	}
}
