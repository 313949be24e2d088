//go:build unix

package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestRegistryReconnect kills the sqlite-explorer process under a registry.
// The test learns the server's pid through a shell wrapper that writes it to
// a file and then execs the server (so the pid is the server's). To kill the
// server while a call is in flight, it stops the process (SIGSTOP), starts
// the call, waits until an interceptor sees it go out and its request is
// in the server's stdin pipe (stdio writes are made by a writer
// goroutine), then kills it
// (SIGKILL):
//   - a read-only call (count_rows) succeeds on a new session;
//   - a call of insert_row (neither read-only nor idempotent) fails with a
//     *CallLostError that says it may or may not have run;
//   - once a kill between calls is noticed (Session.Done), insert_row is
//     sent on a new session and succeeds;
//   - Status counts every reconnect and shows why the last session was
//     lost.
func TestRegistryReconnect(t *testing.T) {
	bin, args := testenv.SQLiteExplorerStdio(t)
	wrapper, pid := testenv.PIDWrapped(t, append([]string{bin}, args...)...)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	defer func() { t.Logf("registry log:\n%s", logs.String()) }()

	started := make(chan string, 8)
	notify := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		select {
		case started <- c.Tool:
		default:
		}
		return next(ctx, c)
	}
	reg := composition.NewRegistry(composition.WithLogger(logger), composition.WithBackoff(20*time.Millisecond, time.Second))
	defer reg.Close()
	if err := reg.Add("sqlite-explorer", composition.Stdio(wrapper[0], wrapper[1:]...), composition.WithInterceptor(notify)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	db := sqliteexplorer.FromRegistry(reg)
	countBooks := func() (int64, error) {
		return db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "books"})
	}
	if n, err := countBooks(); err != nil || n != 24 {
		t.Fatalf("count_rows = %d, %v", n, err)
	}
	drain := func() {
		for {
			select {
			case <-started:
			default:
				return
			}
		}
	}
	// killDuring runs call with the server stopped, kills the server once
	// the call has gone out, and returns the call's error.
	killDuring := func(call func() error) error {
		t.Helper()
		p := pid()
		drain()
		if err := syscall.Kill(p, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		waitStopped(t, p)
		done := make(chan error, 1)
		go func() { done <- call() }()
		<-started
		waitStdinPending(t, p)
		if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		return <-done
	}
	status := func() composition.ServerStatus {
		st := reg.Status()
		if len(st) != 1 {
			t.Fatalf("status %+v", st)
		}
		t.Logf("status: %+v", st[0])
		return st[0]
	}

	// A read-only call in flight is sent again on a new session.
	first := pid()
	var n int64
	err := killDuring(func() (err error) {
		n, err = countBooks()
		return err
	})
	if err != nil || n != 24 {
		t.Fatalf("read-only call across a kill: %d, %v; want 24 after reconnecting", n, err)
	}
	if pid() == first {
		t.Fatal("the server was not started again")
	}
	if st := status(); st.Reconnects != 1 || st.State != composition.StateConnected || !strings.Contains(st.LastError, "exited") {
		t.Errorf("after the first kill: %+v, want 1 reconnect and the exit as last error", st)
	}

	// A call that is neither read-only nor idempotent is not sent again.
	err = killDuring(func() error {
		_, err := db.InsertRow(ctx, sqliteexplorer.InsertRowArgs{Table: "authors", Values: map[string]json.RawMessage{"name": json.RawMessage(`"Registry Test"`)}})
		return err
	})
	t.Logf("insert_row across a kill: %v", err)
	var lost *composition.CallLostError
	if !errors.Is(err, composition.ErrSessionLost) || !errors.As(err, &lost) || !lost.MayHaveRun || lost.Retried {
		t.Fatalf("insert_row across a kill: %v (%T), want a CallLostError that may have run", err, err)
	}
	if !strings.Contains(err.Error(), "may or may not have run") || !strings.Contains(err.Error(), "neither read-only nor idempotent") {
		t.Errorf("message: %v", err)
	}

	// The next read-only call reconnects.
	if n, err := countBooks(); err != nil || n != 24 {
		t.Fatalf("count_rows after the second kill: %d, %v", n, err)
	}
	if st := status(); st.Reconnects != 2 || st.State != composition.StateConnected {
		t.Errorf("after the second kill: %+v, want 2 reconnects", st)
	}

	// Killed between calls: nothing was in flight, so insert_row runs on
	// the new session.
	third := pid()
	sess, err := reg.Session(ctx, "sqlite-explorer")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(third, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-sess.Done() // the loss is known before the call
	ins, err := db.InsertRow(ctx, sqliteexplorer.InsertRowArgs{Table: "authors", Values: map[string]json.RawMessage{"name": json.RawMessage(`"After Kill"`)}})
	if err != nil || ins == nil {
		t.Fatalf("insert_row after a kill between calls: %+v, %v", ins, err)
	}
	if st := status(); st.Reconnects != 3 || pid() == third {
		t.Errorf("after the third kill: %+v, want 3 reconnects", st)
	}
	if err := reg.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if st := status(); st.State != composition.StateClosed {
		t.Errorf("after Close: %+v", st)
	}
	if _, err := db.ListTables(ctx); !errors.Is(err, composition.ErrRegistryClosed) {
		t.Errorf("call after Close: %v", err)
	}
}
