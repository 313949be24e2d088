//go:build unix

package composition_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestRegistryRetryRule checks the registry's rule for sending a call again
// after its session was lost — "when it was not sent, or the tool is
// read-only, or idempotent" — with one case per half of the rule, so that
// dropping any half fails a case. A call is in flight when composition's
// test server is killed (stopped with SIGSTOP until every thread is, the
// call goes out, and once its request is in the server's stdin pipe,
// SIGKILL: stopped threads cannot answer it first), for each of the four combinations of the readOnlyHint and
// idempotentHint annotations that a Tool carries: only the tool that is
// neither is not sent again, and fails with a *CallLostError that may have
// run. The other half, a call certainly not sent (HTTP 404 for its
// session) is sent again whatever its annotations, is
// TestRegistryReconnectHTTP's.
func TestRegistryRetryRule(t *testing.T) {
	bin := testenv.Build(t, "./testservers/testserver") // before the bound: a cold build cache takes a minute under load
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	wrapper, pid := testenv.PIDWrapped(t, bin)
	started := make(chan string, 8)
	notify := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		select {
		case started <- c.Tool:
		default:
		}
		return next(ctx, c)
	}
	reg := composition.NewRegistry(composition.WithBackoff(10*time.Millisecond, time.Second))
	defer reg.Close()
	if err := reg.Add("testserver", composition.Stdio(wrapper[0], wrapper[1:]...), composition.WithInterceptor(notify)); err != nil {
		t.Fatal(err)
	}
	caller := reg.Server("testserver")
	call := func(tool bindimpl.Tool) error { return callInteger(ctx, caller, tool) }
	if err := call(bindimpl.Tool{Name: "integer"}); err != nil {
		t.Fatal(err)
	}
	reconnects := 0
	for _, tc := range []struct {
		readOnly, idempotent bool
		retried              bool
	}{
		{readOnly: true, idempotent: true, retried: true},
		{readOnly: true, idempotent: false, retried: true},
		{readOnly: false, idempotent: true, retried: true},
		{readOnly: false, idempotent: false, retried: false},
	} {
		name := fmt.Sprintf("sent/readOnly=%t/idempotent=%t", tc.readOnly, tc.idempotent)
		tool := bindimpl.Tool{Name: "integer", ReadOnly: tc.readOnly, Idempotent: tc.idempotent}
		p := pid()
		for len(started) > 0 {
			<-started
		}
		if err := syscall.Kill(p, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		waitStopped(t, p)
		done := make(chan error, 1)
		go func() { done <- call(tool) }()
		<-started
		waitStdinPending(t, p)
		if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := <-done
		t.Logf("%s: %v", name, err)
		var lost *composition.CallLostError
		switch {
		case tc.retried && err != nil:
			t.Errorf("%s: %v; want the call sent again on a new session", name, err)
		case !tc.retried && (!errors.As(err, &lost) || !lost.MayHaveRun || lost.Retried):
			t.Errorf("%s: %v (%T); want a *CallLostError that may have run and was not sent again", name, err, err)
		}
		if !tc.retried {
			// The next call reconnects.
			if err := call(bindimpl.Tool{Name: "integer"}); err != nil {
				t.Fatalf("after %s: %v", name, err)
			}
		}
		reconnects++
		if st := reg.Status(); len(st) != 1 || st[0].Reconnects != reconnects || pid() == p {
			t.Errorf("after %s: status %+v, want %d reconnects and a new process", name, st, reconnects)
		}
	}
}

// callInteger calls the test server's tool "integer" (which answers 42)
// through caller, with the annotations of tool.
func callInteger(ctx context.Context, caller composition.Caller, tool bindimpl.Tool) error {
	res, err := composition.CallRaw(ctx, caller, tool, nil)
	if err != nil {
		return err
	}
	if string(res.StructuredContent) != "42" {
		return fmt.Errorf("result %s, want 42", res.StructuredContent)
	}
	return nil
}
