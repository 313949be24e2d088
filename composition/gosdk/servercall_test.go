package gosdk_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	stub "github.com/mcpbind/mcpbind/golden/sqlite-explorer-gosdk/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// The _meta entry the tests' clients send is callmeta_test.go's traceparent.

// seenCalls records what server interceptors and handlers saw.
type seenCalls struct {
	mu       sync.Mutex
	calls    []composition.ServerCall
	answers  []composition.Answer
	incoming []composition.ServerCall
}

// interceptor records each call and next's answer.
func (s *seenCalls) interceptor() composition.ServerInterceptor {
	return func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
		a, err := next(ctx, call)
		s.mu.Lock()
		s.calls, s.answers = append(s.calls, call), append(s.answers, a)
		s.mu.Unlock()
		return a, err
	}
}

// metaFake is tablesFake whose list_tables records its ctx's call.
type metaFake struct {
	tablesFake
	seen *seenCalls
}

// ListTables records the IncomingCall of ctx.
func (f metaFake) ListTables(ctx context.Context) ([]string, error) {
	c, _ := composition.IncomingCall(ctx)
	if composition.RequestMeta(ctx).Get("traceparent") != traceparent {
		c.Tool = "RequestMeta lost traceparent"
	}
	f.seen.mu.Lock()
	f.seen.incoming = append(f.seen.incoming, c)
	f.seen.mu.Unlock()
	return f.tablesFake.ListTables(ctx)
}

// connectRaw connects a go-sdk client at version to srv over in-memory
// transports or go-sdk's Streamable HTTP handler on loopback.
func connectRaw(ctx context.Context, t *testing.T, srv *mcp.Server, transport, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-servercall-test", Version: "0"}, nil)
	var ct mcp.Transport
	switch transport {
	case composition.TransportStreamableHTTP:
		// go-sdk's handler speaks 2026-07-28 only when stateless
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: version >= composition.ModernProtocolVersion}))
		t.Cleanup(hs.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: hs.URL}
	default:
		var st mcp.Transport
		ct, st = mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestServerCallGoSDK: a server interceptor given to the generated go-sdk
// Register sees each call's tool, _meta, protocol version, session id and
// transport (go-sdk exposes no request id: ""), in memory and over
// Streamable HTTP, in both eras; the handler's ctx carries the call; a
// tool error is an Answer with IsError; an interceptor's replaced answer
// is what the client gets.
func TestServerCallGoSDK(t *testing.T) {
	for _, tr := range []string{"in-memory", composition.TransportStreamableHTTP} {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			t.Run(tr+"/"+version, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				seen := &seenCalls{}
				replace := func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
					a, err := next(ctx, call)
					if call.Tool == "query" {
						return composition.Answer{Text: "replaced", IsError: true}, nil
					}
					return a, err
				}
				srv := mcp.NewServer(&mcp.Implementation{Name: "sqlite-explorer", Version: "0.1.0"}, nil)
				if err := stub.Register(srv, metaFake{seen: seen}, gosdk.WithServerInterceptor(seen.interceptor()), gosdk.WithServerInterceptor(replace)); err != nil {
					t.Fatal(err)
				}
				cs := connectRaw(ctx, t, srv, tr, version)
				if got := negotiated(cs); got != version {
					t.Fatalf("the session negotiated %q, want %s", got, version)
				}
				call := func(name string, args map[string]any) *mcp.CallToolResult {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{"traceparent": traceparent}})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					return res
				}
				if res := call("list_tables", nil); res.IsError {
					t.Fatalf("list_tables: %+v", res)
				}
				if res := call("count_rows", map[string]any{"table": "nope"}); !res.IsError {
					t.Fatalf("count_rows of no table answered without isError: %+v", res)
				}
				if res := call("query", map[string]any{"sql": "SELECT 1"}); !res.IsError || res.Content[0].(*mcp.TextContent).Text != "replaced" {
					t.Errorf("query: the client got %+v, not the interceptor's answer", res.Content[0])
				}
				seen.mu.Lock()
				defer seen.mu.Unlock()
				if len(seen.calls) != 3 || len(seen.incoming) != 1 {
					t.Fatalf("the interceptor saw %d calls, the handler %d; want 3 and 1", len(seen.calls), len(seen.incoming))
				}
				wantTransport := ""
				if tr == composition.TransportStreamableHTTP {
					wantTransport = tr
				}
				for i, c := range seen.calls {
					if c.Meta.Get("traceparent") != traceparent || c.ProtocolVersion != version || c.SessionID != cs.ID() ||
						c.Transport != wantTransport || c.RequestID != "" {
						t.Errorf("call %d seen as %+v; want traceparent, %s, session %q, transport %q", i, c, version, cs.ID(), wantTransport)
					}
				}
				if seen.calls[0].Tool != "list_tables" || seen.answers[0].IsError || !seen.answers[1].IsError {
					t.Errorf("first calls %+v, answers %+v", seen.calls[:2], seen.answers[:2])
				}
				if fmt.Sprint(seen.incoming[0]) != fmt.Sprint(seen.calls[0]) {
					t.Errorf("handler's IncomingCall %+v, the interceptor's %+v", seen.incoming[0], seen.calls[0])
				}
			})
		}
	}
}

// TestServerEventsGoSDK: gosdk.ServerEvents reports a session's start
// (with the negotiated protocol version) after its first request, and its
// end, with its life, when its connection closes, in memory (both eras)
// and over Streamable HTTP (a 2025-06-18 session, with its Mcp-Session-Id).
func TestServerEventsGoSDK(t *testing.T) {
	for _, tc := range []struct{ transport, version string }{
		{"in-memory", "2025-06-18"}, {"in-memory", composition.ModernProtocolVersion}, {composition.TransportStreamableHTTP, "2025-06-18"},
	} {
		version := tc.version
		t.Run(tc.transport+"/"+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			events := make(chan composition.Event, 8)
			srv := mcp.NewServer(&mcp.Implementation{Name: "events", Version: "0"}, nil)
			if err := stub.Register(srv, tablesFake{}); err != nil {
				t.Fatal(err)
			}
			gosdk.ServerEvents(srv, func(_ context.Context, e composition.Event) { events <- e })
			cs := connectRaw(ctx, t, srv, tc.transport, version)
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_tables"}); err != nil {
				t.Fatal(err)
			}
			start := testenv.Receive(t, 30*time.Second, events)
			want := composition.Peer{ProtocolVersion: version}
			if tc.transport == composition.TransportStreamableHTTP {
				want.Transport, want.SessionID = tc.transport, cs.ID()
				if cs.ID() == "" {
					t.Fatal("a stateful Streamable HTTP session without an id")
				}
			}
			if start.Kind != composition.EventSessionStart || start.Peer != want {
				t.Fatalf("first event %+v, want the session's start with %+v", start, want)
			}
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			end := testenv.Receive(t, 30*time.Second, events)
			if end.Kind != composition.EventSessionEnd || end.Peer != start.Peer || end.Duration <= 0 {
				t.Errorf("second event %+v, want the end of the session with its life", end)
			}
			select {
			case e := <-events:
				t.Errorf("a third event %+v for one session", e)
			default:
			}
		})
	}
}

// negotiated returns the protocol version of cs: the one its requests
// declare from 2026-07-28 on, else initialize's.
func negotiated(cs *mcp.ClientSession) string {
	if r := cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// TestOwnToolRequestMetaGoSDK: an own tool (composition.NewTool) served on
// go-sdk without an interceptor reads the _meta a client sent
// (RequestMeta), and nil for a call without _meta.
func TestOwnToolRequestMetaGoSDK(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type none struct{}
	metas := make(chan composition.Meta, 2)
	tool := composition.NewTool[none, string]("whoami", "Says who calls.")
	srv := mcp.NewServer(&mcp.Implementation{Name: "own", Version: "0"}, nil)
	if err := gosdk.Serve(srv, []bindimpl.ServedTool{tool.Serve(func(ctx context.Context, _ none) (string, error) {
		metas <- composition.RequestMeta(ctx)
		return "you", nil
	})}); err != nil {
		t.Fatal(err)
	}
	cs := connectRaw(ctx, t, srv, "in-memory", "2025-06-18")
	for _, m := range []mcp.Meta{{"traceparent": traceparent}, nil} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}, Meta: m}); err != nil {
			t.Fatal(err)
		}
	}
	if m := <-metas; m.Get("traceparent") != traceparent {
		t.Errorf("RequestMeta %v, want the traceparent sent", m)
	}
	if m := <-metas; m != nil {
		t.Errorf("RequestMeta of a call without _meta: %v, want nil", m)
	}
}
