package composition_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// TestStreamableHTTPForwardsLargeResult: a composing server served by
// composition.StreamableHTTPHandler over real streamable HTTP on loopback,
// whose tool "fwd" returns what its downstream's (testservers/hostileserver
// over stdio) tool "big" returned, forwards a large result so that its
// client gets the downstream's content blocks and structuredContent byte
// for byte and its isError, in both protocol eras, answered as one JSON
// body and, when the handler first sends a notification, as an SSE stream.
func TestStreamableHTTPForwardsLargeResult(t *testing.T) {
	const n = 3 << 20
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	down, want := largeResultDownstream(ctx, t, n)
	for _, version := range []string{composition.ModernProtocolVersion, "2025-06-18"} {
		for _, sse := range []bool{false, true} {
			t.Run(fmt.Sprintf("version=%s/sse=%v", version, sse), func(t *testing.T) {
				srv := server.NewMCPServer("fwd", "1", server.WithToolCapabilities(false))
				fwd := bindimpl.HandleNoArgs(bindimpl.Tool{Name: "fwd"}, `{"name":"fwd","inputSchema":{"type":"object"}}`,
					func(ctx context.Context) (*composition.Result, error) {
						if sse {
							// A notification before the result makes mcp-go answer as an SSE stream.
							err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message",
								map[string]any{"level": "info", "data": "forwarding"})
							if err != nil {
								return nil, err
							}
						}
						return down.CallResult(ctx, "big", nil)
					})
				if err := composition.Serve(srv, []composition.ServedTool{fwd}); err != nil {
					t.Fatal(err)
				}
				var types contentTypes
				hs := httptest.NewServer(types.observe(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv))))
				defer hs.Close()
				client, err := composition.Connect(ctx, composition.HTTP(hs.URL), composition.WithProtocolVersion(version))
				if err != nil {
					t.Fatal(err)
				}
				defer client.Close()
				got, err := errorResult(client.CallResult(ctx, "fwd", nil))
				if err != nil {
					t.Fatalf("%.200v", err)
				}
				sameResult(t, got, want, n)
				if streamed := types.seen("text/event-stream"); streamed != sse {
					t.Errorf("answered as an SSE stream: %v, want %v (content types %q)", streamed, sse, types.list())
				}
			})
		}
	}
}

// largeResultDownstream connects to largeResultServer(t, n) over stdio
// with opts (closed when t ends) and returns the session with the result
// its tool "big" returns when called directly.
func largeResultDownstream(ctx context.Context, t *testing.T, n int, opts ...composition.Option) (*composition.Session, *composition.Result) {
	t.Helper()
	hostileBin, env := largeResultServer(t, n)
	down, err := composition.Connect(ctx, composition.Stdio(hostileBin), append(opts, env)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down.Close() })
	want, err := errorResult(down.CallResult(ctx, "big", nil))
	if err != nil {
		t.Fatalf("%.200v", err)
	}
	return down, want
}

// contentTypes records the Content-Type of every response of a handler.
type contentTypes struct {
	mu    sync.Mutex
	types []string
}

// observe returns h, recording its responses' content types.
func (c *contentTypes) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.types = append(c.types, w.Header().Get("Content-Type"))
	})
}

// seen reports whether a response had content type ct.
func (c *contentTypes) seen(ct string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.types {
		if strings.HasPrefix(t, ct) {
			return true
		}
	}
	return false
}

// list returns the content types recorded.
func (c *contentTypes) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.types...)
}

// TestStreamableHTTPDoesNotCopyResult: answering a tools/call over
// streamable HTTP whose handler returns a *Result of 16 MiB (as a
// forwarding handler does) allocates far less than the result's size in
// the process (server and client): the bytes are written as they are,
// not marshalled again (mcp-go's StreamableHTTPServer alone allocates
// several times the result). The bytes allocated are counted by
// runtime.MemStats, not timed.
func TestStreamableHTTPDoesNotCopyResult(t *testing.T) {
	const n = 8 << 20
	srv := server.NewMCPServer("copy-test", "1", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, []composition.ServedTool{bigResultTool(n, "y")}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv)))
	defer hs.Close()
	post := httpPoster(t, hs)
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fwd"}}`
	post(call) // once before measuring: first-use allocations (pools, maps, connections) are not counted

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	size, head, tail := post(strings.Replace(call, `"id":2`, `"id":3`, 1))
	runtime.ReadMemStats(&after)

	checkUncopied(t, n, size, head, tail, after.TotalAlloc-before.TotalAlloc)
}

// httpPoster returns a function that posts one message to the streamable
// HTTP server hs (protocol version 2025-06-18, in the session that an
// initialize answer named) and reads the answer without keeping it,
// returning its size, first 128 bytes and last 64.
func httpPoster(tb testing.TB, hs *httptest.Server) func(body string) (int, string, string) {
	sessionID := ""
	return func(body string) (int, string, string) {
		tb.Helper()
		req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if sessionID != "" {
			req.Header.Set(server.HeaderKeySessionID, sessionID)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		defer resp.Body.Close()
		if id := resp.Header.Get(server.HeaderKeySessionID); id != "" {
			sessionID = id
		}
		size, head, tail, err := answerShape(bufio.NewReaderSize(resp.Body, 64<<10))
		if err != nil && err != io.EOF {
			tb.Fatalf("reading the answer: %v", err)
		}
		if resp.StatusCode/100 != 2 {
			tb.Fatalf("%s answered %s: %s", body, resp.Status, head)
		}
		return size, head, tail
	}
}

// BenchmarkStreamableHTTPLargeResult answers a tools/call whose handler
// returns a *Result of 2 MiB (a 1 MiB text block and a 1 MiB
// structuredContent, as bytes: what a forwarding handler returns) over
// loopback HTTP, served by composition.StreamableHTTPHandler and by
// mcp-go's StreamableHTTPServer alone: B/op is what the process (server
// and client) allocates per answer (issue 16; peak RSS is measured with
// testservers/memdriver -http).
func BenchmarkStreamableHTTPLargeResult(b *testing.B) {
	const n = 1 << 20
	for _, name := range []string{"composition.StreamableHTTPHandler", "mcp-go"} {
		b.Run(name, func(b *testing.B) {
			srv := server.NewMCPServer("bench", "1", server.WithToolCapabilities(false))
			if err := composition.Serve(srv, []composition.ServedTool{bigResultTool(n, "z")}); err != nil {
				b.Fatal(err)
			}
			var h http.Handler = server.NewStreamableHTTPServer(srv)
			if name != "mcp-go" {
				h = composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv))
			}
			hs := httptest.NewServer(h)
			defer hs.Close()
			post := httpPoster(b, hs)
			post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
			b.ReportAllocs()
			b.SetBytes(2 * n)
			for b.Loop() {
				if size, _, _ := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fwd"}}`); size < 2*n {
					b.Fatalf("answer of %d bytes", size)
				}
			}
		})
	}
}

// TestStreamableHTTPPlainResult: a tool result that is not a forwarded
// *Result (here an mcp-go tool's) goes through StreamableHTTPHandler as
// mcp-go writes it, and a downstream's text that looks like a placeholder
// reaches the client as it is.
func TestStreamableHTTPPlainResult(t *testing.T) {
	const text = `"mcpbind-held-00000000000000000000000000000000-0" <&>`
	srv := server.NewMCPServer("plain", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(text), nil
	})
	hs := httptest.NewServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv)))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := composition.Connect(ctx, composition.HTTP(hs.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	res, err := client.CallResult(ctx, "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != text {
		t.Errorf("got %+v, want one text block %q", res.Content, text)
	}
}
