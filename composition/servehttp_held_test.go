package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestStreamableHTTPHeldBudget: results a StreamableHTTPHandler holds
// until written are bounded by its held-results budget. Over real loopback
// HTTP (socket buffers made small so that a client that does not read
// keeps its result held), with a budget of 2.5 forwarded results (from
// testservers/hostileserver over stdio): two calls whose clients do not read
// yet hold their results, a third waits (seen by the budget's Waiting, not
// by time) and is answered once the first client reads; a fourth whose
// client goes away while it waits fails (with our error when it waited to
// hold); the budget's Peak never exceeds its capacity, and every result
// arrives whole. Shared: the downstream session reads through the same
// budget (WithResultBudget), so the third and fourth calls wait to read,
// not to hold, and nothing deadlocks.
func TestStreamableHTTPHeldBudget(t *testing.T) {
	const n = 512 << 10
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) { testHeldBudget(t, n, shared) })
	}
}

// testHeldBudget is TestStreamableHTTPHeldBudget for results of about 2n
// bytes, the budget shared with the downstream session or not.
func testHeldBudget(t *testing.T, n int, shared bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	down, want := largeResultDownstream(ctx, t, n)
	size := int64(len(want.StructuredContent)) // what one forwarded result holds
	for _, c := range want.Content {
		size += int64(len(c.Raw))
	}
	budget := composition.NewResultBudget(size * 5 / 2)
	if shared {
		// A read reserves the largest message: one result and its envelope.
		down, _ = largeResultDownstream(ctx, t, n, composition.WithResultBudget(budget),
			composition.WithMaxResponseBytes(size+64<<10))
	}
	hooks := &server.Hooks{}
	callErrs := make(chan error, 4)
	hooks.AddOnError(func(_ context.Context, _ any, method mcp.MCPMethod, _ any, err error) {
		if method == mcp.MethodToolsCall {
			callErrs <- err
		}
	})
	srv := server.NewMCPServer("fwd", "1", server.WithToolCapabilities(false), server.WithHooks(hooks))
	fwd := bindimpl.HandleNoArgs(bindimpl.Tool{Name: "fwd"}, `{"name":"fwd","inputSchema":{"type":"object"}}`,
		func(ctx context.Context) (*composition.Result, error) { return down.CallResult(ctx, "big", nil) })
	if err := composition.Serve(srv, []composition.ServedTool{fwd}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv),
		composition.WithHeldBudget(budget)))
	hs.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		smallBuffers(t, c, 16<<10)
		return ctx
	}
	hs.Start()
	defer hs.Close()
	defer cancel() // first: clients that never read go away, so that their requests end
	post := slowClient(t, hs.URL)

	session := post(ctx, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "")
	sessionID := session.Header.Get(server.HeaderKeySessionID)
	readAll(t, session)
	readAll(t, post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionID))
	call := func(ctx context.Context, id int) *http.Response {
		return post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fwd"}}`, id), sessionID)
	}

	// Answer headers come once the handler returned, so its result is held.
	first, second := call(ctx, 1), call(ctx, 2)
	third := make(chan *http.Response, 1)
	go func() { third <- call(ctx, 3) }()
	waitForWaiter(t, budget, third, "the third call waiting for room (two results held)")
	if peak := budget.Peak(); peak < 2*size || peak > budget.Capacity() {
		t.Errorf("budget peak %d with two results held, want %d to %d", peak, 2*size, budget.Capacity())
	}

	sameForwarded(t, readAll(t, first), want)
	held := <-third // the first request ended: room for the third
	if held == nil {
		t.Fatal("the third call was not answered once the first client had read its answer")
	}

	// A fourth call waits; its client goes away.
	fourthCtx, goAway := context.WithCancel(ctx)
	fourth := make(chan *http.Response, 1)
	go func() { fourth <- call(fourthCtx, 4) }()
	waitForWaiter(t, budget, fourth, "the fourth call waiting for room")
	goAway()
	if !shared {
		var err error
		select {
		case err = <-callErrs:
		case <-ctx.Done():
			t.Fatal("the fourth call, its client gone, did not fail")
		}
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "composition: no room to hold the tool's result") {
			t.Errorf("the fourth call failed with %v, want our error wrapping context.Canceled", err)
		}
	} // Shared, the fourth call waited to read: its session reads on once there is room.

	sameForwarded(t, readAll(t, second), want)
	sameForwarded(t, readAll(t, held), want)
	testenv.Poll(t, time.Minute, "nothing waiting for the budget", func() bool { return budget.Waiting() == 0 })
	sameForwarded(t, readAll(t, call(ctx, 5)), want)
	if peak := budget.Peak(); peak > budget.Capacity() {
		t.Errorf("budget peak %d over its capacity %d", peak, budget.Capacity())
	}
	select {
	case err := <-callErrs:
		t.Errorf("another call failed: %v", err)
	default:
	}
}

// waitForWaiter waits until one reservation waits on budget, failing at
// once if the call meant to wait is answered instead.
func waitForWaiter(t *testing.T, budget *composition.ResultBudget, answered <-chan *http.Response, what string) {
	t.Helper()
	testenv.Poll(t, time.Minute, what, func() bool {
		select {
		case resp := <-answered:
			t.Fatalf("answered (%v) instead of %s; budget peak %d of %d", resp.Status, what, budget.Peak(), budget.Capacity())
		default:
		}
		return budget.Waiting() == 1
	})
}

// smallBuffers makes c's kernel socket buffers small (size bytes; the
// kernel doubles it), so that a client that does not read stops the
// server's writes after some 200 KiB, not megabytes (a forwarded result
// here is 1 MiB).
func smallBuffers(t *testing.T, c net.Conn, size int) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		t.Errorf("connection %T is not TCP", c)
		return
	}
	if err := tc.SetReadBuffer(size); err != nil {
		t.Error(err)
	}
	if err := tc.SetWriteBuffer(size); err != nil {
		t.Error(err)
	}
}

// slowClient returns a function that posts one message to the streamable
// HTTP server at url (protocol version 2025-06-18, in session sessionID if
// not "") and returns the answer once its headers arrived, its body left
// unread, over a connection of its own with small socket buffers. When
// ctx ends first it returns nil.
func slowClient(t *testing.T, url string) func(ctx context.Context, body, sessionID string) *http.Response {
	client := &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil {
				smallBuffers(t, c, 64<<10)
			}
			return c, err
		},
	}}
	return func(ctx context.Context, body, sessionID string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return nil
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if sessionID != "" {
			req.Header.Set(server.HeaderKeySessionID, sessionID)
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("posting %.60s: %v", body, err)
			}
			return nil
		}
		if resp.StatusCode/100 != 2 {
			t.Errorf("posting %.60s: %s", body, resp.Status)
		}
		return resp
	}
}

// readAll reads and closes resp's body.
func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	if resp == nil {
		t.Fatal("no answer")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return body
}

// sameForwarded checks that body, a JSON-RPC answer to tools/call, holds
// want's content blocks and structuredContent byte for byte, and isError.
func sameForwarded(t *testing.T, body []byte, want *composition.Result) {
	t.Helper()
	var answer struct {
		Result struct {
			Content           []json.RawMessage `json:"content"`
			StructuredContent json.RawMessage   `json:"structuredContent"`
			IsError           bool              `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		t.Fatalf("answer %.200s: %v", body, err)
	}
	got := answer.Result
	if len(got.Content) != len(want.Content) {
		t.Fatalf("answer with %d content blocks, want %d: %.200s", len(got.Content), len(want.Content), body)
	}
	for i, c := range want.Content {
		if string(got.Content[i]) != string(c.Raw) {
			t.Errorf("content block %d differs: got %.80s…, want %.80s…", i, got.Content[i], c.Raw)
		}
	}
	if string(got.StructuredContent) != string(want.StructuredContent) || !got.IsError {
		t.Errorf("structuredContent (%d bytes, want %d) or isError (%v) differs", len(got.StructuredContent), len(want.StructuredContent), got.IsError)
	}
}

// TestStreamableHTTPHeldOversize: a forwarded result larger than the
// held-results budget is still answered, holding the whole budget alone
// (its reservation is capped at the capacity), and gives it back when its
// request ends, so the next such call is answered too.
func TestStreamableHTTPHeldOversize(t *testing.T) {
	const n = 1 << 20
	budget := composition.NewResultBudget(n / 2)
	srv := server.NewMCPServer("oversize", "1", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, []composition.ServedTool{bigResultTool(n, "o")}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv), composition.WithHeldBudget(budget)))
	defer hs.Close()
	post := httpPoster(t, hs)
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	for id := 1; id <= 2; id++ {
		if size, head, _ := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fwd"}}`, id)); size < 2*n {
			t.Fatalf("call %d answered with %d bytes: %s", id, size, head)
		}
	}
	if peak := budget.Peak(); peak != budget.Capacity() {
		t.Errorf("budget peak %d, want its capacity %d (one oversize result, alone)", peak, budget.Capacity())
	}
}
