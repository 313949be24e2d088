package composition

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/testenv"
)

// startServerProcess runs the test server with args (which must make it
// listen and print "URL …" on stdout) and returns the URL and the process,
// which is killed when the test ends.
func startServerProcess(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case line := <-lines:
		if url, ok := strings.CutPrefix(line, "URL "); ok {
			return url, cmd
		}
		t.Fatalf("test server did not print its URL (got %q); stderr:\n%s", line, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("test server did not start; stderr:\n%s", stderr.String())
	}
	return "", nil
}

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
	url, _ := startServerProcess(t, bin, "-sse", "127.0.0.1:0")

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
		if err := s.Call(ctx, Tool{Name: "nullable_row", Output: Output{CanBeObject: true}}, nil, &row); err != nil || row == nil || row.ID != 9007199254740993 {
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
			if err := s.Call(ctx, Tool{Name: "integer"}, nil, &n); err != nil || n != 42 {
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
	url, cmd := startServerProcess(t, bin, "-sse", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, SSE(url))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	errc := make(chan error, 1)
	go func() { errc <- s.Call(ctx, Tool{Name: "sleep"}, map[string]any{"ms": 60000}, nil) }()
	time.Sleep(300 * time.Millisecond) // let the call reach the server
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		t.Logf("call in flight: %v", err)
		if err == nil {
			t.Error("the call in flight succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight still waits 10s after the server died")
	}
	start := time.Now()
	err = s.Call(ctx, Tool{Name: "integer"}, nil, new(int64))
	t.Logf("later call: %v", err)
	if err == nil || !strings.Contains(err.Error(), "event stream has ended") {
		t.Errorf("later call: err = %v, want it to say the event stream has ended", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("later call took %v", d)
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
			start := time.Now()
			s, err := Connect(ctx, HTTP(url))
			if err == nil {
				s.Close()
				t.Fatal("Connect succeeded")
			}
			t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
			if d := time.Since(start); d > timeout+3*time.Second {
				t.Errorf("Connect took %v", d)
			}
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
