package composition_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestHostileHTTPMeasured serves own tools with ListenHTTP (stateless) and
// logs what hostile clients cost: raw tools/call bodies nested 1k to 100k
// deep (which a composition client refuses to send), 200 clients that
// start a call that waits for its context and then hang up or stop
// reading before the serving context ends, and a flood of requests with a
// foreign Origin. Asserted: each answers, Serve returns, goroutines come
// back to where they were; the figures are in the log (`-v`).
func TestHostileHTTPMeasured(t *testing.T) {
	const clients = 200
	var mu sync.Mutex
	waiting := 0
	allWaiting := make(chan struct{})
	waitTool := composition.NewTool[anyArgs, int]("wait", "Waits for its context.")
	srv := server.NewMCPServer("own", "1", server.WithToolCapabilities(false))
	err := composition.Serve(srv, []composition.ServedTool{
		anyTool.Serve(func(context.Context, anyArgs) (int, error) { return 1, nil }),
		waitTool.Serve(func(ctx context.Context, _ anyArgs) (int, error) {
			mu.Lock()
			waiting++
			if waiting == clients {
				close(allWaiting)
			}
			mu.Unlock()
			<-ctx.Done()
			return 0, ctx.Err()
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	g0 := runtime.NumGoroutine()
	host, err := composition.ListenHTTP(srv, composition.HostOptions{
		ShutdownTimeout: 2 * time.Second,
		Streamable:      []server.StreamableHTTPOption{server.WithStateLess(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- host.Serve(ctx) }()

	post := func(body string, header http.Header) (int, string) {
		req, err := http.NewRequest(http.MethodPost, host.URL(), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			if b.Len() < 300 {
				b.Write(buf[:n])
			}
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	measure := func(what string, f func()) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start := time.Now()
		f()
		took := time.Since(start)
		runtime.ReadMemStats(&m1)
		t.Logf("%s: %v, allocated %d KB, heap in use %d MB", what, took.Round(time.Microsecond),
			(m1.TotalAlloc-m0.TotalAlloc)>>10, m1.HeapInuse>>20)
	}

	for _, depth := range []int{1000, 10_000, 100_000} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"any","arguments":{"payload":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}`
		measure(fmt.Sprintf("raw tools/call nested %d deep (%d B)", depth, len(body)), func() {
			code, answer := post(body, nil)
			if len(answer) > 200 {
				answer = answer[:200] + "…"
			}
			t.Logf("depth %d: HTTP %d %s", depth, code, answer)
		})
	}

	const flood = 2000
	measure(fmt.Sprintf("%d requests with a foreign Origin", flood), func() {
		for range flood {
			if code, _ := post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.Header{"Origin": {"https://evil.example"}}); code != http.StatusForbidden {
				t.Fatalf("foreign Origin: HTTP %d", code)
			}
		}
	})
	http.DefaultClient.CloseIdleConnections()

	// 200 clients start a call, half hang up, half stop reading.
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"payload":1}}}`
	raw := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		host.Addr(), len(call), call)
	conns := make([]net.Conn, clients)
	for i := range conns {
		c, err := net.Dial("tcp", host.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	<-allWaiting
	gBusy := runtime.NumGoroutine()
	for i, c := range conns {
		if i%2 == 0 {
			_ = c.Close() // hangs up mid-call; the others never read
		}
	}
	start := time.Now()
	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	t.Logf("%d calls in flight (%d goroutines, %d before serving): Serve returned %v after the context ended (ShutdownTimeout 2s)",
		clients, gBusy, g0, time.Since(start).Round(time.Millisecond))
	// Before the clients that stopped reading close their end: what
	// served them must be gone already.
	testenv.Goroutines(t, settleBound, g0)
	for _, c := range conns {
		_ = c.Close()
	}
}

// TestHostileBearerFlood sends 2,000 requests with a bad bearer token and
// 2,000 with a token of 64 KB to a ListenHTTP endpoint with BearerAuth, and
// logs their cost; asserted: every one is answered 401, and once serving
// ends the goroutines are back where they were (nothing retained).
func TestHostileBearerFlood(t *testing.T) {
	srv := server.NewMCPServer("own", "1", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, []composition.ServedTool{
		anyTool.Serve(func(context.Context, anyArgs) (int, error) { return 1, nil }),
	}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	g0 := runtime.NumGoroutine()
	host, err := composition.ListenHTTP(srv, composition.HostOptions{Auth: &composition.BearerAuth{
		Verify: func(ctx context.Context, token string) (context.Context, error) {
			return nil, fmt.Errorf("unknown token")
		},
		Metadata: server.ProtectedResourceMetadataConfig{AuthorizationServers: []string{"https://auth.example"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- host.Serve(ctx) }()
	client := &http.Client{}
	for _, token := range []string{"bad-token", strings.Repeat("x", 64<<10)} {
		const flood = 2000
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start := time.Now()
		for range flood {
			req, err := http.NewRequest(http.MethodPost, host.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("token of %d B: HTTP %d", len(token), resp.StatusCode)
			}
		}
		took := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		t.Logf("%d requests with a bad token of %d B: %v (%v each), allocated %d KB (%d B each, client included), heap in use after GC %+d KB",
			flood, len(token), took.Round(time.Millisecond), (took / flood).Round(time.Microsecond),
			(m1.TotalAlloc-m0.TotalAlloc)>>10, (m1.TotalAlloc-m0.TotalAlloc)/flood, (int64(m1.HeapInuse)-int64(m0.HeapInuse))>>10)
	}
	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	client.CloseIdleConnections()
	testenv.Goroutines(t, settleBound, g0)
}
