package otelmcp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// LookupArgs are the arguments of the front server's tool lookup.
type LookupArgs struct {
	Key  string `json:"key"`
	Fail bool   `json:"fail,omitempty"`
}

// LookupResult is its result.
type LookupResult struct {
	Value string `json:"value"`
}

// lookupTool is the front server's own tool: it answers its key back, or
// fails (isError) when asked to.
var lookupTool = composition.NewTool[LookupArgs, LookupResult]("lookup", "Look a key up.")

// frontServer returns an mcp-go server serving lookup with r's
// ServerOption and ServerEvents; seen gets the span context of each
// handler's ctx.
func frontServer(t testing.TB, r *recorder, seen func(trace.SpanContext)) *server.MCPServer {
	t.Helper()
	srv := server.NewMCPServer("front", "1.0.0", server.WithToolCapabilities(false))
	composition.ServerEvents(srv, r.tel.ServerEvent)
	err := composition.Serve(srv, []composition.ServedTool{
		lookupTool.Serve(func(ctx context.Context, a LookupArgs) (LookupResult, error) {
			if seen != nil {
				seen(trace.SpanContextFromContext(ctx))
			}
			if a.Fail {
				return LookupResult{}, errors.New("no such key")
			}
			return LookupResult{Value: "v:" + a.Key}, nil
		}),
	}, r.tel.ServerOption())
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// restartable serves an mcp-go server over Streamable HTTP and can start
// it afresh (forgetting every session), as a restarted process would.
type restartable struct {
	mu  sync.Mutex
	srv *server.MCPServer
	cur http.Handler
}

// restart makes a new Streamable HTTP handler of the server: the old
// sessions are unknown to it (HTTP 404).
func (h *restartable) restart() {
	h.mu.Lock()
	h.cur = server.NewStreamableHTTPServer(h.srv, server.WithStateful(true))
	h.mu.Unlock()
}

// ServeHTTP serves r with the current handler.
func (h *restartable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	cur := h.cur
	h.mu.Unlock()
	cur.ServeHTTP(w, r)
}

// TestJoinedTrace: a composition client with ClientOption calls a
// composition server with ServerOption, in process and over Streamable
// HTTP, at 2025-11-25 and 2026-07-28. The CLIENT span is the child of the
// caller's span, the SERVER span the child of the CLIENT span in the same
// trace, the handler runs under the SERVER span, and both sides have the
// conventions' attributes for the transport (same request id on both);
// a tool error is tool_error on both sides, an unknown tool the JSON-RPC
// code -32602 on the client; both operation histograms count the calls.
func TestJoinedTrace(t *testing.T) {
	for _, version := range []string{"2025-11-25", composition.ModernProtocolVersion} {
		for _, transport := range []string{composition.TransportInProcess, composition.TransportStreamableHTTP} {
			t.Run(transport+"/"+version, func(t *testing.T) {
				joinedTrace(t, transport, version)
			})
		}
	}
}

func joinedTrace(t *testing.T, transport, version string) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := newRecorder(t)
	var mu sync.Mutex
	var inHandler []trace.SpanContext
	srv := frontServer(t, r, func(sc trace.SpanContext) { mu.Lock(); inHandler = append(inHandler, sc); mu.Unlock() })
	tr := composition.InProcess(srv)
	var port string
	if transport == composition.TransportStreamableHTTP {
		h := &restartable{srv: srv}
		h.restart()
		hs := httptest.NewServer(h)
		defer hs.Close()
		tr = composition.HTTP(hs.URL + "/mcp")
		port = hs.URL[len("http://127.0.0.1:"):]
	}
	s, err := composition.Connect(ctx, tr, composition.WithProtocolVersion(version), r.tel.ClientOption())
	if err != nil {
		t.Fatal(err)
	}
	callerCtx, caller := r.tp.Tracer("test").Start(ctx, "caller")
	if res, err := lookupTool.Call(callerCtx, s, LookupArgs{Key: "a"}); err != nil || res.Value != "v:a" {
		t.Fatalf("lookup: %+v, %v", res, err)
	}
	if _, err := lookupTool.Call(callerCtx, s, LookupArgs{Key: "b", Fail: true}); !errors.As(err, new(*composition.ToolError)) {
		t.Fatalf("failing lookup: %v, want a ToolError", err)
	}
	if _, err := s.CallResult(callerCtx, "no_such_tool", nil); !errors.As(err, new(*composition.RPCError)) {
		t.Fatalf("unknown tool: %v, want an RPCError", err)
	}
	caller.End()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	clientSpans, servers := r.sides(t, "tools/call lookup", 2)
	clientTransport := map[string]string{}
	serverTransport := map[string]string{}
	if transport == composition.TransportStreamableHTTP {
		clientTransport = map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "server.address": "127.0.0.1", "server.port": port}
		serverTransport = map[string]string{"network.transport": "tcp", "network.protocol.name": "http"}
	}
	for i, c := range clientSpans {
		sv := servers[i]
		if c.Parent().SpanID() != caller.SpanContext().SpanID() || c.SpanContext().TraceID() != caller.SpanContext().TraceID() {
			t.Errorf("client span %d: parent %v, want the caller %v", i, c.Parent().SpanID(), caller.SpanContext().SpanID())
		}
		if sv.Parent().SpanID() != c.SpanContext().SpanID() || sv.SpanContext().TraceID() != c.SpanContext().TraceID() {
			t.Errorf("server span %d: parent %v in trace %v, want the client span %v in %v", i, sv.Parent().SpanID(), sv.SpanContext().TraceID(), c.SpanContext().SpanID(), c.SpanContext().TraceID())
		}
		if mu.Lock(); i < len(inHandler) && inHandler[i].SpanID() != sv.SpanContext().SpanID() {
			t.Errorf("handler %d ran under %v, want the server span %v", i, inHandler[i].SpanID(), sv.SpanContext().SpanID())
		}
		mu.Unlock()
		ca, sa := attrs(c.Attributes()), attrs(sv.Attributes())
		if ca["jsonrpc.request.id"] == "" {
			t.Errorf("client span %d has no jsonrpc.request.id", i)
		}
		common := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "lookup", "gen_ai.operation.name": "execute_tool", "mcp.protocol.version": version}
		if i == 1 {
			common["error.type"] = "tool_error"
		}
		// A session id: over HTTP before 2026-07-28 (Mcp-Session-Id),
		// and the same on both sides.
		sessionID := ca["mcp.session.id"]
		if sessionID == "" && transport == composition.TransportStreamableHTTP && version != composition.ModernProtocolVersion {
			t.Errorf("client span %d: no mcp.session.id over HTTP at %s", i, version)
		}
		if sessionID != "" {
			common["mcp.session.id"] = sessionID
		}
		wantClient := with(common, "jsonrpc.request.id", ca["jsonrpc.request.id"])
		for k, v := range clientTransport {
			wantClient[k] = v
		}
		checkAttrs(t, "client span "+strconv.Itoa(i), c.Attributes(), wantClient)
		// The server's session id: the client's when it has one, else
		// the SDK's own (in process).
		wantServer := without(common, "mcp.session.id")
		if sid := sa["mcp.session.id"]; sid != "" {
			if sessionID != "" && sid != sessionID {
				t.Errorf("server span %d: session %q, want the client's %q", i, sid, sessionID)
			}
			wantServer["mcp.session.id"] = sid
		}
		if id := sa["jsonrpc.request.id"]; id != "" {
			if id != ca["jsonrpc.request.id"] {
				t.Errorf("server span %d: request id %q, want the client's %q", i, id, ca["jsonrpc.request.id"])
			}
			wantServer["jsonrpc.request.id"] = id
		}
		for k, v := range serverTransport {
			wantServer[k] = v
		}
		checkAttrs(t, "server span "+strconv.Itoa(i), sv.Attributes(), wantServer)
		if wantErr := i == 1; (c.Status().Code == codes.Error) != wantErr || (sv.Status().Code == codes.Error) != wantErr {
			t.Errorf("call %d: statuses %v / %v", i, c.Status(), sv.Status())
		}
	}
	unknown := r.one(t, "tools/call no_such_tool")
	if a := attrs(unknown.Attributes()); a["error.type"] != "-32602" || a["rpc.response.status_code"] != "-32602" || unknown.Status().Code != codes.Error || unknown.Status().Description == "" {
		t.Errorf("unknown tool: %v %+v, want error.type and status code -32602 and the message", a, unknown.Status())
	}
	var n uint64
	for _, dp := range r.histogram(t, "mcp.client.operation.duration").DataPoints {
		n += dp.Count
	}
	if n != 3 {
		t.Errorf("mcp.client.operation.duration counted %d calls, want 3", n)
	}
	n = 0
	for _, dp := range r.histogram(t, "mcp.server.operation.duration").DataPoints {
		n += dp.Count
	}
	if n != 2 {
		t.Errorf("mcp.server.operation.duration counted %d calls, want 2", n)
	}
	// A session's end is reported from a goroutine that waits for it.
	r.waitCount(t, "mcp.client.session.duration", func(attribute.Set) bool { return true })
	if dp := r.point(t, "mcp.client.session.duration"); dp.Count != 1 {
		t.Errorf("mcp.client.session.duration counted %d sessions, want 1", dp.Count)
	}
}

// TestClientStdio: a call over stdio to the sqlite-explorer process has
// network.transport pipe and no server address, at both eras; a tool
// error and an unknown tool are classified as over the other transports.
func TestClientStdio(t *testing.T) {
	command, args := testenv.SQLiteExplorerStdio(t)
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			r := newRecorder(t)
			s, err := composition.Connect(ctx, composition.Stdio(command, args...), composition.WithProtocolVersion(version), r.tel.ClientOption())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			db := sqliteexplorer.NewClient(s)
			if _, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: "books"}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: "no_such_table"}); err == nil {
				t.Fatal("describe_table of a missing table succeeded")
			}
			if _, err := s.CallResult(ctx, "no_such_tool", nil); err == nil {
				t.Fatal("unknown tool succeeded")
			}
			spans := r.ended("tools/call describe_table")
			if len(spans) != 2 {
				t.Fatalf("%d describe_table spans", len(spans))
			}
			want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "describe_table", "gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version": version, "network.transport": "pipe", "jsonrpc.request.id": attrs(spans[0].Attributes())["jsonrpc.request.id"]}
			if sid := attrs(spans[0].Attributes())["mcp.session.id"]; sid != "" {
				want["mcp.session.id"] = sid
			}
			if want["jsonrpc.request.id"] == "" {
				t.Error("no jsonrpc.request.id")
			}
			checkAttrs(t, "success", spans[0].Attributes(), want)
			if a := attrs(spans[1].Attributes()); a["error.type"] != "tool_error" {
				t.Errorf("missing table: error.type %q, want tool_error", a["error.type"])
			}
			if a := attrs(r.one(t, "tools/call no_such_tool").Attributes()); a["error.type"] != "-32602" || a["rpc.response.status_code"] != "-32602" {
				t.Errorf("unknown tool: %v", a)
			}
		})
	}
}

// TestRegistryLostSessionRetry: the front server restarts under a
// registry's HTTP session (2025-11-25, with sessions): the call's first
// attempt is a CLIENT span with error.type session_lost, the caller's span
// gets the reconnect and retry events, the second attempt's CLIENT span
// succeeds with the SERVER span as its child, and the lost session's life
// is in mcp.client.session.duration with error.type session_lost.
func TestRegistryLostSessionRetry(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := newRecorder(t)
	h := &restartable{srv: frontServer(t, r, nil)}
	h.restart()
	hs := httptest.NewServer(h)
	defer hs.Close()
	reg := composition.NewRegistry(composition.WithBackoff(10*time.Millisecond, time.Second), r.tel.ClientOption())
	defer reg.Close()
	if err := reg.Add("front", composition.HTTP(hs.URL+"/mcp"), composition.WithProtocolVersion("2025-11-25")); err != nil {
		t.Fatal(err)
	}
	caller := reg.Server("front")
	if _, err := lookupTool.Call(ctx, caller, LookupArgs{Key: "warm"}); err != nil {
		t.Fatal(err)
	}
	h.restart()
	callerCtx, span := r.tp.Tracer("test").Start(ctx, "caller")
	if res, err := lookupTool.Call(callerCtx, caller, LookupArgs{Key: "again"}); err != nil || res.Value != "v:again" {
		t.Fatalf("lookup after the restart: %+v, %v", res, err)
	}
	span.End()

	var attempts []sdktrace.ReadOnlySpan
	var served sdktrace.ReadOnlySpan
	for _, s := range r.ended("tools/call lookup") {
		switch {
		case s.SpanKind() == trace.SpanKindClient && s.Parent().SpanID() == span.SpanContext().SpanID():
			attempts = append(attempts, s)
		case s.SpanKind() == trace.SpanKindServer && s.SpanContext().TraceID() == span.SpanContext().TraceID():
			served = s
		}
	}
	if len(attempts) != 2 || served == nil {
		t.Fatalf("%d attempts under the caller and server span %v, want 2 and one", len(attempts), served)
	}
	if a := attrs(attempts[0].Attributes()); a["error.type"] != "session_lost" {
		t.Errorf("first attempt: error.type %q, want session_lost", a["error.type"])
	}
	if a := attrs(attempts[1].Attributes()); a["error.type"] != "" || attempts[1].Status().Code != codes.Unset {
		t.Errorf("second attempt: %v %v, want success", a, attempts[1].Status())
	}
	if served.Parent().SpanID() != attempts[1].SpanContext().SpanID() {
		t.Errorf("server span's parent %v, want the second attempt %v", served.Parent().SpanID(), attempts[1].SpanContext().SpanID())
	}
	var names []string
	for _, e := range r.one(t, "caller").Events() {
		names = append(names, e.Name)
		a := attrs(e.Attributes)
		if a["mcpbind.server.id"] != "front" || a["gen_ai.tool.name"] != "lookup" {
			t.Errorf("event %s: %v, want server front and tool lookup", e.Name, a)
		}
		if e.Name == "mcpbind.registry.retry" && a["mcpbind.call.may_have_run"] != "false" {
			t.Errorf("retry: may_have_run %q, want false (HTTP 404: not run)", a["mcpbind.call.may_have_run"])
		}
	}
	if len(names) != 2 || names[0] != "mcpbind.registry.reconnect" || names[1] != "mcpbind.registry.retry" {
		t.Errorf("caller's events %q, want reconnect then retry", names)
	}
	r.waitCount(t, "mcp.client.session.duration", func(a attribute.Set) bool {
		v, ok := a.Value("error.type")
		return ok && v.AsString() == "session_lost"
	})
}

// TestJoinedTraceGoSDK: the same joined trace with the official Go SDK on
// both sides (gosdk.NewSession with ClientOption, gosdk.Serve with
// gosdk.WithServerInterceptor and gosdk.ServerEvents) over go-sdk's
// in-memory transports, at both eras: the SERVER span is the child of the
// CLIENT span, both record the arguments (opted in), a tool error is
// tool_error on both sides, and the server
// session's end is in mcp.server.session.duration.
func TestJoinedTraceGoSDK(t *testing.T) {
	for _, version := range []string{"2025-11-25", composition.ModernProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			r := newRecorder(t, otelmcp.WithToolArguments())
			srv := mcp.NewServer(&mcp.Implementation{Name: "front", Version: "1.0.0"}, nil)
			gosdk.ServerEvents(srv, r.tel.ServerEvent)
			err := gosdk.Serve(srv, []composition.ServedTool{
				lookupTool.Serve(func(ctx context.Context, a LookupArgs) (LookupResult, error) {
					if a.Fail {
						return LookupResult{}, errors.New("no such key")
					}
					return LookupResult{Value: "v:" + a.Key}, nil
				}),
			}, gosdk.WithServerInterceptor(r.tel.ServerInterceptor()))
			if err != nil {
				t.Fatal(err)
			}
			ct, st := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, gosdk.Transport(ct), &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			s, err := gosdk.NewSession(ctx, cs, r.tel.ClientOption())
			if err != nil {
				t.Fatal(err)
			}
			callerCtx, caller := r.tp.Tracer("test").Start(ctx, "caller")
			if res, err := lookupTool.Call(callerCtx, s, LookupArgs{Key: "a"}); err != nil || res.Value != "v:a" {
				t.Fatalf("lookup: %+v, %v", res, err)
			}
			if _, err := lookupTool.Call(callerCtx, s, LookupArgs{Key: "b", Fail: true}); !errors.As(err, new(*composition.ToolError)) {
				t.Fatalf("failing lookup: %v, want a ToolError", err)
			}
			caller.End()
			_ = s.Close()
			_ = ss.Wait()

			clients, servers := r.sides(t, "tools/call lookup", 2)
			for i := range clients {
				c, sv := clients[i], servers[i]
				if c.Parent().SpanID() != caller.SpanContext().SpanID() || sv.Parent().SpanID() != c.SpanContext().SpanID() || sv.SpanContext().TraceID() != caller.SpanContext().TraceID() {
					t.Errorf("call %d: client parent %v, server parent %v; want caller %v → client %v", i, c.Parent().SpanID(), sv.Parent().SpanID(), caller.SpanContext().SpanID(), c.SpanContext().SpanID())
				}
				for side, sp := range map[string]sdktrace.ReadOnlySpan{"client": c, "server": sv} {
					a := attrs(sp.Attributes())
					if a["mcp.method.name"] != "tools/call" || a["gen_ai.tool.name"] != "lookup" || a["mcp.protocol.version"] != version {
						t.Errorf("call %d %s: %v", i, side, a)
					}
					if want := map[bool]string{true: `{"fail":true,"key":"b"}`, false: `{"key":"a"}`}[i == 1]; a["gen_ai.tool.call.arguments"] != want {
						t.Errorf("call %d %s: arguments %q, want %q", i, side, a["gen_ai.tool.call.arguments"], want)
					}
					if want := map[bool]string{true: "tool_error"}[i == 1]; a["error.type"] != want {
						t.Errorf("call %d %s: error.type %q, want %q", i, side, a["error.type"], want)
					}
				}
			}
			r.waitCount(t, "mcp.server.session.duration", func(attribute.Set) bool { return true })
		})
	}
}

// TestNoSecretsRecorded: with arguments and results recorded, a call over
// Streamable HTTP with a bearer token and an API key header, whose
// arguments hold a password, leaves none of the three in any span
// attribute or event, on either side; a failing call's error neither.
func TestNoSecretsRecorded(t *testing.T) {
	const token, apiKey, password = "sk-bearer-0123456789", "key-abcdef-987654", "pw-hunter2-42"
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := newRecorder(t, otelmcp.WithToolArguments(), otelmcp.WithToolResults())
	h := &restartable{srv: frontServer(t, r, nil)}
	h.restart()
	hs := httptest.NewServer(h)
	defer hs.Close()
	s, err := composition.Connect(ctx, composition.HTTP(hs.URL+"/mcp"), composition.WithBearerToken(token),
		composition.WithHeader("X-Api-Key", apiKey), r.tel.ClientOption())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallResult(ctx, "lookup", map[string]any{"key": "k", "db": map[string]string{"password": password}}); err != nil {
		t.Logf("lookup with an extra member: %v", err)
	}
	if _, err := s.CallResult(ctx, "lookup", map[string]any{"key": "k", "fail": true}); err == nil {
		t.Fatal("failing lookup succeeded")
	}
	recorded := 0
	for _, sp := range r.spans.Ended() {
		kvs := sp.Attributes()
		for _, e := range sp.Events() {
			kvs = append(kvs, e.Attributes...)
		}
		kvs = append(kvs, attribute.String("status", sp.Status().Description))
		for _, kv := range kvs {
			if kv.Key == "gen_ai.tool.call.arguments" {
				recorded++
			}
			for _, secret := range []string{token, apiKey, password} {
				if strings.Contains(kv.Value.Emit(), secret) {
					t.Errorf("span %q: %s holds a secret: %s", sp.Name(), kv.Key, kv.Value.Emit())
				}
			}
		}
	}
	if recorded != 4 {
		t.Errorf("%d spans recorded arguments, want the 2 client and 2 server spans", recorded)
	}
}

// TestToolMiddleware: plain mcp-go tools (added with s.AddTool, as
// sqlite-explorer's are) instrumented through composition.ToolMiddleware
// over Streamable HTTP: a successful call's SERVER span is the child of
// the CLIENT span, both record the arguments (opted in); an isError result is tool_error on both sides; a
// handler's Go error, which mcp-go answers with -32603, is error.type and
// rpc.response.status_code -32603 on both sides.
func TestToolMiddleware(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := newRecorder(t, otelmcp.WithToolArguments())
	srv := server.NewMCPServer("plain", "1.0.0", server.WithToolCapabilities(false),
		server.WithToolHandlerMiddleware(composition.ToolMiddleware(r.tel.ServerInterceptor())))
	composition.ServerEvents(srv, r.tel.ServerEvent)
	srv.AddTool(mcpgo.NewTool("ok"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("fine"), nil
	})
	srv.AddTool(mcpgo.NewTool("refuse"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultError("refused"), nil
	})
	srv.AddTool(mcpgo.NewTool("crash"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, errors.New("database is locked")
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	defer hs.Close()
	s, err := composition.Connect(ctx, composition.HTTP(hs.URL+"/mcp"), composition.WithProtocolVersion("2025-06-18"), r.tel.ClientOption())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ tool, errType, code string }{
		{"ok", "", ""},
		{"refuse", "tool_error", ""},
		{"crash", "-32603", "-32603"},
	} {
		_, _ = s.CallResult(ctx, tc.tool, nil)
		cs, svs := r.sides(t, "tools/call "+tc.tool, 1)
		c, sv := cs[0], svs[0]
		if sv.Parent().SpanID() != c.SpanContext().SpanID() || sv.SpanContext().TraceID() != c.SpanContext().TraceID() {
			t.Errorf("%s: server parent %v, want the client span %v", tc.tool, sv.Parent().SpanID(), c.SpanContext().SpanID())
		}
		for side, sp := range map[string]sdktrace.ReadOnlySpan{"client": c, "server": sv} {
			a := attrs(sp.Attributes())
			if a["error.type"] != tc.errType || a["rpc.response.status_code"] != tc.code {
				t.Errorf("%s %s: error.type %q status code %q, want %q %q", tc.tool, side, a["error.type"], a["rpc.response.status_code"], tc.errType, tc.code)
			}
			if a["gen_ai.tool.call.arguments"] != "{}" {
				t.Errorf("%s %s: arguments %q, want {}", tc.tool, side, a["gen_ai.tool.call.arguments"])
			}
			if a["network.transport"] != "tcp" || a["mcp.session.id"] == "" || a["jsonrpc.request.id"] == "" {
				t.Errorf("%s %s: %v, want tcp, a session id and a request id", tc.tool, side, a)
			}
		}
	}
}

// TestServerStdio: the front server run by composition.RunStdio over
// pipes, called by a go-sdk client (gosdk.NewSession with ClientOption
// over mcp.IOTransport): the SERVER span has network.transport pipe and is
// the child of the CLIENT span.
func TestServerStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := newRecorder(t)
	srv := frontServer(t, r, nil)
	toServer, serverIn := io.Pipe()
	fromServer, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- composition.RunStdio(ctx, srv, toServer, serverOut, composition.HostOptions{}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx,
		gosdk.Transport(&mcp.IOTransport{Reader: fromServer, Writer: serverIn}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := gosdk.NewSession(ctx, cs, r.tel.ClientOption())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lookupTool.Call(ctx, s, LookupArgs{Key: "a"}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	_ = serverIn.Close()
	cancel()
	<-done
	clients, servers := r.sides(t, "tools/call lookup", 1)
	c, sv := clients[0], servers[0]
	if sv.Parent().SpanID() != c.SpanContext().SpanID() || sv.SpanContext().TraceID() != c.SpanContext().TraceID() {
		t.Errorf("server parent %v, want the client span %v", sv.Parent().SpanID(), c.SpanContext().SpanID())
	}
	if a := attrs(sv.Attributes()); a["network.transport"] != "pipe" || a["mcp.protocol.version"] != "2025-11-25" {
		t.Errorf("server span: %v, want network.transport pipe at 2025-11-25", a)
	}
}

// sides returns the ended client and server spans named name, in the
// order they ended, failing the test unless there are n of each.
func (r *recorder) sides(t testing.TB, name string, n int) (clients, servers []sdktrace.ReadOnlySpan) {
	t.Helper()
	for _, sp := range r.ended(name) {
		if sp.SpanKind() == trace.SpanKindServer {
			servers = append(servers, sp)
		} else {
			clients = append(clients, sp)
		}
	}
	if len(clients) != n || len(servers) != n {
		t.Fatalf("%d client and %d server spans named %q, want %d of each", len(clients), len(servers), name, n)
	}
	return clients, servers
}

// TestJoinedTraceSSE: over the legacy HTTP+SSE transport (mcp-go's SSE
// server) the CLIENT span has network.transport tcp, network.protocol.name
// http and the server's address and port, the SERVER span tcp and http
// too, and it is the child of the CLIENT span.
func TestJoinedTraceSSE(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := newRecorder(t)
	hs := httptest.NewUnstartedServer(nil)
	hs.Start()
	defer hs.Close()
	hs.Config.Handler = server.NewSSEServer(frontServer(t, r, nil), server.WithBaseURL(hs.URL))
	s, err := composition.Connect(ctx, composition.SSE(hs.URL+"/sse"), r.tel.ClientOption())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := lookupTool.Call(ctx, s, LookupArgs{Key: "a"}); err != nil {
		t.Fatal(err)
	}
	clients, servers := r.sides(t, "tools/call lookup", 1)
	c, sv := clients[0], servers[0]
	if sv.Parent().SpanID() != c.SpanContext().SpanID() {
		t.Errorf("server parent %v, want the client span %v", sv.Parent().SpanID(), c.SpanContext().SpanID())
	}
	ca, sa := attrs(c.Attributes()), attrs(sv.Attributes())
	if ca["network.transport"] != "tcp" || ca["network.protocol.name"] != "http" || ca["server.address"] != "127.0.0.1" || ca["server.port"] != hs.URL[len("http://127.0.0.1:"):] {
		t.Errorf("client span: %v", ca)
	}
	if sa["network.transport"] != "tcp" || sa["network.protocol.name"] != "http" || sa["server.address"] != "" {
		t.Errorf("server span: %v", sa)
	}
}
