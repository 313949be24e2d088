//go:build !linux

package testenv

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// WaitExit fails the test unless process pid ends within bound. Without
// Linux's pidfd it polls kill(pid, 0).
func WaitExit(t testing.TB, pid int, bound time.Duration) {
	t.Helper()
	Poll(t, bound, fmt.Sprintf("process %d to end", pid), func() bool { return syscall.Kill(pid, 0) != nil })
}
