package composition_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/testservers/sqlitestub"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// traceparent is the _meta entry the tests' clients send.
const traceparent = `"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`

// callLog records what server interceptors and handlers saw.
type callLog struct {
	mu       sync.Mutex
	calls    []composition.ServerCall // as the interceptor saw them
	answers  []composition.Answer     // the answers next returned
	incoming []composition.ServerCall // IncomingCall in handlers
	metas    []composition.Meta       // RequestMeta in handlers
}

// interceptor records each call and the answer of next.
func (l *callLog) interceptor() composition.ServerInterceptor {
	return func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
		a, err := next(ctx, call)
		l.mu.Lock()
		l.calls, l.answers = append(l.calls, call), append(l.answers, a)
		l.mu.Unlock()
		return a, err
	}
}

// handled records what a handler's ctx carries.
func (l *callLog) handled(ctx context.Context) {
	c, _ := composition.IncomingCall(ctx)
	l.mu.Lock()
	l.incoming, l.metas = append(l.incoming, c), append(l.metas, composition.RequestMeta(ctx))
	l.mu.Unlock()
}

// snapshot returns copies of what l holds.
func (l *callLog) snapshot() (calls []composition.ServerCall, answers []composition.Answer, incoming []composition.ServerCall, metas []composition.Meta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append(calls, l.calls...), append(answers, l.answers...), append(incoming, l.incoming...), append(metas, l.metas...)
}

// metaHandler is sqlite-explorer's generated-stub handler whose list_tables
// also records its ctx: a handler served by the generated Register.
type metaHandler struct {
	sqlitestub.Handler
	log *callLog
}

// ListTables records ctx and lists the tables.
func (h metaHandler) ListTables(ctx context.Context) ([]string, error) {
	h.log.handled(ctx)
	return h.Handler.ListTables(ctx)
}

// mcpgoTransport starts srv on one transport and returns an mcp-go client
// transport to it; the server stops with the test.
func mcpgoTransport(t *testing.T, name string, srv *server.MCPServer) transport.Interface {
	t.Helper()
	switch name {
	case composition.TransportInProcess:
		return transport.NewInProcessTransport(srv)
	case composition.TransportStreamableHTTP:
		hs := httptest.NewServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv)))
		t.Cleanup(hs.Close)
		tr, err := transport.NewStreamableHTTP(hs.URL)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	case composition.TransportSSE:
		sse := server.NewSSEServer(srv)
		hs := httptest.NewServer(sse)
		t.Cleanup(hs.Close)
		tr, err := transport.NewSSE(hs.URL + sse.CompleteSsePath())
		if err != nil {
			t.Fatal(err)
		}
		return tr
	case composition.TransportStdio:
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- composition.ServeStdio(ctx, srv, inR, outW); _ = outW.Close() }()
		t.Cleanup(func() {
			cancel()
			_ = inW.Close()
			<-done
		})
		return transport.NewIO(outR, inW, nil)
	}
	t.Fatalf("no transport %q", name)
	return nil
}

// rawClient is an mcp-go client (not composition's, which sends no _meta
// of a caller's yet) over tr at the protocol version.
func rawClient(t *testing.T, tr transport.Interface, version string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.NewClient(tr, client.WithProtocolVersion(version))
	if err := c.Start(t.Context()); err != nil { // the SSE stream lives as long as Start's ctx
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "servecall-test", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", res.ProtocolVersion, version)
	}
	return c
}

// callWithMeta calls tool with args and a _meta holding traceparent.
func callWithMeta(t *testing.T, c *client.Client, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	var tp string
	_ = json.Unmarshal([]byte(traceparent), &tp)
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": tp}}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// TestServerCallOverTransports: a server interceptor given to a generated
// Register sees each tools/call request as the client sent it (tool,
// _meta, protocol version, session id, JSON-RPC id, transport) over stdio
// (ServeStdio), Streamable HTTP, SSE and in process, in both protocol eras;
// the generated handler's ctx carries the same call (IncomingCall,
// RequestMeta); a tool error is an Answer with IsError.
func TestServerCallOverTransports(t *testing.T) {
	ctx := context.Background()
	store, err := explorer.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	for _, tr := range []string{composition.TransportStdio, composition.TransportStreamableHTTP, composition.TransportSSE, composition.TransportInProcess} {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			if tr == composition.TransportSSE && version == composition.ModernProtocolVersion {
				continue // HTTP+SSE is the 2024-11-05 transport: no 2026-07-28 session over it
			}
			t.Run(tr+"/"+version, func(t *testing.T) {
				log := &callLog{}
				srv, err := sqlitestub.NewServer(metaHandler{Handler: sqlitestub.Handler{Store: store}, log: log},
					composition.WithServerInterceptor(log.interceptor()))
				if err != nil {
					t.Fatal(err)
				}
				c := rawClient(t, mcpgoTransport(t, tr, srv), version)
				if res := callWithMeta(t, c, "list_tables", nil); res.IsError {
					t.Fatalf("list_tables: %v", res.Content)
				}
				if res := callWithMeta(t, c, "describe_table", map[string]any{"table": "no_such_table"}); !res.IsError {
					t.Fatalf("describe_table of no table answered without isError: %v", res.Content)
				}
				calls, answers, incoming, metas := log.snapshot()
				if len(calls) != 2 || len(incoming) != 1 {
					t.Fatalf("interceptor saw %d calls, handler %d; want 2 and 1", len(calls), len(incoming))
				}
				ids := map[string]bool{}
				for i, call := range calls {
					if got := string(call.Meta["traceparent"]); got != traceparent {
						t.Errorf("call %d: _meta traceparent %s, want %s (meta %v)", i, got, traceparent, call.Meta)
					}
					if call.ProtocolVersion != version || call.Transport != tr {
						t.Errorf("call %d: protocol version %q over %q, want %q over %q", i, call.ProtocolVersion, call.Transport, version, tr)
					}
					if want := c.GetSessionId(); want != "" && call.SessionID != want {
						t.Errorf("call %d: session id %q, want the client's %q", i, call.SessionID, want)
					}
					if n, err := strconv.ParseInt(call.RequestID, 10, 64); err != nil || n < 0 || ids[call.RequestID] {
						t.Errorf("call %d: request id %q, want a new number (mcp-go's client numbers its requests)", i, call.RequestID)
					}
					ids[call.RequestID] = true
				}
				if calls[0].Tool != "list_tables" || calls[1].Tool != "describe_table" {
					t.Errorf("tools %q, %q", calls[0].Tool, calls[1].Tool)
				}
				wire := tr == composition.TransportSSE || tr == composition.TransportStreamableHTTP && version < composition.ModernProtocolVersion
				if id := c.GetSessionId(); wire != (calls[0].SessionID != "") || id != "" && calls[0].SessionID != id {
					t.Errorf("session id %q over %s at %s, the client's %q: want the one the client sees on the wire (HTTP before 2026-07-28; mcp-go's SSE client does not show it), none elsewhere", calls[0].SessionID, tr, version, c.GetSessionId())
				}
				if answers[0].IsError || !answers[1].IsError {
					t.Errorf("answers' IsError: %v, %v; want false, true", answers[0].IsError, answers[1].IsError)
				}
				if fmt.Sprint(incoming[0]) != fmt.Sprint(calls[0]) {
					t.Errorf("handler's IncomingCall %+v, interceptor's call %+v", incoming[0], calls[0])
				}
				if got := string(metas[0]["traceparent"]); got != traceparent {
					t.Errorf("handler's RequestMeta traceparent %s, want %s", got, traceparent)
				}
			})
		}
	}
}

// TestOwnToolRequestMetaWithoutInterceptor: an own tool (NewTool) with no
// interceptor reads the _meta a client sent (RequestMeta), and a call
// without _meta reads nil.
func TestOwnToolRequestMetaWithoutInterceptor(t *testing.T) {
	log := &callLog{}
	type none struct{}
	tool := composition.NewTool[none, string]("whoami", "Says who calls.")
	srv := server.NewMCPServer("own", "0", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, []composition.ServedTool{tool.Serve(func(ctx context.Context, _ none) (string, error) {
		log.handled(ctx)
		return "you", nil
	})}); err != nil {
		t.Fatal(err)
	}
	c := rawClient(t, mcpgoTransport(t, composition.TransportInProcess, srv), "2025-06-18")
	callWithMeta(t, c, "whoami", map[string]any{})
	if _, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "whoami"}}); err != nil {
		t.Fatal(err)
	}
	_, _, incoming, metas := log.snapshot()
	if len(metas) != 2 || string(metas[0]["traceparent"]) != traceparent || metas[1] != nil {
		t.Fatalf("own tool's RequestMeta: %v; want traceparent, then nil", metas)
	}
	if incoming[0].Tool != "whoami" || incoming[0].Transport != composition.TransportInProcess || incoming[0].RequestID != "" {
		t.Errorf("own tool's IncomingCall %+v: want whoami, in-process, no request id (no interceptor, no hook)", incoming[0])
	}
}

// TestServerInterceptorReplacesAnswer: what an interceptor returns instead
// of next's answer is what the client gets, for a generated tool and for a
// plain mcp-go tool under ToolMiddleware; interceptors run first-added
// outermost.
func TestServerInterceptorReplacesAnswer(t *testing.T) {
	ctx := context.Background()
	store, err := explorer.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	var order []string
	var mu sync.Mutex
	mark := func(name string) composition.ServerInterceptor {
		return func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return next(ctx, call)
		}
	}
	refuse := func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
		a, err := next(ctx, call)
		if err != nil || call.Meta["traceparent"] == nil {
			return a, err
		}
		// changes next's answer rather than making a new one: the plain
		// tool's own result, which the answer still carries, is not sent
		a.IsError, a.Blocks, a.Text, a.Structured = true, nil, "refused by policy: "+call.Tool, nil
		return a, nil
	}
	// replaces a block of next's answer in place, in the answer's own array
	redact := func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
		a, err := next(ctx, call)
		if err == nil && call.Tool == "secret" && len(a.Blocks) == 1 {
			a.Blocks[0] = json.RawMessage(`{"type":"text","text":"[redacted]"}`)
		}
		return a, err
	}
	srv := server.NewMCPServer("replace", "0", server.WithToolCapabilities(false),
		server.WithToolHandlerMiddleware(composition.ToolMiddleware(refuse, redact)))
	srv.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("plain answer"), nil
	})
	srv.AddTool(mcp.NewTool("secret"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("s3cret"), nil
	})
	gen, err := sqlitestub.NewServer(sqlitestub.Handler{Store: store}, composition.WithServerInterceptor(mark("outer")),
		composition.WithServerInterceptor(mark("inner")), composition.WithServerInterceptor(refuse))
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*server.MCPServer{"plain": srv, "list_tables": gen} {
		c := rawClient(t, mcpgoTransport(t, composition.TransportInProcess, s), composition.ModernProtocolVersion)
		res := callWithMeta(t, c, name, nil)
		if text := res.Content[0].(mcp.TextContent).Text; !res.IsError || text != "refused by policy: "+name || res.StructuredContent != nil {
			t.Errorf("%s: client got isError %v, %q, structured %v; want the interceptor's answer", name, res.IsError, text, res.StructuredContent)
		}
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name}})
		if err != nil || res.IsError {
			t.Fatalf("%s without _meta: %v %v", name, err, res)
		}
	}
	c := rawClient(t, mcpgoTransport(t, composition.TransportInProcess, srv), "2025-06-18")
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "secret"}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != "[redacted]" {
		t.Errorf("secret: the client got %v %+v, not the block the interceptor put in place", err, res)
	}
	if strings.Join(order, ",") != "outer,inner,outer,inner" {
		t.Errorf("interceptors ran in the order %v, want outer,inner per call", order)
	}
}

// TestToolMiddleware: ToolMiddleware's interceptors wrap a plain mcp-go
// tool (seeing its isError, and the handler's own result reaching the
// client as it is) and a tool Serve added with the same interceptor, which
// then runs once per call, not twice; with ServerEvents on the server, the
// request id is known.
func TestToolMiddleware(t *testing.T) {
	log := &callLog{}
	srv := server.NewMCPServer("middleware", "0", server.WithToolCapabilities(false),
		server.WithToolHandlerMiddleware(composition.ToolMiddleware(log.interceptor())))
	composition.ServerEvents(srv, nil)
	srv.AddTool(mcp.NewTool("plain", mcp.WithString("fail")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		log.handled(ctx)
		if req.GetString("fail", "") != "" {
			return mcp.NewToolResultError("failed as asked"), nil
		}
		res := mcp.NewToolResultText("plain answer")
		res.Meta = mcp.NewMetaFromMap(map[string]any{"example.com/kept": true})
		return res, nil
	})
	type none struct{}
	own := composition.NewTool[none, string]("own", "An own tool.")
	if err := composition.Serve(srv, []composition.ServedTool{own.Serve(func(ctx context.Context, _ none) (string, error) {
		log.handled(ctx)
		return "own answer", nil
	})}, composition.WithServerInterceptor(log.interceptor())); err != nil {
		t.Fatal(err)
	}
	c := rawClient(t, mcpgoTransport(t, composition.TransportInProcess, srv), "2025-06-18")
	res := callWithMeta(t, c, "plain", map[string]any{})
	if res.IsError || res.Content[0].(mcp.TextContent).Text != "plain answer" || res.Meta == nil || res.Meta.AdditionalFields["example.com/kept"] != true {
		t.Errorf("plain tool's result reached the client as %+v", res)
	}
	if res := callWithMeta(t, c, "plain", map[string]any{"fail": "yes"}); !res.IsError {
		t.Errorf("plain tool's error result reached the client without isError: %+v", res)
	}
	if res := callWithMeta(t, c, "own", map[string]any{}); res.IsError || res.Content[0].(mcp.TextContent).Text != `{"result":"own answer"}` {
		t.Errorf("own tool's result reached the client as %+v", res)
	}
	calls, answers, incoming, metas := log.snapshot()
	if len(calls) != 3 {
		t.Fatalf("the interceptor ran %d times for 3 calls: %+v", len(calls), calls)
	}
	if answers[0].IsError || !answers[1].IsError || answers[2].IsError || string(answers[2].Structured) != `{"result":"own answer"}` ||
		answers[2].Blocks != nil || answers[2].Text != `{"result":"own answer"}` { // the Serve tool's own Answer, not one made again from its mcp-go result
		t.Errorf("answers seen: %+v", answers)
	}
	for i, call := range calls {
		if string(call.Meta["traceparent"]) != traceparent || call.RequestID == "" || call.Transport != composition.TransportInProcess {
			t.Errorf("call %d seen as %+v", i, call)
		}
		if string(metas[i]["traceparent"]) != traceparent || incoming[i].RequestID != call.RequestID {
			t.Errorf("handler %d's ctx carries %+v, meta %v", i, incoming[i], metas[i])
		}
	}
}

// TestServerEvents: ServerEvents reports the start and the end of each
// client session of an mcp-go server, with its transport and session id
// (and at the end the negotiated protocol version), over stdio, Streamable
// HTTP and in process; hooks the program set are kept.
func TestServerEvents(t *testing.T) {
	for _, tr := range []string{composition.TransportStdio, composition.TransportStreamableHTTP, composition.TransportInProcess} {
		t.Run(tr, func(t *testing.T) {
			events := make(chan composition.Event, 8)
			programs := make(chan string, 8)
			hooks := &server.Hooks{}
			hooks.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) { programs <- s.SessionID() })
			srv := server.NewMCPServer("events", "0", server.WithToolCapabilities(false), server.WithHooks(hooks))
			composition.ServerEvents(srv, func(_ context.Context, e composition.Event) { events <- e })
			c := rawClient(t, mcpgoTransport(t, tr, srv), "2025-06-18")
			start := testenv.Receive(t, 30*time.Second, events)
			wire := tr == composition.TransportStreamableHTTP || tr == composition.TransportSSE
			if start.Kind != composition.EventSessionStart || start.Peer.Transport != tr || wire != (start.Peer.SessionID != "") {
				t.Fatalf("first event %+v, want the session's start over %s, with its id where the client sees one (HTTP)", start, tr)
			}
			if id := c.GetSessionId(); id != "" && start.Peer.SessionID != id {
				t.Errorf("session id %q, the client's %q", start.Peer.SessionID, id)
			}
			if got := testenv.Receive(t, 30*time.Second, programs); wire && got != start.Peer.SessionID {
				t.Errorf("the program's hook saw session %q, the event %q", got, start.Peer.SessionID)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			end := testenv.Receive(t, 30*time.Second, events)
			if end.Kind != composition.EventSessionEnd || end.Peer.SessionID != start.Peer.SessionID || end.Peer.Transport != tr ||
				end.Peer.ProtocolVersion != "2025-06-18" || end.Duration <= 0 {
				t.Errorf("second event %+v, want the end of session %q at 2025-06-18 with its duration", end, start.Peer.SessionID)
			}
		})
	}
}
