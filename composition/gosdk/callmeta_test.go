package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/testservers/seenserver"
)

// seenServerEnv makes this test binary, started again, the stdio seen
// server (testservers/seenserver, an mcp-go server) of TestRequestMeta.
const seenServerEnv = "MCPBIND_GOSDK_SEEN_SERVER"

// traceparent is the W3C trace context entry the interceptors set.
const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// seenCommand is the command that runs this test binary as the seen server.
func seenCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestRequestMeta$")
	// Under -race the child's runtime would sleep a second at exit
	// (GORACE atexit_sleep_ms); the caller's GORACE options come after and win.
	cmd.Env = append(os.Environ(), seenServerEnv+"=1", strings.TrimSpace("GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE")))
	return cmd
}

// TestRequestMeta: over a go-sdk session, the _meta entries an interceptor
// sets reach the server (mcp-go's, which shows what it received) next to
// go-sdk's reserved entries at 2026-07-28 (a caller's reserved key is not
// sent), in both eras; over gosdk.Transport (stdio) Request.ID is the
// JSON-RPC id the server saw, and Call.Peer names stdio; over go-sdk's
// Streamable HTTP (not wrapped) the entries arrive too, the id is not
// known, and Peer names Streamable HTTP when the session has an id.
func TestRequestMeta(t *testing.T) {
	if os.Getenv(seenServerEnv) == "1" {
		seenserver.ServeStdio()
	}
	hs := httptest.NewServer(server.NewStreamableHTTPServer(seenserver.New()))
	defer hs.Close()
	for _, tc := range []struct {
		name      string
		transport func() mcp.Transport
		wantID    bool
		peer      string
	}{
		{"stdio", func() mcp.Transport { return gosdk.Transport(&mcp.CommandTransport{Command: seenCommand()}) }, true, composition.TransportStdio},
		{"streamable-http", func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"} }, false, composition.TransportStreamableHTTP},
	} {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "gosdk-test", Version: "0"}, nil).Connect(ctx, tc.transport(), &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				nonce := tc.name + version
				var id string
				var peer composition.Peer
				s, err := gosdk.NewSession(ctx, cs, composition.WithInterceptor(func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
					c.Request.Meta.Set("traceparent", traceparent)
					c.Request.Meta.Set(seenserver.NonceKey, nonce)
					c.Request.Meta["io.modelcontextprotocol/protocolVersion"] = json.RawMessage(`"1999-01-01"`)
					res, err := next(ctx, c)
					id, peer = c.Request.ID, c.Peer
					return res, err
				}))
				if err != nil {
					_ = cs.Close()
					t.Fatal(err)
				}
				defer s.Close()
				raw := seenserver.CallTwice(ctx, t, s)
				t.Logf("the server saw %s; Request.ID %q; Peer %+v", raw, id, peer)
				seen := seenserver.Check(t, raw, map[string]string{"traceparent": traceparent, seenserver.NonceKey: nonce}, version)
				if tc.wantID && (id == "" || id != seen.ID) {
					t.Errorf("Request.ID = %q, the server saw id %q", id, seen.ID)
				}
				if !tc.wantID && id != "" {
					t.Errorf("Request.ID = %q over an unwrapped transport, whose ids are not seen", id)
				}
				wantPeer := tc.peer
				if tc.peer == composition.TransportStreamableHTTP && cs.ID() == "" {
					wantPeer = "" // stateless 2026-07-28: nothing tells
				}
				if peer.Transport != wantPeer || peer.ProtocolVersion != version || peer.SessionID != cs.ID() || peer.Address != "" || peer.Port != 0 {
					t.Errorf("Call.Peer = %+v; want transport %q, version %s, session id %q", peer, wantPeer, version, cs.ID())
				}
			})
		}
	}
}

// TestRPCErrorCode: a JSON-RPC error of the server (mcp-go's, for an
// unknown tool, and go-sdk's own) is a *composition.RPCError with the code
// and message as sent, over a go-sdk session, with go-sdk's *jsonrpc.Error
// still in the chain.
func TestRPCErrorCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "gosdk-test", Version: "0"}, nil).Connect(ctx,
		gosdk.Transport(&mcp.CommandTransport{Command: seenCommand()}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := gosdk.NewSession(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallResult(ctx, "no_such_tool", nil)
	var rpc *composition.RPCError
	var wire *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcpgo.INVALID_PARAMS || rpc.Message == "" || !errors.As(err, &wire) {
		t.Fatalf("calling an unknown tool: %v (%T); want a *composition.RPCError with code %d and a *jsonrpc.Error", err, err, mcpgo.INVALID_PARAMS)
	}

	e := &goSDKExplorer{srv: mcp.NewServer(&mcp.Implementation{Name: "explode", Version: "0"}, nil)}
	e.srv.AddTool(&mcp.Tool{Name: "explode", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32001, Message: "boom", Data: json.RawMessage(`{"x":1}`)}
	})
	s2, err := gosdk.NewSession(ctx, e.connect(ctx, t, "2025-06-18", noWrap))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	_, err = s2.CallResult(ctx, "explode", nil)
	if !errors.As(err, &rpc) || rpc.Code != -32001 || rpc.Message != "boom" || fmt.Sprint(rpc.Data) != "map[x:1]" {
		t.Fatalf("CallResult: %v; want a *composition.RPCError with code -32001, message boom, data {x:1}", err)
	}
}

// TestSessionEvents: a go-sdk session reports EventSessionStart from
// NewSession (duration 0: go-sdk made the handshake), and EventSessionEnd
// once when closed; Call.Peer names the transport gosdk.Transport wraps
// (in-process here) once a request has passed: from the second call of a
// session without pins (the pin check's tools/list binds it earlier).
func TestSessionEvents(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := newGoSDKExplorer(t)
	events := make(chan composition.Event, 8)
	s, err := gosdk.NewSession(ctx, e.connect(ctx, t, "2025-06-18", gosdk.Transport),
		composition.WithEvents(func(_ context.Context, ev composition.Event) { events <- ev }))
	if err != nil {
		t.Fatal(err)
	}
	start := <-events
	if start.Kind != composition.EventSessionStart || start.Duration != 0 || start.Peer.ProtocolVersion != "2025-06-18" {
		t.Errorf("first event %+v: want EventSessionStart without duration", start)
	}
	peers := make(chan composition.Peer, 2)
	s2, err := gosdk.NewSession(ctx, e.connect(ctx, t, "2025-06-18", gosdk.Transport), composition.WithInterceptor(func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		peers <- c.Peer
		return next(ctx, c)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for range 2 {
		if _, err := s2.CallResult(ctx, "list_tables", nil); err != nil {
			t.Fatal(err)
		}
	}
	<-peers // the first call's: the wrapped connection was not known yet
	if p := <-peers; p.Transport != composition.TransportInProcess {
		t.Errorf("Call.Peer over gosdk.Transport(an in-memory transport) = %+v, want %s", p, composition.TransportInProcess)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	end := <-events
	if end.Kind != composition.EventSessionEnd || end.Err != nil || end.Duration <= 0 {
		t.Errorf("event after Close %+v: want EventSessionEnd without error, with the session's life", end)
	}
}
