package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// restartableHandler serves the current streamable HTTP server (stateful:
// it answers 404 for a session id it did not issue); restart replaces it
// with a new one, which knows none of the old sessions — what a client sees
// when the server process behind a URL restarts.
type restartableHandler struct {
	mu  sync.Mutex
	srv *server.MCPServer
	cur http.Handler
}

func (h *restartableHandler) restart() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur = server.NewStreamableHTTPServer(h.srv, server.WithStateful(true))
}

func (h *restartableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	cur := h.cur
	h.mu.Unlock()
	cur.ServeHTTP(w, r)
}

// TestRegistryReconnectHTTP restarts the streamable HTTP server under a
// registry session at 2025-06-18 (a protocol with sessions): the next call
// gets HTTP 404 for its session id, which means it was not run, so even
// insert_row (neither read-only nor idempotent) is sent again on a new
// session and succeeds; Status counts the reconnect.
func TestRegistryReconnectHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	h := &restartableHandler{srv: explorerServer(t)}
	h.restart()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	reg := composition.NewRegistry(composition.WithBackoff(10*time.Millisecond, time.Second))
	defer reg.Close()
	if err := reg.Add("sqlite-explorer", composition.HTTP("http://"+ln.Addr().String()+"/mcp"), composition.WithProtocolVersion("2025-06-18")); err != nil {
		t.Fatal(err)
	}
	db := sqliteexplorer.FromRegistry(reg)
	if _, err := db.ListTables(ctx); err != nil {
		t.Fatal(err)
	}
	h.restart()
	res, err := db.InsertRow(ctx, sqliteexplorer.InsertRowArgs{Table: "authors", Values: map[string]json.RawMessage{"name": json.RawMessage(`"HTTP Restart"`)}})
	if err != nil || res == nil {
		t.Fatalf("insert_row after the server restarted: %+v, %v; want it sent again on a new session", res, err)
	}
	st := reg.Status()
	t.Logf("status: %+v", st)
	if len(st) != 1 || st[0].Reconnects != 1 || st[0].State != composition.StateConnected || st[0].LastError == "" {
		t.Errorf("status %+v, want one reconnect", st)
	}
	// A session already known lost is reconnected before the call.
	h.restart()
	sess, err := reg.Session(ctx, "sqlite-explorer")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallResult(ctx, "list_tables", nil); !errors.Is(err, composition.ErrSessionLost) {
		t.Fatalf("direct session call after a restart: %v, want ErrSessionLost", err)
	}
	if n, err := db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "authors"}); err != nil || n != 11 {
		t.Fatalf("count_rows = %d, %v; want 11 (10 seeded + 1)", n, err)
	}
	if st := reg.Status(); st[0].Reconnects != 2 {
		t.Errorf("status %+v, want two reconnects", st)
	}
}

// TestRegistryServerDown stops the HTTP server (connections refused): a
// call fails with a *CallLostError that says it did not run and carries the
// failed reconnect, Status says the server is reconnecting, and once the
// server listens again on the same address, the next call waits for the
// next attempt of the backoff loop and succeeds.
func TestRegistryServerDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	h := &restartableHandler{srv: explorerServer(t)}
	h.restart()
	serve := func(addr string) *http.Server {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		// No keep-alive: every request dials, so a stopped server refuses
		// it (a reused connection closed under a request ends in a bare EOF,
		// which the session does not take for a loss).
		hs.SetKeepAlivesEnabled(false)
		go func() { _ = hs.Serve(ln) }()
		hs.Addr = ln.Addr().String()
		return hs
	}
	hs := serve("127.0.0.1:0")
	logs := &syncBuffer{}
	reg := composition.NewRegistry(composition.WithBackoff(10*time.Millisecond, 200*time.Millisecond),
		composition.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	defer reg.Close()
	if err := reg.Add("sqlite-explorer", composition.HTTP("http://"+hs.Addr+"/mcp")); err != nil {
		t.Fatal(err)
	}
	db := sqliteexplorer.FromRegistry(reg)
	if _, err := db.ListTables(ctx); err != nil {
		t.Fatal(err)
	}
	_ = hs.Close()
	_, err := db.InsertRow(ctx, sqliteexplorer.InsertRowArgs{Table: "authors", Values: map[string]json.RawMessage{"name": json.RawMessage(`"Down"`)}})
	t.Logf("insert_row with the server down: %v", err)
	var lost *composition.CallLostError
	if !errors.As(err, &lost) || lost.MayHaveRun || lost.Reconnect == nil || !errors.Is(err, composition.ErrSessionLost) {
		t.Fatalf("got %v, want a CallLostError that did not run, with the reconnect's error", err)
	}
	if st := reg.Status(); st[0].State != composition.StateReconnecting || st[0].LastError == "" {
		t.Errorf("status with the server down: %+v", st)
	}
	hs = serve(hs.Addr)
	defer hs.Close()
	if n, err := db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "authors"}); err != nil || n != 10 {
		t.Fatalf("count_rows once the server is back: %d, %v (the insert must not have run)", n, err)
	}
	st := reg.Status()
	t.Logf("status: %+v\nlog:\n%s", st, logs.String())
	if st[0].State != composition.StateConnected || st[0].Reconnects != 1 {
		t.Errorf("status once the server is back: %+v", st)
	}
}
