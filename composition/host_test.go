package composition

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// slowServer is a composing server with one tool, slow, that signals
// started, waits for release and then calls add on the registry's "pins"
// server, answering its sum.
func slowServer(reg *Registry, started chan<- struct{}, release <-chan struct{}) *server.MCPServer {
	s := server.NewMCPServer("slow", "1.0.0")
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		r, err := CallRaw(ctx, reg.Server("pins"), bindimpl.Tool{Name: "add"}, map[string]int{"a": 1, "b": 2})
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(r.StructuredContent)), nil
	})
	return s
}

// pinsRegistry is a registry whose server "pins" runs the pin server bin
// over stdio; it is closed when the test ends.
func pinsRegistry(t *testing.T, bin string) *Registry {
	t.Helper()
	reg := NewRegistry()
	t.Cleanup(func() { reg.Close() })
	if err := reg.Add("pins", Stdio(bin, "-state", filepath.Join(t.TempDir(), "changes"))); err != nil {
		t.Fatal(err)
	}
	return reg
}

// childProcess returns the pid of this process's child running bin.
func childProcess(t *testing.T, bin string) int {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(field)
			if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == bin {
				return pid
			}
		}
	}
	t.Fatalf("no child process runs %s", bin)
	return 0
}

// processGone reports whether pid has exited and been reaped.
func processGone(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return errors.Is(err, os.ErrNotExist)
}

// refusesConnections waits until a new connection to url is refused (the
// listener is closed), or ctx ends.
func refusesConnections(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for ctx.Err() == nil {
		resp, err := client.Get(url)
		if err != nil {
			return
		}
		resp.Body.Close()
	}
	t.Fatal("the listener still accepts connections")
}

// TestHTTPHostShutdown serves a tool over streamable HTTP whose call is
// in flight when the serving context ends: the listener closes, the call
// still finishes (it even calls the downstream) and is answered, then
// Serve returns nil and the registry is closed: the downstream pin
// server's process has exited.
func TestHTTPHostShutdown(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Fatal("this test reads the process tree from /proc (Linux)")
	}
	bin := buildPinServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg := pinsRegistry(t, bin)
	if _, err := CallRaw(ctx, reg.Server("pins"), bindimpl.Tool{Name: "add"}, map[string]int{"a": 1, "b": 1}); err != nil {
		t.Fatal(err)
	}
	pid := childProcess(t, bin)

	started, release := make(chan struct{}, 1), make(chan struct{})
	host, stop, served := startHost(t, ctx, slowServer(reg, started, release), HostOptions{Registry: reg})
	sess, err := Connect(ctx, HTTP(host.URL()))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	type answer struct {
		r   *Result
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		r, err := CallRaw(ctx, sess, bindimpl.Tool{Name: "slow"}, map[string]any{})
		answered <- answer{r, err}
	}()
	<-started
	stop()
	refusesConnections(ctx, t, strings.TrimSuffix(host.URL(), "/mcp")+LivenessPath)
	close(release)
	a := <-answered
	if a.err != nil {
		t.Fatalf("the call in flight at shutdown: %v", a.err)
	}
	if len(a.r.Content) != 1 || !strings.Contains(string(a.r.Content[0].Text), `"sum":3`) {
		t.Errorf("the call in flight at shutdown answered %+v", a.r)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !processGone(pid) {
		t.Errorf("the downstream process %d still runs after Serve returned", pid)
	}
	if st := reg.Status(); len(st) != 1 || st[0].State != StateClosed {
		t.Errorf("registry after Serve: %+v", st)
	}
}

// TestHTTPHostShutdownBound ends the serving context while a call that
// never finishes on its own is in flight: once ShutdownTimeout has passed
// its connection is closed, the call fails at the client, and Serve
// returns and closes the registry.
func TestHTTPHostShutdownBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reg := NewRegistry()
	started := make(chan struct{}, 1)
	host, stop, served := startHost(t, ctx, slowServer(reg, started, nil), HostOptions{Registry: reg, ShutdownTimeout: 50 * time.Millisecond})
	sess, err := Connect(ctx, HTTP(host.URL()))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	failed := make(chan error, 1)
	go func() {
		_, err := CallRaw(ctx, sess, bindimpl.Tool{Name: "slow"}, map[string]any{})
		failed <- err
	}()
	<-started
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return once ShutdownTimeout had passed")
	}
	if err := <-failed; err == nil {
		t.Error("the call cut at shutdown succeeded")
	}
	if st := reg.Status(); st != nil && len(st) != 0 {
		t.Errorf("registry after Serve: %+v", st)
	}
	if err := reg.Add("late", Stdio("true")); err == nil {
		t.Error("the registry was not closed by Serve")
	}
}

// TestRunStdioFinishesInFlight sends a call, then ends stdin or the
// serving context while it is in flight: with RunStdio the call still runs
// to its end (calling the downstream) and is answered, RunStdio returns nil
// and the registry is closed.
func TestRunStdioFinishesInFlight(t *testing.T) {
	bin := buildPinServer(t)
	for _, end := range []string{"end of stdin", "context ended"} {
		t.Run(end, func(t *testing.T) { runStdioInFlight(t, bin, end == "end of stdin") })
	}
}

// runStdioInFlight is a case of TestRunStdioFinishesInFlight: atEOF
// closes stdin, else the serving context ends.
func runStdioInFlight(t *testing.T, bin string, atEOF bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg := pinsRegistry(t, bin)
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	started, release := make(chan struct{}, 1), make(chan struct{})
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	ran := make(chan error, 1)
	go func() {
		ran <- RunStdio(serveCtx, slowServer(reg, started, release), inR, outW, HostOptions{Registry: reg})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !lines.Scan() {
		t.Fatal("no answer to initialize")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-started
	if atEOF {
		inW.Close()
	} else {
		stop()
	}
	close(release)
	if !lines.Scan() {
		t.Fatalf("no answer to the call in flight at the end of stdin (%v)", lines.Err())
	}
	var resp struct {
		ID     int                 `json:"id"`
		Result *mcp.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal(lines.Bytes(), &resp); err != nil || resp.ID != 2 || resp.Result == nil || resp.Result.IsError ||
		!strings.Contains(lines.Text(), `\"sum\":3`) {
		t.Fatalf("answer to the call in flight: %s (%v)", lines.Bytes(), err)
	}
	if err := <-ran; err != nil {
		t.Errorf("RunStdio: %v", err)
	}
	if st := reg.Status(); len(st) != 1 || st[0].State != StateClosed {
		t.Errorf("registry after RunStdio: %+v", st)
	}
}

// getJSON GETs url with the headers and decodes a JSON body into out (if
// not nil); it returns the response (body read).
func getJSON(t *testing.T, method, url string, header http.Header, out any) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, body, err)
		}
	}
	return resp, string(body)
}

// startHost listens with opts and serves s until stop is called (or ctx
// ends); served gets Serve's result. The test ends by calling stop.
func startHost(t *testing.T, ctx context.Context, s *server.MCPServer, opts HostOptions) (host *HTTPHost, stop context.CancelFunc, served <-chan error) {
	t.Helper()
	host, err := ListenHTTP(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	done := make(chan error, 1)
	go func() { done <- host.Serve(serveCtx) }()
	return host, stop, done
}

// serveHost serves s with opts until the test ends.
func serveHost(t *testing.T, s *server.MCPServer, opts HostOptions) *HTTPHost {
	t.Helper()
	host, stop, served := startHost(t, context.Background(), s, opts)
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return host
}

// TestHTTPHostReadiness serves an empty composing server over a registry
// that pins greet of a pin server under DigestFail: ready (200) until
// greet changes, then not ready (503) with the server degraded and greet
// blocked in the body; liveness stays 200.
func TestHTTPHostReadiness(t *testing.T) {
	bin := buildPinServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := Stdio(bin, "-state", filepath.Join(t.TempDir(), "changes"))
	pins := exportPins(ctx, t, tr)
	warned := make(pinWarnings, 64)
	reg := NewRegistry()
	defer reg.Close()
	if err := reg.Add("pins", tr, warned.option(), pins.check("", DigestFail, "greet")); err != nil {
		t.Fatal(err)
	}
	host := serveHost(t, server.NewMCPServer("empty", "1.0.0"), HostOptions{Registry: reg})
	base := strings.TrimSuffix(host.URL(), "/mcp")

	var ready Readiness
	if resp, body := getJSON(t, http.MethodGet, base+ReadinessPath, nil, &ready); resp.StatusCode != http.StatusOK || !ready.Ready {
		t.Fatalf("readiness before any call: %d %s", resp.StatusCode, body)
	}
	if _, err := CallRaw(ctx, reg.Server("pins"), bindimpl.Tool{Name: "mutate"}, map[string]string{"change": "description"}); err != nil {
		t.Fatal(err)
	}
	warned.waitFor(ctx, t, `tool "greet" changed`)
	ready = Readiness{}
	resp, body := getJSON(t, http.MethodGet, base+ReadinessPath, nil, &ready)
	if resp.StatusCode != http.StatusServiceUnavailable || ready.Ready || len(ready.Servers) != 1 ||
		ready.Servers[0].State != StateDegraded || len(ready.Servers[0].ChangedTools) != 1 || !ready.Servers[0].ChangedTools[0].Blocked {
		t.Errorf("readiness with greet blocked: %d %s", resp.StatusCode, body)
	}
	if resp, body := getJSON(t, http.MethodGet, base+LivenessPath, nil, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"ok"`) {
		t.Errorf("liveness: %d %s", resp.StatusCode, body)
	}
	// Counting only other servers, it is ready again.
	host2 := serveHost(t, server.NewMCPServer("empty", "1.0.0"), HostOptions{Registry: reg, Ready: func(st []ServerStatus) bool {
		return DefaultReady(slicesDeleteID(st, "pins"))
	}})
	if resp, body := getJSON(t, http.MethodGet, strings.TrimSuffix(host2.URL(), "/mcp")+ReadinessPath, nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("readiness not counting pins: %d %s", resp.StatusCode, body)
	}
}

// slicesDeleteID is st without the server id.
func slicesDeleteID(st []ServerStatus, id string) []ServerStatus {
	var out []ServerStatus
	for _, s := range st {
		if s.ID != id {
			out = append(out, s)
		}
	}
	return out
}

// TestHTTPHostOrigin refuses a request whose Origin is not allowed with
// 403 (no body from mcp-go), accepts one without Origin and one from the
// listener's loopback origin.
func TestHTTPHostOrigin(t *testing.T) {
	host := serveHost(t, server.NewMCPServer("empty", "1.0.0"), HostOptions{})
	for _, origin := range []string{"http://evil.example", "null", "http://127.0.0.1:1"} {
		resp, body := getJSON(t, http.MethodPost, host.URL(), http.Header{"Origin": {origin}}, nil)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "Origin is not allowed") {
			t.Errorf("Origin %s: %d %s", origin, resp.StatusCode, body)
		}
	}
	port := host.Addr().String()[strings.LastIndex(host.Addr().String(), ":")+1:]
	for _, h := range []http.Header{nil, {"Origin": {"http://localhost:" + port}}} {
		if resp, body := getJSON(t, http.MethodPost, host.URL(), h, nil); resp.StatusCode == http.StatusForbidden {
			t.Errorf("headers %v: %d %s", h, resp.StatusCode, body)
		}
	}
	if resp, _ := getJSON(t, http.MethodGet, strings.TrimSuffix(host.URL(), "/mcp")+ReadinessPath, http.Header{"Origin": {"http://evil.example"}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("readiness from a foreign origin: %d", resp.StatusCode)
	}
}

// TestHTTPHostRefusesNonLoopback refuses to listen on a non-loopback
// address without authentication, and listens with it.
func TestHTTPHostRefusesNonLoopback(t *testing.T) {
	s := server.NewMCPServer("empty", "1.0.0")
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "example.com:0"} {
		if h, err := ListenHTTP(s, HostOptions{Addr: addr}); err == nil || !strings.Contains(err.Error(), "without authentication") {
			if h != nil {
				h.ln.Close()
			}
			t.Errorf("ListenHTTP(%s) without auth: %v", addr, err)
		}
	}
	verify := func(ctx context.Context, _ string) (context.Context, error) { return ctx, nil }
	host := serveHost(t, s, HostOptions{Addr: "0.0.0.0:0", Auth: &BearerAuth{Verify: verify}})
	if !strings.HasPrefix(host.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %s", host.URL())
	}
}

// callerKey carries the verified caller in a request's context.
type callerKey struct{}

// TestHTTPHostBearer requires a bearer token: none or a refused one gets
// 401 with a challenge naming the protected-resource metadata, which is
// served (RFC 9728); one lacking a scope gets 403; no body carries the
// token; a composition client with the good token calls a tool, whose
// handler sees the caller Verify put in the context.
func TestHTTPHostBearer(t *testing.T) {
	const good, bad, low = "good-token-4c1d", "bad-token-9f3e", "low-token-77ab"
	verify := func(ctx context.Context, token string) (context.Context, error) {
		switch token {
		case good:
			return context.WithValue(ctx, callerKey{}, "ada"), nil
		case low:
			return nil, &InsufficientScopeError{Scope: "insights:read"}
		}
		return nil, fmt.Errorf("token %s is unknown", token) // a careless verifier
	}
	s := server.NewMCPServer("whoami", "1.0.0")
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who, _ := ctx.Value(callerKey{}).(string)
		return mcp.NewToolResultText(who), nil
	})
	host := serveHost(t, s, HostOptions{Auth: &BearerAuth{Verify: verify, Metadata: server.ProtectedResourceMetadataConfig{
		AuthorizationServers: []string{"https://auth.example"},
	}}})
	metaURL := strings.TrimSuffix(host.URL(), "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	challenge := `resource_metadata="` + metaURL + `"`

	for _, tc := range []struct {
		auth, want string
		code       int
	}{
		{"", `Bearer ` + challenge, http.StatusUnauthorized},
		{"Bearer " + bad, `Bearer error="invalid_token", ` + challenge, http.StatusUnauthorized},
		{"Basic " + good, `Bearer ` + challenge, http.StatusUnauthorized},
		{"Bearer " + low, `Bearer error="insufficient_scope", scope="insights:read", ` + challenge, http.StatusForbidden},
	} {
		h := http.Header{}
		if tc.auth != "" {
			h.Set("Authorization", tc.auth)
		}
		resp, body := getJSON(t, http.MethodPost, host.URL(), h, nil)
		if resp.StatusCode != tc.code || resp.Header.Get("WWW-Authenticate") != tc.want {
			t.Errorf("Authorization %q: %d %q %s", tc.auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		for _, secret := range []string{good, bad, low} {
			if strings.Contains(body, secret) {
				t.Errorf("Authorization %q: the body %s carries a token", tc.auth, body)
			}
		}
	}
	var meta server.ProtectedResourceMetadataConfig
	if resp, body := getJSON(t, http.MethodGet, metaURL, nil, &meta); resp.StatusCode != http.StatusOK ||
		meta.Resource != host.URL() || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != "https://auth.example" {
		t.Errorf("protected-resource metadata: %d %s", resp.StatusCode, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := Connect(ctx, HTTP(host.URL()), WithBearerToken(good))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	r, err := CallRaw(ctx, sess, bindimpl.Tool{Name: "whoami"}, map[string]any{})
	if err != nil || len(r.Content) != 1 || r.Content[0].Text != "ada" {
		t.Fatalf("whoami with the good token: %+v %v", r, err)
	}
	if _, err := Connect(ctx, HTTP(host.URL()), WithBearerToken(bad)); err == nil || strings.Contains(err.Error(), bad) {
		t.Errorf("connecting with a bad token: %v", err)
	}
}

// tenantKey carries a request header in a tool handler's context.
type tenantKey struct{}

// TestHTTPHostStreamableOptions passes mcp-go's WithHTTPContextFunc through
// HostOptions.Streamable: the tool handler sees what it put in the context.
func TestHTTPHostStreamableOptions(t *testing.T) {
	s := server.NewMCPServer("tenant", "1.0.0")
	s.AddTool(mcp.NewTool("tenant"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tenant, _ := ctx.Value(tenantKey{}).(string)
		return mcp.NewToolResultText(tenant), nil
	})
	host := serveHost(t, s, HostOptions{Streamable: []server.StreamableHTTPOption{
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, tenantKey{}, r.Header.Get("X-Tenant"))
		}),
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := Connect(ctx, HTTP(host.URL()), WithHeader("X-Tenant", "t1"))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if r, err := CallRaw(ctx, sess, bindimpl.Tool{Name: "tenant"}, map[string]any{}); err != nil || len(r.Content) != 1 || r.Content[0].Text != "t1" {
		t.Fatalf("tenant: %+v %v", r, err)
	}
}
