package composition_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestServeStdioForwardsLargeResult: a composing server served by
// composition.ServeStdio over real stdio (testservers/memdriver
// -mode serve, whose tool "fwd" returns what its downstream's tool "big"
// returned) forwards a large result so that its client gets the
// downstream's content blocks byte for byte, its structuredContent byte for
// byte and its isError, in both protocol eras.
func TestServeStdioForwardsLargeResult(t *testing.T) {
	const n = 3 << 20
	hostileBin, env := largeResultServer(t, n)
	driver := testenv.Build(t, "./testservers/memdriver")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			direct, err := composition.Connect(ctx, composition.Stdio(hostileBin), env, composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			want, err := errorResult(direct.CallResult(ctx, "big", nil))
			if err != nil {
				t.Fatalf("%.200v", err)
			}
			fwd, err := composition.Connect(ctx, composition.Stdio(driver, "-mode", "serve", "-tool", "big", "--", hostileBin), env,
				composition.WithProtocolVersion(version), composition.WithStderr(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			defer fwd.Close()
			got, err := errorResult(fwd.CallResult(ctx, "fwd", nil))
			if err != nil {
				t.Fatalf("%.200v", err)
			}
			sameResult(t, got, want, n)
		})
	}
}

// largeResultServer builds testservers/hostileserver and returns it with the
// environment that makes its tool "big" return a result of about 2n bytes
// with isError: a text block of n bytes (with quotes, <>&, non-ASCII and a
// backslash), an image, a resource link, an embedded resource, and a
// structuredContent with a string of n bytes.
func largeResultServer(t *testing.T, n int) (string, composition.Option) {
	t.Helper()
	big := strings.Repeat("x", n)
	result := map[string]any{
		"content": []any{
			map[string]any{"type": "text", "text": big + ` "quoted" <tag> & é ✓ \ end`},
			map[string]any{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
			map[string]any{"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///b.txt", "text": "b"}},
		},
		"structuredContent": map[string]any{"blob": big, "n": 1.5, "list": []any{1, "two", nil, true}},
		"isError":           true,
	}
	hostileBin := testenv.Build(t, "./testservers/hostileserver")
	spec, err := json.Marshal(map[string]any{"serverInfo": map[string]string{"name": "hostile", "version": "1"},
		"tools": []any{map[string]any{"name": "big", "result": result}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	return hostileBin, composition.WithEnv("MCPBIND_HOSTILE_SPEC=" + path)
}

// sameResult checks that a forwarded result (got) has the downstream's
// (want, from largeResultServer) content blocks and structuredContent byte
// for byte, and isError.
func sameResult(t *testing.T, got, want *composition.Result, n int) {
	t.Helper()
	if len(want.Content) != 4 || len(want.Content[0].Text) < n {
		t.Fatalf("the downstream's result: %d blocks", len(want.Content))
	}
	if len(got.Content) != len(want.Content) {
		t.Fatalf("forwarded %d content blocks, want %d", len(got.Content), len(want.Content))
	}
	for i := range want.Content {
		if !bytes.Equal(got.Content[i].Raw, want.Content[i].Raw) {
			t.Errorf("content block %d differs: got %.80s…, want %.80s…", i, got.Content[i].Raw, want.Content[i].Raw)
		}
	}
	if !bytes.Equal(got.StructuredContent, want.StructuredContent) || len(want.StructuredContent) < n {
		t.Errorf("structuredContent differs: got %d bytes %.60s…, want %d bytes %.60s…",
			len(got.StructuredContent), got.StructuredContent, len(want.StructuredContent), want.StructuredContent)
	}
	if !got.IsError || !want.IsError {
		t.Errorf("isError: forwarded %v, downstream %v; want both true", got.IsError, want.IsError)
	}
}

// errorResult returns the result of a *ToolError (a result with isError),
// else res and err.
func errorResult(res *composition.Result, err error) (*composition.Result, error) {
	if te, ok := errors.AsType[*composition.ToolError](err); ok && te.Result != nil {
		return te.Result, nil
	}
	return res, err
}

// serveStdioPipes serves tools on srv with composition.ServeStdio over
// pipes, in the background: the test writes the client's lines to in and
// reads the answers from out; served gets ServeStdio's error once in is
// closed.
func serveStdioPipes(t *testing.T, srv *server.MCPServer, tools ...composition.ServedTool) (in *io.PipeWriter, out *io.PipeReader, served <-chan error) {
	t.Helper()
	if err := composition.Serve(srv, tools); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		done <- composition.ServeStdio(ctx, srv, inR, outW)
		_ = outW.Close()
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return inW, outR, done
}

// stdioClient reads ServeStdio's lines from outR; exchange writes a line
// to inW and returns the next line read.
func stdioClient(t *testing.T, inW io.Writer, outR io.Reader) (out *bufio.Scanner, exchange func(line string) string) {
	out = bufio.NewScanner(outR)
	out.Buffer(nil, 1<<20)
	return out, func(line string) string {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !out.Scan() {
			t.Fatalf("no answer to %s: %v", line, out.Err())
		}
		return out.Text()
	}
}

// bigResultTool is the tool "fwd", whose handler returns a *Result of 2n
// bytes as bytes, as a forwarding handler does: a text block of c repeated n
// times, and a structuredContent {"blob": the same text}.
func bigResultTool(n int, c string) composition.ServedTool {
	big := strings.Repeat(c, n)
	res := &composition.Result{
		Content:           []composition.Content{{Type: "text", Raw: json.RawMessage(`{"type":"text","text":"` + big + `"}`)}},
		StructuredContent: json.RawMessage(`{"blob":"` + big + `"}`),
	}
	return bindimpl.HandleNoArgs(bindimpl.Tool{Name: "fwd"}, `{"name":"fwd","inputSchema":{"type":"object"}}`,
		func(context.Context) (*composition.Result, error) { return res, nil })
}

// readAnswer reads one line from r without keeping it: each fragment is
// passed to seen (if not nil). It returns the line's size.
func readAnswer(r *bufio.Reader, seen func(frag []byte)) (int, error) {
	size := 0
	for {
		frag, err := r.ReadSlice('\n')
		size += len(frag)
		if seen != nil {
			seen(frag)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return size, err
		}
	}
}

// answerShape reads one line from r without keeping it, returning its
// size, its first 128 bytes and its last 64.
func answerShape(r *bufio.Reader) (size int, head, tail string, err error) {
	var h, tl []byte
	size, err = readAnswer(r, func(frag []byte) {
		if len(h) < 128 {
			h = append(h, frag[:min(len(frag), 128-len(h))]...)
		}
		tl = append(tl, frag[max(0, len(frag)-64):]...)
		tl = tl[max(0, len(tl)-64):]
	})
	return size, string(h), string(tl), err
}

// checkUncopied checks the answer (id 3) to a call of bigResultTool(n, "y")
// by its size, head and tail (answerShape), and that answering it
// allocated (alloc bytes) far less than the result's 2n bytes.
func checkUncopied(t *testing.T, n, size int, head, tail string, alloc uint64) {
	t.Helper()
	if want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"yyy`; !strings.HasPrefix(head, want) {
		t.Errorf("the answer starts %q, want %q", head, want)
	}
	if want := `yyy"}}}` + "\n"; !strings.HasSuffix(tail, want) || size < 2*n {
		t.Errorf("the answer is %d bytes ending %q, want more than %d ending %q", size, tail, 2*n, want)
	}
	t.Logf("answering a %d-byte result allocated %d bytes", 2*n, alloc)
	if alloc > uint64(n/4) {
		t.Errorf("answering a %d-byte result allocated %d bytes; want under %d (the result must not be copied)", 2*n, alloc, n/4)
	}
}

// TestServeStdioDoesNotCopyResult: answering a tools/call whose handler
// returns a *Result of 16 MiB (as a forwarding handler does) allocates far
// less than the result's size in the serving process: the bytes are
// written as they are, not marshalled again (mcp-go's StdioServer
// allocates about five times the result for the same answer). The bytes
// allocated are counted by runtime.MemStats, not timed.
func TestServeStdioDoesNotCopyResult(t *testing.T) {
	const n = 8 << 20
	srv := server.NewMCPServer("copy-test", "1", server.WithToolCapabilities(false))
	inW, outR, served := serveStdioPipes(t, srv, bigResultTool(n, "y"))
	out := bufio.NewReaderSize(outR, 64<<10)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	readLine := func() (int, string, string) {
		t.Helper()
		size, head, tail, err := answerShape(out)
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		return size, head, tail
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	readLine()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fwd"}}`
	send(call) // once before measuring: first-use allocations (pools, maps) are not counted
	readLine()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	send(strings.Replace(call, `"id":2`, `"id":3`, 1))
	size, head, tail := readLine()
	runtime.ReadMemStats(&after)

	checkUncopied(t, n, size, head, tail, after.TotalAlloc-before.TotalAlloc)
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestServeStdioSession: ServeStdio answers initialize, lists tools,
// forwards the server's notifications (tools/list_changed after a tool is
// added), answers a request that is not JSON with a parse error, and
// returns nil when stdin ends.
func TestServeStdioSession(t *testing.T) {
	srv := server.NewMCPServer("session-test", "1", server.WithToolCapabilities(true))
	inW, outR, served := serveStdioPipes(t, srv, bindimpl.HandleNoArgs(bindimpl.Tool{Name: "one"}, `{"name":"one","inputSchema":{"type":"object"}}`,
		func(context.Context) (*composition.Result, error) {
			return &composition.Result{Content: []composition.Content{{Type: "text", Text: "1"}}}, nil
		}))
	out, exchange := stdioClient(t, inW, outR)
	init := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !strings.Contains(init, `"serverInfo":{"name":"session-test"`) || !strings.Contains(init, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize: %s", init)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if list := exchange(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`); !strings.Contains(list, `"id":"a"`) || !strings.Contains(list, `"name":"one"`) {
		t.Errorf("tools/list: %s", list)
	}
	if call := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"one"}}`); call != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"1"}]}}` {
		t.Errorf("tools/call: %s", call)
	}
	if bad := exchange(`{not json`); !strings.Contains(bad, fmt.Sprintf(`"code":%d`, -32700)) || !strings.Contains(bad, `"id":null`) {
		t.Errorf("a line that is not JSON: %s", bad)
	}
	srv.AddTool(mcp.NewTool("two"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("2"), nil
	})
	if !out.Scan() || !strings.Contains(out.Text(), `"method":"notifications/tools/list_changed"`) {
		t.Errorf("after AddTool: %q %v", out.Text(), out.Err())
	}
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio at the end of stdin: %v", err)
	}
}

// TestServeStdioServerRequests: a handler's sampling and roots requests
// (protocol versions before 2026-07-28) reach the client through
// ServeStdio, and the client's answers — a result, or a JSON-RPC error —
// reach the handler.
func TestServeStdioServerRequests(t *testing.T) {
	srv := server.NewMCPServer("requests-test", "1", server.WithToolCapabilities(false))
	srv.EnableSampling()
	text := func(s string) *composition.Result {
		return &composition.Result{Content: []composition.Content{{Type: "text", Text: s}}}
	}
	inW, outR, served := serveStdioPipes(t, srv,
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "ask"}, `{"name":"ask","inputSchema":{"type":"object"}}`,
			func(ctx context.Context) (*composition.Result, error) {
				res, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
					Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("question")}}, MaxTokens: 5}})
				if err != nil {
					return nil, err
				}
				tc, _ := res.Content.(mcp.TextContent)
				return text("model " + res.Model + " said " + tc.Text), nil
			}),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "roots"}, `{"name":"roots","inputSchema":{"type":"object"}}`,
			func(ctx context.Context) (*composition.Result, error) {
				res, err := srv.RequestRoots(ctx, mcp.ListRootsRequest{})
				if err != nil {
					return nil, err
				}
				return text(fmt.Sprint(len(res.Roots), " roots")), nil
			}))
	out := bufio.NewScanner(outR)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// next reads the next line and decodes its id and method.
	next := func() (string, json.RawMessage, string) {
		t.Helper()
		if !out.Scan() {
			t.Fatalf("no line: %v", out.Err())
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", out.Text(), err)
		}
		return out.Text(), m.ID, m.Method
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	line, id, method := next()
	if method != "sampling/createMessage" || !strings.Contains(line, `"question"`) {
		t.Fatalf("want the sampling request, got %s", line)
	}
	send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":{"type":"text","text":"42"},"model":"m1"}}`)
	if line, _, _ := next(); line != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"model m1 said 42"}]}}` {
		t.Errorf("tools/call ask: %s", line)
	}

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roots"}}`)
	line, id, method = next()
	if method != "roots/list" {
		t.Fatalf("want the roots request, got %s", line)
	}
	send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32601,"message":"no roots here"}}`)
	if line, _, _ := next(); !strings.Contains(line, `"isError":true`) || !strings.Contains(line, `-32601`) || !strings.Contains(line, `no roots here`) {
		t.Errorf("tools/call roots answered with an error: %s", line)
	}

	// A sampling answer mcp-go cannot parse: its error names the client's
	// content type, which reaches the handler escaped.
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask"}}`)
	line, id, method = next()
	if method != "sampling/createMessage" {
		t.Fatalf("want the sampling request, got %s", line)
	}
	send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":{"type":"evil\u202e\u001b[2J"},"model":"m1"}}`)
	if line, _, _ := next(); !strings.Contains(line, `"isError":true`) || !strings.Contains(line, `evil\\u202e\\u001b[2J`) || strings.Contains(line, "\u202e") {
		t.Errorf("tools/call ask answered with a content type mcp-go rejects: %s, want it escaped", line)
	}
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestServeStdioPanic: a handler that panics is answered with an internal
// error carrying the request's id, and ServeStdio goes on serving.
func TestServeStdioPanic(t *testing.T) {
	srv := server.NewMCPServer("panic-test", "1", server.WithToolCapabilities(false))
	inW, outR, served := serveStdioPipes(t, srv,
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "boom"}, `{"name":"boom","inputSchema":{"type":"object"}}`,
			func(context.Context) (*composition.Result, error) { panic("boom") }))
	_, exchange := stdioClient(t, inW, outR)
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := exchange(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"boom"}}`); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"p","error":{"code":-32603,`) {
		t.Errorf("a panicking handler: %s", got)
	}
	if got := exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("ping after the panic: %s", got)
	}
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestServeStdioClientNotReading: a client that stops reading its stdout
// (while the composing server has answers of 10 MiB to write, more than
// its write queue holds) holds no handler past its context: a handler's
// sampling request to the client returns when the handler's context ends,
// and ServeStdio returns when its own context ends, with pings still
// arriving, rather than waiting on the pipe.
func TestServeStdioClientNotReading(t *testing.T) {
	srv := server.NewMCPServer("stuck-client-test", "1", server.WithToolCapabilities(false))
	srv.EnableSampling()
	asking := make(chan context.CancelFunc)
	asked := make(chan error, 1)
	tools := []composition.ServedTool{bigResultTool(5<<20, "x"),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "ask"}, `{"name":"ask","inputSchema":{"type":"object"}}`,
			func(ctx context.Context) (*composition.Result, error) {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				asking <- cancel
				_, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
					Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("question")}}, MaxTokens: 5}})
				asked <- err
				return nil, err
			})}
	if err := composition.Serve(srv, tools); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer inW.Close()
	defer outR.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- composition.ServeStdio(ctx, srv, inR, outW) }()
	_, exchange := stdioClient(t, inW, outR)
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// From here on the client reads nothing: one answer blocks the
	// writing, the next fills the queue.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fwd"}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fwd"}}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask"}}`)
	(<-asking)()
	if err := <-asked; !errors.Is(err, context.Canceled) {
		t.Errorf("the sampling request of a handler whose context ended: %v, want context.Canceled", err)
	}
	pinging := make(chan struct{})
	go func() {
		defer close(pinging)
		for i := 5; ; i++ {
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i); err != nil {
				return
			}
		}
	}()
	cancel()
	if err := <-served; !errors.Is(err, context.Canceled) {
		t.Errorf("ServeStdio after its context ended: %v, want context.Canceled", err)
	}
	_ = inR.Close()
	<-pinging
}

// TestServeStdioAnswersBeforeEOF: a client that sends its requests and
// closes its end at once still reads every answer: ServeStdio returns at
// EOF only once the queued answers are written.
func TestServeStdioAnswersBeforeEOF(t *testing.T) {
	srv := server.NewMCPServer("eof-test", "1", server.WithToolCapabilities(false))
	inW, outR, served := serveStdioPipes(t, srv)
	go func() {
		lines := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
		for i := 2; i <= 20; i++ {
			lines += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		}
		_, _ = io.WriteString(inW, lines)
		_ = inW.Close()
	}()
	out := bufio.NewScanner(outR)
	ids := map[string]bool{}
	for out.Scan() {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", out.Text(), err)
		}
		ids[string(m.ID)] = true
	}
	if len(ids) != 20 {
		t.Errorf("answers to %d of the 20 requests before stdout ended: %v", len(ids), ids)
	}
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestServeStdioBusy: with 256 requests in flight (tools/call requests
// whose handlers wait), the next request is answered at once with error
// -32000 rather than read loop waiting (which could hold back the client's
// answers to the handlers' own requests); the held calls are answered
// once their handlers return.
func TestServeStdioBusy(t *testing.T) {
	srv := server.NewMCPServer("busy-test", "1", server.WithToolCapabilities(false))
	release := make(chan struct{})
	inW, outR, served := serveStdioPipes(t, srv,
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "hold"}, `{"name":"hold","inputSchema":{"type":"object"}}`,
			func(ctx context.Context) (*composition.Result, error) {
				<-release
				return &composition.Result{Content: []composition.Content{{Type: "text", Text: "done"}}}, nil
			}))
	out, exchange := stdioClient(t, inW, outR)
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	const held = 256
	var lines strings.Builder
	for i := range held {
		fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold"}}`+"\n", 100+i)
	}
	if _, err := io.WriteString(inW, lines.String()); err != nil {
		t.Fatal(err)
	}
	if got := exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,`) || !strings.Contains(got, "too many requests in flight") {
		t.Errorf("a request beyond %d in flight: %s", held, got)
	}
	close(release)
	for range held {
		if !out.Scan() {
			t.Fatalf("an answer to a held call is missing: %v", out.Err())
		}
		if !strings.Contains(out.Text(), `"text":"done"`) {
			t.Errorf("a held call: %s", out.Text())
		}
	}
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}
