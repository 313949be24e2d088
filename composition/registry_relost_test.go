//go:build unix

package composition_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// loss says how the test server is lost at one attempt of a call.
type loss int

const (
	// lostBeforeSent kills the server and waits until the session knows
	// it is lost (Session.Done) before the request is sent: the attempt
	// fails as not sent.
	lostBeforeSent loss = iota
	// lostInFlight stops the server (SIGSTOP), lets the request go out,
	// waits until it is in the server's stdin pipe, then kills the server
	// (SIGKILL): the attempt fails as sent, so it may have run.
	lostInFlight
)

func (l loss) String() string {
	if l == lostBeforeSent {
		return "not sent"
	}
	return "sent"
}

// TestRegistryRetriedCallLostAgain checks what a *CallLostError says when a
// call through Registry.Server was lost, sent again on a new session, and
// lost again: it may have run when either attempt may have reached the
// server, and certainly did not run when neither did. Composition's test
// server runs over stdio, and an interceptor holds every attempt just
// before its request is sent, while the test loses the server: killed and
// noticed (Session.Done) before the request is written, or killed with the
// request in its stdin pipe. The first attempt's fate is also read from the
// registry's log ("mcp call sent again after reconnect" with mayHaveRun), so
// that a case which did not lose the call as planned fails as such.
func TestRegistryRetriedCallLostAgain(t *testing.T) {
	bin := testenv.Build(t, "./testservers/testserver") // before the bound: a cold build cache takes a minute under load
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	wrapper, pid := testenv.PIDWrapped(t, bin)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	defer func() {
		if t.Failed() {
			t.Logf("registry log:\n%s", logs.String())
		}
	}()

	// Every attempt offers a channel on sending and sends its request
	// once the test closes it.
	sending := make(chan chan struct{})
	hold := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		send := make(chan struct{})
		select {
		case sending <- send:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case <-send:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return next(ctx, c)
	}
	const id = "testserver"
	reg := composition.NewRegistry(composition.WithLogger(logger), composition.WithBackoff(10*time.Millisecond, time.Second))
	defer reg.Close()
	if err := reg.Add(id, composition.Stdio(wrapper[0], wrapper[1:]...), composition.WithInterceptor(hold)); err != nil {
		t.Fatal(err)
	}
	caller := reg.Server(id)
	// attempt waits for the next attempt to be about to send its request
	// and loses the server as l says.
	attempt := func(l loss) {
		t.Helper()
		var send chan struct{}
		select {
		case send = <-sending:
		case <-ctx.Done():
			t.Fatalf("no attempt to send the call: %v", ctx.Err())
		}
		p := pid()
		switch l {
		case lostBeforeSent:
			sess, err := reg.Session(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case <-sess.Done():
			case <-ctx.Done():
				t.Fatalf("the session did not notice the server's exit: %v", ctx.Err())
			}
			close(send)
		case lostInFlight:
			if err := syscall.Kill(p, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			waitStopped(t, p)
			close(send)
			waitStdinPending(t, p)
			if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	call := func(tool bindimpl.Tool) error { return callInteger(ctx, caller, tool) }
	connected := make(chan error, 1)
	go func() { connected <- call(bindimpl.Tool{Name: "integer"}) }()
	close(<-sending)
	if err := <-connected; err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		readOnly      bool
		first, second loss
		mayHaveRun    bool
	}{
		// Not sent, so sent again whatever the tool; the retry may have
		// run.
		{first: lostBeforeSent, second: lostInFlight, mayHaveRun: true},
		// Sent, but read-only, so sent again; the first attempt may have
		// run although the retry did not.
		{readOnly: true, first: lostInFlight, second: lostBeforeSent, mayHaveRun: true},
		// Neither attempt reached the server.
		{first: lostBeforeSent, second: lostBeforeSent, mayHaveRun: false},
	} {
		name := fmt.Sprintf("readOnly=%t/first %s/retry %s", tc.readOnly, tc.first, tc.second)
		logStart := len(logs.String())
		done := make(chan error, 1)
		go func() { done <- call(bindimpl.Tool{Name: "integer", ReadOnly: tc.readOnly}) }()
		attempt(tc.first)
		attempt(tc.second)
		err := <-done
		t.Logf("%s: %v", name, err)
		var lost *composition.CallLostError
		var last *composition.SessionLostError
		if !errors.As(err, &lost) || !errors.As(err, &last) {
			t.Errorf("%s: %v (%T), want a *CallLostError", name, err, err)
			continue
		}
		if !lost.Retried || lost.Reconnect != nil || lost.MayHaveRun != tc.mayHaveRun {
			t.Errorf("%s: Retried %t, Reconnect %v, MayHaveRun %t; want retried and MayHaveRun %t",
				name, lost.Retried, lost.Reconnect, lost.MayHaveRun, tc.mayHaveRun)
		}
		// The losses were those planned.
		if last.Sent != (tc.second == lostInFlight) {
			t.Errorf("%s: the retry was lost with Sent %t: %v", name, last.Sent, last)
		}
		if want, log := fmt.Sprintf("mayHaveRun=%t", tc.first == lostInFlight), logs.String()[logStart:]; !strings.Contains(log, want) {
			t.Errorf("%s: the log of the retry does not say %s:\n%s", name, want, log)
		}
		want := "did not run"
		if tc.mayHaveRun {
			want = "may or may not have run"
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "sent again after reconnecting") {
			t.Errorf("%s: message %q, want %q and the retry", name, err, want)
		}
	}
}
