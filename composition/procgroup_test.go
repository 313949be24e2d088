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

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestStdioProcessGroup: a stdio server started through a shell that leaves
// a grandchild behind (as `bash -c`, npx or uvx do) is ended whole, on Close
// and when Connect gives up.
func TestStdioProcessGroup(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("this test needs /bin/sh: %v", err)
	}
	bin := buildTestServer(t)
	// The shell starts a grandchild, writes its pid to a FIFO (which
	// waits for the test to read it), then becomes the server (or a silent
	// process).
	launch := func(fifo, then string) Transport {
		return Stdio("sh", "-c", fmt.Sprintf(`sleep 1000 & echo $! > %s; exec %s`, fifo, then))
	}

	t.Run("close", func(t *testing.T) {
		fifo, pid := pidFIFO(t)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		s, err := Connect(ctx, launch(fifo, bin))
		if err != nil {
			t.Fatal(err)
		}
		p := readPid(t, pid)
		if gone(p) {
			t.Fatalf("grandchild %d is not running before Close", p)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		testenv.WaitExit(t, p, hangBound)
	})

	t.Run("gives up", func(t *testing.T) {
		fifo, pid := pidFIFO(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := Connect(ctx, launch(fifo, "sleep 1000"))
			errc <- err
		}()
		// The grandchild runs and the shell has become a process that
		// never answers: Connect waits for the handshake until ctx ends.
		p := readPid(t, pid)
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Connect: %v", err)
			}
		case <-time.After(hangBound):
			t.Fatalf("Connect still waits %v after its context ended", hangBound)
		}
		testenv.WaitExit(t, p, hangBound)
	})
}

// pidFIFO makes a FIFO for a shell to write a pid to, and returns its path
// and a channel that receives what the shell wrote once it closes the FIFO.
func pidFIFO(t *testing.T) (string, <-chan string) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c := make(chan string, 1)
	go func() {
		b, err := os.ReadFile(fifo) // opening waits for the writer
		if err != nil {
			c <- err.Error()
			return
		}
		c <- string(b)
	}()
	return fifo, c
}

// readPid waits for the pid the shell writes to the FIFO of pidFIFO.
func readPid(t *testing.T, c <-chan string) int {
	t.Helper()
	select {
	case s := <-c:
		pid, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("the shell wrote %q, not a pid", s)
		}
		return pid
	case <-time.After(hangBound):
		t.Fatalf("the shell wrote no pid within %v", hangBound)
	}
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
