package composition_test

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// waitStdinPending waits until the stdin pipe of process pid holds unread
// bytes: a request written to a stopped server (stdio writes go through a
// writer goroutine, so a call that has started is not yet written). It
// reads the pipe's fill level with FIONREAD on /proc/<pid>/fd/0, which
// nothing notifies of, so it polls (testenv.Poll) up to a generous bound.
func waitStdinPending(t *testing.T, pid int) {
	t.Helper()
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/0", pid), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("opening the server's stdin: %v", err)
	}
	defer f.Close()
	testenv.Poll(t, time.Minute, "the request written to the server's stdin", func() bool {
		var n int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			t.Fatalf("FIONREAD on the server's stdin: %v", errno)
		}
		return n > 0
	})
}

// waitStopped waits until every thread of process pid is stopped (state T
// in /proc/<pid>/task/*/stat): kill(SIGSTOP) returns before the threads
// stop, and a thread still running could read a request just written.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	testenv.Poll(t, time.Minute, "the server's threads stopped", func() bool {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Fatalf("reading the server's threads: %v", err)
		}
		for _, task := range tasks {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
			if err != nil {
				return false
			}
			// The state follows the command name in parentheses.
			i := bytes.LastIndexByte(stat, ')')
			if i < 0 || i+2 >= len(stat) || stat[i+2] != 'T' {
				return false
			}
		}
		return len(tasks) > 0
	})
}
