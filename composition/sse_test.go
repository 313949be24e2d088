package composition

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// warnings collects the warnings of WithWarnings.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) option() Option {
	return WithWarnings(func(msg string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.msgs = append(w.msgs, msg)
	})
}

func (w *warnings) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

// TestSSE runs the session suite over the legacy HTTP+SSE transport of a
// real mcp-go SSE server (server.NewSSEServer on 127.0.0.1), reached with
// SSE(url) and through the fallback of HTTP(url).
func TestSSE(t *testing.T) {
	t.Parallel()
	bin := buildTestServer(t)
	url, _, _ := startServerProcess(t, bin, "-sse", "127.0.0.1:0")

	t.Run("SSE", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		var w warnings
		s, err := Connect(ctx, SSE(url), w.option())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Transport() != TransportSSE || s.ProtocolVersion() != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
			t.Errorf("Transport() = %q, ProtocolVersion() = %q", s.Transport(), s.ProtocolVersion())
		}
		if got := w.get(); len(got) != 0 || s.Warnings() != nil {
			t.Errorf("warnings = %q, %q; want none", got, s.Warnings())
		}
		exerciseSession(ctx, t, s)
	})

	t.Run("HTTP falls back", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		var w warnings
		s, err := Connect(ctx, HTTP(url), w.option())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Transport() != TransportSSE || s.ProtocolVersion() != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
			t.Errorf("Transport() = %q, ProtocolVersion() = %q", s.Transport(), s.ProtocolVersion())
		}
		got := w.get()
		t.Logf("warnings: %q", got)
		if len(got) != 1 || !strings.Contains(got[0], "HTTP 405") || !strings.Contains(got[0], "HTTP+SSE") || !reflect.DeepEqual(s.Warnings(), got) {
			t.Errorf("warnings = %q, Warnings() = %q; want one naming HTTP 405 and HTTP+SSE", got, s.Warnings())
		}
		tools, err := s.ListToolsRaw(ctx)
		if err != nil || len(tools) != len(testServerTools) {
			t.Fatalf("ListToolsRaw: %d tools, %v", len(tools), err)
		}
		// A legacy session: the TypeScript-SDK-style tool wraps, and Call
		// unwraps.
		type Row struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		var row *Row
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "nullable_row", Output: bindimpl.Output{CanBeObject: true}}, nil, &row); err != nil || row == nil || row.ID != 9007199254740993 {
			t.Errorf("nullable_row = %+v, %v", row, err)
		}
	})

	t.Run("pinned version", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		for _, tc := range []struct{ pin, want string }{
			{"2025-06-18", "2025-06-18"},
			{"2024-11-05", "2024-11-05"},
			// The stateless protocol has no HTTP+SSE binding: the newest
			// version before it is asked for.
			{ModernProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION},
		} {
			s, err := Connect(ctx, SSE(url), WithProtocolVersion(tc.pin))
			if err != nil {
				t.Fatalf("%s: %v", tc.pin, err)
			}
			var n int64
			if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n); err != nil || n != 42 {
				t.Errorf("%s: integer = %d, %v", tc.pin, n, err)
			}
			if s.ProtocolVersion() != tc.want {
				t.Errorf("pinned %s: ProtocolVersion() = %q, want %q", tc.pin, s.ProtocolVersion(), tc.want)
			}
			s.Close()
		}
	})
}

// TestSSEStreamEnds checks that calls fail promptly, saying why, once the
// server of an HTTP+SSE session has gone away: mcp-go's SSE transport would
// leave them waiting.
func TestSSEStreamEnds(t *testing.T) {
	t.Parallel()
	bin := buildTestServer(t)
	url, cmd, stderr := startServerProcess(t, bin, "-sse", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, SSE(url))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	errc := make(chan error, 1)
	go func() { errc <- s.Invoke(ctx, &bindimpl.Tool{Name: "sleep"}, map[string]any{"ms": 60000}, nil) }()
	// The server writes "sleeping" to stderr once the call has reached it.
	select {
	case <-stderr.seen("testserver: sleeping"):
	case err := <-errc:
		t.Fatalf("the call ended before the server was killed: %v", err)
	case <-ctx.Done():
		t.Fatalf("the call did not reach the server; stderr:\n%s", stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		t.Logf("call in flight: %v", err)
		// Lost, not timed out: the session fails the calls in flight
		// when the stream ends, long before their context does.
		var lost *SessionLostError
		if !errors.As(err, &lost) || !lost.Sent || ctx.Err() != nil {
			t.Errorf("the call in flight: err = %v, want a SessionLostError (sent) before its context ends", err)
		}
	case <-time.After(hangBound):
		t.Fatalf("the call in flight still waits %v after the server died", hangBound)
	}
	// The session has seen its event stream end: a later call fails at
	// once, unsent, saying why. Its context is already cancelled, so that
	// a call that waited for anything would fail with context.Canceled.
	select {
	case <-s.Done():
	case <-time.After(hangBound):
		t.Fatalf("the session's Done is still open %v after the server died", hangBound)
	}
	ended, cancelEnded := context.WithCancel(ctx)
	cancelEnded()
	err = s.Invoke(ended, &bindimpl.Tool{Name: "integer"}, nil, new(int64))
	t.Logf("later call: %v", err)
	if err == nil || !strings.Contains(err.Error(), "event stream has ended") {
		t.Errorf("later call: err = %v, want it to say the event stream has ended", err)
	}
	var lost *SessionLostError
	if !errors.As(err, &lost) || lost.Sent || errors.Is(err, context.Canceled) {
		t.Errorf("later call: err = %#v, want a SessionLostError (not sent) that is not context.Canceled", err)
	}
}

// TestHTTPFallbackErrors checks when HTTP(url) falls back to HTTP+SSE and
// what it reports when that fails too.
func TestHTTPFallbackErrors(t *testing.T) {
	t.Parallel()
	type seen struct{ gets atomic.Int32 }
	server := func(t *testing.T, postStatus int, get http.HandlerFunc) (string, *seen) {
		var n seen
		return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				n.gets.Add(1)
				get(w, r)
				return
			}
			http.Error(w, "no POST here", postStatus)
		}) + "/mcp", &n
	}
	html := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>a web page</html>"))
	}
	silentStream := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}

	for _, tc := range []struct {
		name      string
		status    int
		get       http.HandlerFunc
		timeout   time.Duration
		wantGET   bool
		want      []string
		is        error
		transport string
	}{
		{name: "405 then HTML", status: http.StatusMethodNotAllowed, get: html, wantGET: true,
			want: []string{"HTTP 405", "Streamable HTTP", "HTTP+SSE", `Content-Type "text/html"`, "not text/event-stream"}},
		{name: "400 then 404", status: http.StatusBadRequest, get: http404, wantGET: true,
			want: []string{"HTTP 400", "HTTP+SSE", "GET with HTTP 404"}},
		{name: "404 then no endpoint event", status: http.StatusNotFound, get: silentStream, wantGET: true,
			timeout: time.Second, is: context.DeadlineExceeded, want: []string{"HTTP 404", "HTTP+SSE", "endpoint"}},
		{name: "403: no fallback", status: http.StatusForbidden, get: html, want: []string{"HTTP 403"}},
		{name: "500: no fallback", status: http.StatusInternalServerError, get: html, want: []string{"HTTP 500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, n := server(t, tc.status, tc.get)
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 20 * time.Second
			}
			ctx, cancel := context.WithTimeout(t.Context(), timeout)
			defer cancel()
			var s *Session
			var err error
			returnsOnceDone(t, ctx, "Connect", func() { s, err = Connect(ctx, HTTP(url)) })
			if err == nil {
				s.Close()
				t.Fatal("Connect succeeded")
			}
			t.Logf("%v", err)
			var ce *ConnectError
			if !errors.As(err, &ce) || ce.Stage != "initialize" {
				t.Errorf("err = %#v, want a *ConnectError at initialize", err)
			}
			if got := n.gets.Load() > 0; got != tc.wantGET {
				t.Errorf("GET sent: %v, want %v", got, tc.wantGET)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q", w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(err, %v) = false", tc.is)
			}
		})
	}
}

// TestServerEverythingHTTP connects to @modelcontextprotocol/server-everything
// in its sse mode (the TypeScript SDK v1's SSEServerTransport, which answers a
// POST to /sse with 404) and in its streamableHttp mode, on 127.0.0.1.
func TestServerEverythingHTTP(t *testing.T) {
	t.Parallel()
	sseURL := testenv.ServerEverythingHTTP(t, "sse")
	httpURL := testenv.ServerEverythingHTTP(t, "streamableHttp")

	for _, tc := range []struct {
		name, transport string
		tr              Transport
		warn            string
	}{
		{"SSE", TransportSSE, SSE(sseURL), ""},
		{"HTTP falls back to SSE", TransportSSE, HTTP(sseURL), "HTTP 404"},
		{"streamable HTTP", TransportStreamableHTTP, HTTP(httpURL), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
			defer cancel()
			s, err := Connect(ctx, tc.tr)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			t.Logf("%s: protocol %s over %s; warnings %q", tc.tr, s.ProtocolVersion(), s.Transport(), s.Warnings())
			if s.Transport() != tc.transport {
				t.Errorf("Transport() = %q, want %q", s.Transport(), tc.transport)
			}
			w := s.Warnings()
			if tc.warn == "" && len(w) != 0 || tc.warn != "" && (len(w) != 1 || !strings.Contains(w[0], tc.warn)) {
				t.Errorf("Warnings() = %q, want one with %q", w, tc.warn)
			}
			tools, err := s.ListToolsRaw(ctx)
			if err != nil || len(tools) == 0 {
				t.Fatalf("ListToolsRaw: %d tools, %v", len(tools), err)
			}
			res, err := s.CallResult(ctx, "echo", map[string]string{"message": "hello over " + s.Transport()})
			if err != nil || !strings.Contains(res.Text(), "hello over "+s.Transport()) {
				t.Errorf("echo: %+v, %v", res, err)
			}
		})
	}
}
