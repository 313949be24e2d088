//go:build linux

package testenv

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// WaitExit fails the test unless process pid ends within bound (a generous
// limit that only a hang reaches). It waits on a pidfd (Linux 5.3 or
// later), which becomes readable when the process ends; a process still
// running at the bound is killed before the test fails.
func WaitExit(t testing.TB, pid int, bound time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // already gone and reaped
	}
	if err != nil {
		t.Fatalf("pidfd_open(%d) (Linux 5.3 or later): %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(bound.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("poll on the pidfd of %d: %v", pid, err)
		}
		if n == 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d is still running %v later", pid, bound)
		}
		return
	}
}
