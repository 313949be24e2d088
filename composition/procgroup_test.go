//go:build linux

package composition

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdioProcessGroup: a stdio server started through a shell that leaves
// a grandchild behind (as `bash -c`, npx or uvx do) is ended whole, on Close
// and when Connect gives up.
func TestStdioProcessGroup(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("this test needs /bin/sh: %v", err)
	}
	bin := buildTestServer(t)
	// The shell starts a grandchild, writes its pid, then becomes the
	// server (or a silent process).
	launch := func(pidFile, then string) Transport {
		return Stdio("sh", "-c", fmt.Sprintf(`sleep 1000 & echo $! > %s; exec %s`, pidFile, then))
	}

	t.Run("close", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		s, err := Connect(ctx, launch(pidFile, bin))
		if err != nil {
			t.Fatal(err)
		}
		pid := readPid(t, pidFile)
		if gone(pid) {
			t.Fatalf("grandchild %d is not running before Close", pid)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
	})

	t.Run("timeout", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		_, err := Connect(ctx, launch(pidFile, "sleep 1000"))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Connect: %v", err)
		}
		waitGone(t, readPid(t, pidFile))
	})
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	for i := 0; i < 500; i++ {
		b, err := os.ReadFile(file)
		if pid, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// gone reports whether pid has exited (is gone or a zombie).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// waitGone fails unless pid exits; the signal has been sent, so the wait is
// for the kernel, not a timing assertion.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 1000 && !gone(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !gone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d is still running", pid)
	}
}
