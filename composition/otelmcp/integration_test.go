package otelmcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
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
// succeeds, and the lost session's life
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
	for _, s := range r.ended("tools/call lookup") {
		if s.SpanKind() == trace.SpanKindClient && s.Parent().SpanID() == span.SpanContext().SpanID() {
			attempts = append(attempts, s)
		}
	}
	if len(attempts) != 2 {
		t.Fatalf("%d attempts under the caller, want 2", len(attempts))
	}
	if a := attrs(attempts[0].Attributes()); a["error.type"] != "session_lost" {
		t.Errorf("first attempt: error.type %q, want session_lost", a["error.type"])
	}
	if a := attrs(attempts[1].Attributes()); a["error.type"] != "" || attempts[1].Status().Code != codes.Unset {
		t.Errorf("second attempt: %v %v, want success", a, attempts[1].Status())
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
	if recorded != 2 {
		t.Errorf("%d spans recorded arguments, want the 2 client spans", recorded)
	}
}
