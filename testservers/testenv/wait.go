package testenv

import (
	"runtime"
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

// Goroutines waits, polling as Poll does, until at most n goroutines run
// (n is a baseline taken with runtime.NumGoroutine before the work), and
// returns how many run then. Once bound has passed it fails the test with
// every goroutine's stack and returns the count it saw. Goroutines that
// are merely finishing (a net/http connection closing after its handler
// returned, a reader seeing EOF) get the whole bound, not a number of
// scheduler yields, so a loaded machine does not report them as leaks.
func Goroutines(t testing.TB, bound time.Duration, n int) int {
	t.Helper()
	deadline := time.Now().Add(bound)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		g := runtime.NumGoroutine()
		if g <= n {
			return g
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines still run after %v, %d before the work:\n%s", g, bound, n, buf[:runtime.Stack(buf, true)])
			return g
		}
		time.Sleep(wait)
	}
}

// Receive returns the next value from c, failing the test once bound has
// passed without one (a hang bound, never an assertion about speed).
func Receive[T any](t testing.TB, bound time.Duration, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(bound):
		t.Fatalf("nothing received within the %v hang bound", bound)
	}
	var zero T
	return zero
}
