//go:build unix

package composition_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// callKey marks the context of a call, to see that a call's events get it.
type callKey struct{}

// recorded is one event with the callKey value of its context.
type recorded struct {
	composition.Event
	call any
}

// eventLog records the events of WithEvents from any goroutine.
type eventLog struct {
	mu     sync.Mutex
	events []recorded
	added  chan struct{}
}

func newEventLog() *eventLog { return &eventLog{added: make(chan struct{}, 1)} }

func (l *eventLog) option() composition.Option {
	return composition.WithEvents(func(ctx context.Context, e composition.Event) {
		l.mu.Lock()
		l.events = append(l.events, recorded{e, ctx.Value(callKey{})})
		l.mu.Unlock()
		select {
		case l.added <- struct{}{}:
		default:
		}
	})
}

// wait returns the events recorded once n of them are of kind, failing the
// test when ctx ends first.
func (l *eventLog) wait(ctx context.Context, t *testing.T, kind composition.EventKind, n int) []recorded {
	t.Helper()
	for {
		l.mu.Lock()
		events := append([]recorded(nil), l.events...)
		l.mu.Unlock()
		seen := 0
		for _, e := range events {
			if e.Kind == kind {
				seen++
			}
		}
		if seen >= n {
			return events
		}
		select {
		case <-l.added:
		case <-ctx.Done():
			t.Fatalf("waiting for %d events of kind %d: %v; events: %+v", n, kind, ctx.Err(), events)
		}
	}
}

// only returns the events of kind.
func only(events []recorded, kind composition.EventKind) []recorded {
	var out []recorded
	for _, e := range events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// TestSessionEvents: WithEvents reports a session's start (the handshake's
// duration) and its end once: closed (no error) or lost when its stdio
// server was killed (an error matching ErrSessionLost), with its life as
// the duration.
func TestSessionEvents(t *testing.T) {
	bin := testenv.Build(t, "./testservers/testserver") // before the bound: a cold build cache takes a minute under load
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	wrapper, pid := testenv.PIDWrapped(t, bin)
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			log := newEventLog()
			s, err := composition.Connect(ctx, composition.Stdio(wrapper[0], wrapper[1:]...), composition.WithProtocolVersion(version), log.option())
			if err != nil {
				t.Fatal(err)
			}
			start := only(log.wait(ctx, t, composition.EventSessionStart, 1), composition.EventSessionStart)[0]
			if start.Duration <= 0 || start.Err != nil || start.Peer.Transport != composition.TransportStdio || start.Peer.ProtocolVersion != version || start.Server == "" {
				t.Errorf("EventSessionStart %+v: want the handshake's duration and the stdio peer at %s", start, version)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			end := only(log.wait(ctx, t, composition.EventSessionEnd, 1), composition.EventSessionEnd)
			if len(end) != 1 || end[0].Err != nil || end[0].Duration < start.Duration || end[0].Server != start.Server {
				t.Errorf("EventSessionEnd after Close: %+v; want one, without error, lasting at least the handshake", end)
			}

			log = newEventLog()
			s, err = composition.Connect(ctx, composition.Stdio(wrapper[0], wrapper[1:]...), composition.WithProtocolVersion(version), log.option())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := syscall.Kill(pid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			events := log.wait(ctx, t, composition.EventSessionEnd, 1)
			_ = s.Close()
			end = only(events, composition.EventSessionEnd)
			if len(end) != 1 || !errors.Is(end[0].Err, composition.ErrSessionLost) || end[0].Duration <= 0 {
				t.Errorf("EventSessionEnd after the server was killed: %+v; want one whose error matches ErrSessionLost", end)
			}
			t.Logf("events: %+v", events)
		})
	}
}

// TestRegistryEvents: the events of a registry's WithEvents reach its
// sessions (start, and the end of the lost one) and a call whose session
// is lost while it is in flight (the stdio server stopped, the request
// written to its stdin, the server killed): the read-only call waits for
// the reconnect (EventReconnect, with its wait) and is sent again
// (EventRetry, MayHaveRun), both with the call's context.
func TestRegistryEvents(t *testing.T) {
	bin := testenv.Build(t, "./testservers/testserver") // before the bound: a cold build cache takes a minute under load
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	wrapper, pid := testenv.PIDWrapped(t, bin)
	started := make(chan struct{}, 8)
	notify := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		return next(ctx, c)
	}
	log := newEventLog()
	reg := composition.NewRegistry(log.option(), composition.WithBackoff(10*time.Millisecond, time.Second))
	defer reg.Close()
	if err := reg.Add("testserver", composition.Stdio(wrapper[0], wrapper[1:]...), composition.WithInterceptor(notify)); err != nil {
		t.Fatal(err)
	}
	caller := reg.Server("testserver")
	tool := bindimpl.Tool{Name: "integer", ReadOnly: true}
	if err := callInteger(ctx, caller, tool); err != nil {
		t.Fatal(err)
	}
	<-started
	p := pid()
	if err := syscall.Kill(p, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, p)
	done := make(chan error, 1)
	go func() { done <- callInteger(context.WithValue(ctx, callKey{}, "the call"), caller, tool) }()
	<-started
	waitStdinPending(t, p)
	if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the read-only call, sent again: %v", err)
	}
	events := log.wait(ctx, t, composition.EventSessionEnd, 1)
	events = log.wait(ctx, t, composition.EventSessionStart, 2)
	t.Logf("events: %+v", events)
	var call []recorded
	for _, e := range events {
		if e.Kind == composition.EventReconnect || e.Kind == composition.EventRetry {
			call = append(call, e)
		}
	}
	if len(call) != 2 || call[0].Kind != composition.EventReconnect || call[1].Kind != composition.EventRetry {
		t.Fatalf("call events %+v: want EventReconnect then EventRetry", call)
	}
	for _, e := range call {
		if e.call != "the call" || e.Server != "testserver" || e.Tool != "integer" || e.Peer.Transport != composition.TransportStdio {
			t.Errorf("%+v: want the call's context, server and tool, and the new session's peer", e)
		}
	}
	if call[0].Duration <= 0 || call[0].Err != nil {
		t.Errorf("EventReconnect %+v: want the wait and no error", call[0])
	}
	if !call[1].MayHaveRun {
		t.Errorf("EventRetry %+v: the first attempt was written to the server, so it may have run", call[1])
	}
	end := only(events, composition.EventSessionEnd)
	if len(end) != 1 || !errors.Is(end[0].Err, composition.ErrSessionLost) || end[0].Server != "testserver" {
		t.Errorf("EventSessionEnd %+v: want the lost session's, with its loss", end)
	}
	for _, e := range only(events, composition.EventSessionStart) {
		if e.Server != "testserver" || e.Duration <= 0 || e.call != nil {
			t.Errorf("EventSessionStart %+v: want the server's id, the handshake's duration, the registry's context", e)
		}
	}
}

// waitingCtx is a context that tells, by closing asked, when Done is first
// called: a registry call whose server is reconnecting calls it when it
// starts waiting for the reconnect, and not before.
type waitingCtx struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (c *waitingCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

// TestRegistryEventReconnectWait: a registry call that finds its server's
// session lost (the stdio server was killed between calls) waits for the
// reconnect and reports EventReconnect with the call's context and its
// wait: with the reconnect's error when the attempt it waited for failed,
// and without one when it succeeded; no EventRetry (nothing was sent
// twice). The server is started through a gate, a FIFO its wrapper reads a
// word from before it execs the server ("go") or exits ("no"), so the
// reconnect cannot end before the call waits for it.
func TestRegistryEventReconnectWait(t *testing.T) {
	bin := testenv.Build(t, "./testservers/testserver") // before the bound: a cold build cache takes a minute under load
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	pidFile, gate := filepath.Join(dir, "pid"), filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	// open lets one start of the server through the gate, or fails it:
	// the wrapper's read gets word once it opens the FIFO.
	open := func(word string) {
		t.Helper()
		written := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(gate, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.WriteString(word + "\n")
				_ = f.Close()
			}
			written <- err
		}()
		select {
		case err := <-written:
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("the server's wrapper did not read the gate")
		}
	}
	log := newEventLog()
	reg := composition.NewRegistry(log.option(), composition.WithBackoff(10*time.Millisecond, time.Second))
	defer reg.Close()
	wrapper := `echo $$ > "$0"; read word < "$1"; [ "$word" = go ] || exit 3; exec "$2"`
	// At 2025-06-18 a server that exits fails the connect at once (a
	// server/discover probe would start it again).
	if err := reg.Add("testserver", composition.Stdio("sh", "-c", wrapper, pidFile, gate, bin), composition.WithProtocolVersion("2025-06-18")); err != nil {
		t.Fatal(err)
	}
	caller := reg.Server("testserver")
	tool := bindimpl.Tool{Name: "integer"}
	first := make(chan error, 1)
	go func() { first <- callInteger(ctx, caller, tool) }()
	open("go")
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	log.wait(ctx, t, composition.EventSessionEnd, 1)
	// call makes a call that waits for the reconnect, lets the attempt
	// through the gate with word, and returns the call's error.
	call := func(name, word string) error {
		cctx := &waitingCtx{Context: context.WithValue(ctx, callKey{}, name), asked: make(chan struct{})}
		done := make(chan error, 1)
		go func() { done <- callInteger(cctx, caller, tool) }()
		select {
		case <-cctx.asked:
		case <-ctx.Done():
			t.Fatalf("%s did not wait", name)
		}
		open(word)
		return <-done
	}
	if err := call("the failed call", "no"); err == nil {
		t.Fatal("the call whose reconnect failed succeeded")
	}
	if err := call("the call", "go"); err != nil {
		t.Fatalf("the call after the loss: %v", err)
	}
	events := log.wait(ctx, t, composition.EventSessionStart, 2) // the calls' events came before they returned
	t.Logf("events: %+v", events)
	re := only(events, composition.EventReconnect)
	if len(re) != 2 || re[0].call != "the failed call" || re[0].Err == nil || re[0].Duration <= 0 || re[0].Peer.Transport != "" {
		t.Fatalf("EventReconnect %+v: want first the failed call's, with the reconnect's error and its wait, without a peer", re)
	}
	if r := re[1]; r.call != "the call" || r.Tool != "integer" || r.Err != nil || r.Duration <= 0 || r.Peer.Transport != composition.TransportStdio {
		t.Errorf("EventReconnect %+v: want the call's, with its wait and the new session's peer", r)
	}
	if retry := only(events, composition.EventRetry); len(retry) != 0 {
		t.Errorf("EventRetry %+v: nothing was sent again", retry)
	}
}

// TestEventsAddUp: two WithEvents callbacks (a telemetry option and the
// program's own) both get every event, in the order given.
func TestEventsAddUp(t *testing.T) {
	bin := testenv.Build(t, "./testservers/testserver") // before the bound: a cold build cache takes a minute under load
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var order []string
	var mu sync.Mutex
	named := func(name string) composition.Option {
		return composition.WithEvents(func(ctx context.Context, e composition.Event) {
			if e.Kind == composition.EventSessionStart {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			}
		})
	}
	s, err := composition.Connect(ctx, composition.Stdio(bin), named("first"), composition.WithEvents(nil), named("second"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ",") != "first,second" {
		t.Errorf("EventSessionStart reached %q; want first,second", order)
	}
}
