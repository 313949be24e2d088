package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/testservers/seenserver"
)

// seenServerEnv makes this test binary, started again, the stdio seen
// server (testservers/seenserver) of TestRequestMeta.
const seenServerEnv = "MCPBIND_SEEN_SERVER"

// seenServerOption gives the started test binary seenServerEnv, and under
// -race a race runtime that does not sleep its default second at exit
// (atexit_sleep_ms; the caller's GORACE options come after and win): each
// stdio subtest's Close otherwise waits that second for the exit.
func seenServerOption() composition.Option {
	return composition.WithEnv(seenServerEnv+"=1", strings.TrimSpace("GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE")))
}

// metaSetter is an interceptor that adds trace context and a nonce to a
// call's _meta, tries to set a reserved key, and once the call returns
// records the id the request was sent with in *id.
func metaSetter(nonce string, id *string) composition.Interceptor {
	return func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		if c.Request == nil {
			return nil, fmt.Errorf("call %q has no Request although the session has an interceptor", c.Tool)
		}
		for k, v := range traceContext {
			c.Request.Meta.Set(k, v)
		}
		c.Request.Meta.Set(seenserver.NonceKey, nonce)
		c.Request.Meta["io.modelcontextprotocol/protocolVersion"] = json.RawMessage(`"1999-01-01"`)
		res, err := next(ctx, c)
		*id = c.Request.ID
		return res, err
	}
}

// traceContext is the _meta entries metaSetter sets besides the nonce.
var traceContext = map[string]string{
	"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
	"tracestate":  "congo=t61rcWkgMzE",
}

// TestRequestMeta: the _meta entries an interceptor sets on a call's
// Request reach the server as set, next to the reserved entries the SDK
// adds at 2026-07-28 (which a caller's entry cannot replace), and
// Request.ID is the JSON-RPC id the server saw; over stdio (this test
// binary as the seen server), mcp-go's in-process transport and Streamable
// HTTP, in both protocol eras. Without interceptors a call has no Request.
func TestRequestMeta(t *testing.T) {
	if os.Getenv(seenServerEnv) == "1" {
		seenserver.ServeStdio()
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(seenserver.New()))
	defer hs.Close()
	transports := map[string]func() composition.Transport{
		"stdio":           func() composition.Transport { return composition.Stdio(os.Args[0], "-test.run=^TestRequestMeta$") },
		"in-process":      func() composition.Transport { return composition.InProcess(seenserver.New()) },
		"streamable-http": func() composition.Transport { return composition.HTTP(hs.URL + "/mcp") },
	}
	var n atomic.Int64
	for name, transport := range transports {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			t.Run(name+"/"+version, func(t *testing.T) {
				nonce := strconv.FormatInt(n.Add(1), 10)
				var id string
				s, err := composition.Connect(ctx, transport(), composition.WithProtocolVersion(version),
					seenServerOption(), composition.WithInterceptor(metaSetter(nonce, &id)))
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				raw := seenserver.CallTwice(ctx, t, s)
				t.Logf("the server saw %s; Request.ID %q", raw, id)
				want := map[string]string{seenserver.NonceKey: nonce}
				maps.Copy(want, traceContext)
				if seen := seenserver.Check(t, raw, want, version); id != seen.ID {
					t.Errorf("Call.Request.ID = %q, the server saw id %q", id, seen.ID)
				}
			})
		}
	}
	t.Run("invalid entry", func(t *testing.T) {
		s, err := composition.Connect(ctx, composition.InProcess(seenserver.New()), composition.WithInterceptor(
			func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
				c.Request.Meta["broken"] = json.RawMessage(`{"a":`)
				res, err := next(ctx, c)
				if c.Request.ID != "" {
					t.Errorf("Request.ID = %q for a request that was not sent", c.Request.ID)
				}
				return res, err
			}))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.CallResult(ctx, "seen", nil); err == nil || !strings.Contains(err.Error(), "_meta") {
			t.Fatalf("a call whose _meta entry is not JSON: %v; want an error about its _meta", err)
		}
	})
	t.Run("no interceptor", func(t *testing.T) {
		s, err := composition.Connect(ctx, composition.InProcess(seenserver.New()))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.CallResult(ctx, "seen", nil)
		if err != nil {
			t.Fatal(err)
		}
		var seen seenserver.Seen
		if err := json.Unmarshal(res.StructuredContent, &seen); err != nil {
			t.Fatal(err)
		}
		for k := range seen.Meta {
			if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
				t.Errorf("without interceptors the server received _meta %v, want only the SDK's reserved entries", seen.Meta)
			}
		}
	})
}

// TestCallPeer: Call.Peer describes the session per transport: stdio and
// in-process have no address, port or session id; Streamable HTTP has the
// URL's host and port, and a session id in the legacy era only; HTTP+SSE
// has the host and port of the URL it was given.
func TestCallPeer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(seenserver.New()))
	defer hs.Close()
	ss := httptest.NewUnstartedServer(nil)
	ss.Start()
	defer ss.Close()
	ss.Config.Handler = server.NewSSEServer(seenserver.New(), server.WithBaseURL(ss.URL))
	port := func(rawURL string) int {
		_, p, err := net.SplitHostPort(strings.TrimPrefix(rawURL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(p)
		return n
	}
	stdio := composition.Stdio(os.Args[0], "-test.run=^TestRequestMeta$")
	for _, tc := range []struct {
		name      string
		t         composition.Transport
		version   string
		transport string
		address   string
		port      int
		sessionID bool
	}{
		{"stdio/legacy", stdio, "2025-06-18", composition.TransportStdio, "", 0, false},
		{"stdio/modern", stdio, composition.ModernProtocolVersion, composition.TransportStdio, "", 0, false},
		{"in-process/legacy", composition.InProcess(seenserver.New()), "2025-06-18", composition.TransportInProcess, "", 0, false},
		{"in-process/modern", composition.InProcess(seenserver.New()), composition.ModernProtocolVersion, composition.TransportInProcess, "", 0, false},
		{"streamable-http/legacy", composition.HTTP(hs.URL + "/mcp"), "2025-06-18", composition.TransportStreamableHTTP, "127.0.0.1", port(hs.URL), true},
		{"streamable-http/modern", composition.HTTP(hs.URL + "/mcp"), composition.ModernProtocolVersion, composition.TransportStreamableHTTP, "127.0.0.1", port(hs.URL), false},
		{"sse/legacy", composition.SSE(ss.URL + "/sse"), "2025-06-18", composition.TransportSSE, "127.0.0.1", port(ss.URL), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peers := make(chan composition.Peer, 1)
			record := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
				peers <- c.Peer
				return next(ctx, c)
			}
			s, err := composition.Connect(ctx, tc.t, composition.WithProtocolVersion(tc.version), composition.WithInterceptor(record),
				seenServerOption())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.CallResult(ctx, "seen", nil); err != nil {
				t.Fatal(err)
			}
			p := <-peers
			t.Logf("%+v", p)
			if p.Transport != tc.transport || p.ProtocolVersion != tc.version || p.Address != tc.address || p.Port != tc.port || (p.SessionID != "") != tc.sessionID {
				t.Errorf("Call.Peer = %+v; want transport %s, version %s, address %q, port %d, a session id: %t",
					p, tc.transport, tc.version, tc.address, tc.port, tc.sessionID)
			}
		})
	}
}

// TestRPCErrorCode: a JSON-RPC error response (mcp-go's server answers a
// call of an unknown tool with one) is a *composition.RPCError in the
// call's chain, with the code as sent, over stdio and in process, in both
// eras.
func TestRPCErrorCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for name, tr := range map[string]composition.Transport{
		"stdio":      composition.Stdio(os.Args[0], "-test.run=^TestRequestMeta$"),
		"in-process": composition.InProcess(seenserver.New()),
	} {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			t.Run(name+"/"+version, func(t *testing.T) {
				s, err := composition.Connect(ctx, tr, composition.WithProtocolVersion(version), seenServerOption())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				_, err = s.CallResult(ctx, "no_such_tool", nil)
				var rpc *composition.RPCError
				if !errors.As(err, &rpc) || rpc.Code != mcp.INVALID_PARAMS {
					t.Fatalf("calling an unknown tool: %v (%T); want a *composition.RPCError with code %d", err, err, mcp.INVALID_PARAMS)
				}
			})
		}
	}
}
