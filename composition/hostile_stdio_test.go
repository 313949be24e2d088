//go:build unix

package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// hostile builds testservers/hostileserver and returns the transport and the
// option that serve it with the given tools (entries of the spec's "tools",
// see testservers/hostileserver), plus a "pid" tool.
func hostile(t *testing.T, tools ...map[string]any) (composition.Transport, composition.Option) {
	t.Helper()
	return hostileB(t, tools...)
}

// hostileB is hostile for tests and benchmarks.
func hostileB(t testing.TB, tools ...map[string]any) (composition.Transport, composition.Option) {
	t.Helper()
	bin := testenv.Build(t, "./testservers/hostileserver")
	tools = append(tools, map[string]any{"name": "pid", "pid": true})
	spec, err := json.Marshal(map[string]any{"serverInfo": map[string]string{"name": "hostile", "version": "1"}, "tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	return composition.Stdio(bin), composition.WithEnv("MCPBIND_HOSTILE_SPEC=" + path)
}

// callPID calls the hostile server's "pid" tool.
func callPID(ctx context.Context, t *testing.T, c composition.Caller) int {
	t.Helper()
	res, err := composition.CallRaw(ctx, c, bindimpl.Tool{Name: "pid", ReadOnly: true}, nil)
	if err != nil {
		t.Fatalf("pid: %v", err)
	}
	pid, err := strconv.Atoi(res.Text())
	if err != nil {
		t.Fatalf("pid: %q", res.Text())
	}
	return pid
}

// badMessages are the messages that leave a stdio stream out of step.
var badMessages = []struct {
	name string
	tool map[string]any
	// limit: the error is a *LimitError (depth or not).
	limit, depth bool
}{
	{name: "oversize", tool: map[string]any{"name": "bad", "repeat": map[string]any{"text": "x", "times": 100_000}}, limit: true},
	{name: "too deep", tool: map[string]any{"name": "bad", "depth": 20_000}, limit: true, depth: true},
	{name: "unparsable", tool: map[string]any{"name": "bad", "line": `{"jsonrpc":"2.0","id":`}},
}

// TestLostOnBadMessage: a stdio server that sends a message over
// WithMaxResponseBytes, nested deeper than MaxResponseDepth, or that cannot
// be parsed, loses its session: the call fails as lost (with the
// *LimitError when a limit was hit), Done fires with the reason, the
// process is ended, and a later call is not sent.
func TestLostOnBadMessage(t *testing.T) {
	for _, c := range badMessages {
		t.Run(c.name, func(t *testing.T) {
			tr, env := hostile(t, c.tool)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			s, err := composition.Connect(ctx, tr, env, composition.WithMaxResponseBytes(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			pid := callPID(ctx, t, s)
			_, err = s.CallResult(ctx, "bad", nil)
			t.Logf("the bad call: %v", err)
			var lost *composition.SessionLostError
			if !errors.As(err, &lost) || !lost.Sent || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want a SessionLostError (sent) before the deadline", err)
			}
			var le *composition.LimitError
			if c.limit && (!errors.As(err, &le) || le.Depth != c.depth) {
				t.Errorf("err = %v, want a *LimitError (depth %v)", err, c.depth)
			}
			select {
			case <-s.Done():
			case <-ctx.Done():
				t.Fatal("Done was not closed")
			}
			if !errors.Is(s.Err(), composition.ErrSessionLost) || (c.limit && !errors.As(s.Err(), &le)) {
				t.Errorf("Err() = %v, want ErrSessionLost with the reason", s.Err())
			}
			testenv.WaitExit(t, pid, time.Minute)
			_, err = s.CallResult(ctx, "pid", nil)
			if !errors.As(err, &lost) || lost.Sent {
				t.Errorf("a call on the lost session: err = %v, want a SessionLostError that was not sent", err)
			}
		})
	}
}

// TestRegistryReconnectsAfterBadMessage: under a registry, a read-only call
// whose answer is oversize is sent again on a new session (and fails again,
// as a *CallLostError carrying the *LimitError); the server was restarted,
// and its other tools work.
func TestRegistryReconnectsAfterBadMessage(t *testing.T) {
	tr, env := hostile(t, badMessages[0].tool)
	reg := composition.NewRegistry(composition.WithBackoff(10*time.Millisecond, time.Second))
	defer reg.Close()
	if err := reg.Add("h", tr, env, composition.WithMaxResponseBytes(64<<10)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	srv := reg.Server("h")
	pid := callPID(ctx, t, srv)
	_, err := composition.CallRaw(ctx, srv, bindimpl.Tool{Name: "bad", ReadOnly: true}, nil)
	t.Logf("the bad call: %v", err)
	var cl *composition.CallLostError
	var le *composition.LimitError
	if !errors.As(err, &cl) || !cl.Retried || !errors.As(err, &le) {
		t.Fatalf("err = %v, want a *CallLostError, retried, with a *LimitError", err)
	}
	testenv.WaitExit(t, pid, time.Minute)
	if again := callPID(ctx, t, srv); again == pid {
		t.Errorf("the server was not restarted (pid %d)", pid)
	}
	st := reg.Status()
	if len(st) != 1 || st[0].Reconnects < 2 {
		t.Errorf("Status = %+v, want 2 reconnects or more", st)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("this test needs /proc/self/fd: %v", err)
	}
	return len(entries)
}

// TestStuckChild: a stdio server that stops reading its stdin (stopped with
// SIGSTOP) once the pipe is full. Many callers with short deadlines each get
// context.DeadlineExceeded (none waits on the pipe past its deadline), and
// once they have given up, this process's goroutines and file descriptors
// are back to what they were before.
func TestStuckChild(t *testing.T) {
	tr, env := hostile(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	s, err := composition.Connect(ctx, tr, env)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pid := callPID(ctx, t, s)
	baseGoroutines, baseFDs := runtime.NumGoroutine(), openFDs(t)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGCONT) }()

	pad := strings.Repeat("p", 16<<10) // four calls fill the 64 KiB pipe
	const callers, calls = 32, 8
	errs := make(chan error, callers*calls)
	for range callers {
		go func() {
			for range calls {
				cctx, ccancel := context.WithTimeout(ctx, 50*time.Millisecond)
				_, err := s.CallResult(cctx, "pid", map[string]string{"pad": pad})
				ccancel()
				errs <- err
			}
		}()
	}
	for i := range callers * calls {
		select {
		case err := <-errs:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("call %d: err = %v, want context.DeadlineExceeded", i, err)
			}
		case <-ctx.Done():
			t.Fatalf("%d of %d calls are still blocked, long past their deadlines", callers*calls-i, callers*calls)
		}
	}
	var goroutines, fds int
	testenv.Poll(t, time.Minute, "goroutines and fds back to their baseline after the callers gave up", func() bool {
		goroutines, fds = runtime.NumGoroutine(), openFDs(t)
		return goroutines <= baseGoroutines && fds <= baseFDs
	})
	t.Logf("goroutines %d (baseline %d), fds %d (baseline %d)", goroutines, baseGoroutines, fds, baseFDs)
}
