package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/serverconfig"
	"github.com/mcpbind/mcpbind/examples/insights/insights"
	"github.com/mcpbind/mcpbind/examples/insights/memory"
	"github.com/mcpbind/mcpbind/examples/insights/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// balancer is a reverse proxy (net/http/httputil) in front of replicas of
// one MCP server: each request goes to the next replica in turn
// (round-robin), or, with affinity, a request carrying an Mcp-Session-Id
// goes to the replica that issued that session ID. It counts the tools/call
// requests each replica was sent.
type balancer struct {
	backends []*url.URL
	affinity bool
	next     atomic.Uint64
	calls    []atomic.Int64 // tools/call requests sent to each backend

	mu       sync.Mutex
	sessions map[string]int // Mcp-Session-Id → backend (affinity only)
}

// backendKey is the context key of the index of the backend a proxied
// request was sent to.
type backendKey struct{}

// newBalancer returns a balancer over the endpoint URLs and serves it on
// loopback for the test's duration; it returns the balancer and the URL of
// its /mcp endpoint.
func newBalancer(t *testing.T, affinity bool, endpoints ...string) (*balancer, string) {
	t.Helper()
	b := &balancer{affinity: affinity, calls: make([]atomic.Int64, len(endpoints)), sessions: map[string]int{}}
	for _, e := range endpoints {
		u, err := url.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		b.backends = append(b.backends, u)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:        b.rewrite,
		ModifyResponse: b.remember,
		FlushInterval:  -1, // SSE responses are streamed as they come
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return b, srv.URL + "/mcp"
}

// rewrite picks the backend of pr and counts a tools/call.
func (b *balancer) rewrite(pr *httputil.ProxyRequest) {
	i := -1
	if b.affinity {
		if id := pr.In.Header.Get("Mcp-Session-Id"); id != "" {
			b.mu.Lock()
			if j, ok := b.sessions[id]; ok {
				i = j
			}
			b.mu.Unlock()
		}
	}
	if i < 0 {
		i = int((b.next.Add(1) - 1) % uint64(len(b.backends)))
	}
	if pr.In.Method == http.MethodPost && pr.In.Body != nil {
		body, err := io.ReadAll(pr.In.Body)
		if err == nil {
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
				b.calls[i].Add(1)
			}
		}
		pr.Out.Body = io.NopCloser(bytes.NewReader(body))
		pr.Out.ContentLength = int64(len(body))
	}
	pr.SetURL(b.backends[i])
	pr.Out.URL.Path = b.backends[i].Path // the replica's /mcp, not /mcp/mcp
	pr.Out = pr.Out.WithContext(context.WithValue(pr.Out.Context(), backendKey{}, i))
}

// remember records, with affinity, which backend issued a session ID.
func (b *balancer) remember(resp *http.Response) error {
	if !b.affinity {
		return nil
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		if i, ok := resp.Request.Context().Value(backendKey{}).(int); ok {
			b.mu.Lock()
			b.sessions[id] = i
			b.mu.Unlock()
		}
	}
	return nil
}

// counts returns the tools/call requests sent to each backend so far.
func (b *balancer) counts() []int64 {
	out := make([]int64, len(b.calls))
	for i := range b.calls {
		out[i] = b.calls[i].Load()
	}
	return out
}

// sharedData is the data the replicas of a test share: a servers config
// whose sqlite-explorer opens one database folder (--dir), and the
// server-memory file (insights' --memory, server-memory's
// MEMORY_FILE_PATH).
//
// Each replica has its own registry and so its own sqlite-explorer and
// server-memory processes; only the data is shared. sqlite-explorer opens
// the same SQLite file, whose locking serialises writers; server-memory
// reads its file at every call and rewrites it whole on a change, so every
// replica reads what any replica wrote, but two writes at once on two
// replicas may lose one (the test writes alone, then reads).
type sharedData struct {
	config, memory string
	node           string // the node that runs server-memory
}

// newSharedData writes the servers config (a built sqlite-explorer, the
// npm server-memory) into a folder of t.TempDir().
func newSharedData(t *testing.T) sharedData {
	t.Helper()
	node, memArgs := testenv.ServerMemory(t)
	explorer := testenv.Build(t, "./examples/sqlite-explorer")
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.yaml")
	yaml := fmt.Sprintf("servers:\n"+
		"  sqlite-explorer:\n"+
		"    command: [%q, --dir, %q]\n"+
		"  memory:\n"+
		"    command: [%q, %q]\n", explorer, filepath.Join(dir, "db"), node, memArgs[0])
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return sharedData{config: config, memory: filepath.Join(dir, "memory.jsonl"), node: node}
}

// startReplicas starts n insights processes serving streamable HTTP on
// loopback, as a user would run them (insights' own serving, mcp-go's
// default session IDs), on the shared data, and returns their endpoint
// URLs. The binary is built once.
func startReplicas(t *testing.T, data sharedData, n int) []string {
	t.Helper()
	bin := testenv.Build(t, "./examples/insights")
	var urls []string
	for range n {
		urls = append(urls, testenv.StartHTTP(t, bin, "--config", data.config, "--memory", data.memory, "--http", "127.0.0.1:0"))
	}
	return urls
}

// startStatefulReplicas starts n insights servers in this process on the
// shared data, each with its own registry, served by mcp-go's streamable
// HTTP transport in stateful mode (server.WithStateful: a replica refuses
// an Mcp-Session-Id it did not issue, with 404), as a server that keeps
// per-session state must be; it returns their endpoint URLs.
func startStatefulReplicas(t *testing.T, data sharedData, n int) []string {
	t.Helper()
	var urls []string
	for range n {
		reg, err := serverconfig.LoadRegistry(data.config)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = reg.Close() })
		if err := reg.Use("sqlite-explorer"); err != nil {
			t.Fatal(err)
		}
		if err := reg.Use("memory", composition.WithEnv("MEMORY_FILE_PATH="+data.memory)); err != nil {
			t.Fatal(err)
		}
		s, err := insights.NewServer(insights.Downstream{DB: sqliteexplorer.FromRegistry(reg), Memory: memory.FromRegistry(reg)})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateful(true)))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL+"/mcp")
	}
	return urls
}

// calls makes the calls of one client: table_report and findings in turn,
// checking each result, and returns the first error.
func calls(ctx context.Context, s *composition.Session, n int, observation string) error {
	for i := range n {
		if i%2 == 0 {
			res, err := s.CallResult(ctx, "table_report", insights.TableReportArgs{Tables: []string{"books"}, SampleRows: 1})
			if err != nil {
				return fmt.Errorf("call %d, table_report: %w", i, err)
			}
			var r insights.TableReport
			if err := res.DecodeJSON(&r); err != nil {
				return fmt.Errorf("call %d, table_report: %w", i, err)
			}
			if len(r.Tables) != 1 || r.Tables[0].RowCount != 24 {
				return fmt.Errorf("call %d, table_report: %+v", i, r)
			}
			continue
		}
		res, err := s.CallResult(ctx, "findings", insights.FindingsArgs{Table: "books"})
		if err != nil {
			return fmt.Errorf("call %d, findings: %w", i, err)
		}
		var f insights.Findings
		if err := res.DecodeJSON(&f); err != nil {
			return fmt.Errorf("call %d, findings: %w", i, err)
		}
		if len(f.Findings) != 1 || !slices.Contains(f.Findings[0].Observations, observation) {
			return fmt.Errorf("call %d, findings: %+v lacks %q", i, f, observation)
		}
	}
	return nil
}

// TestScaleOut runs two replicas of insights (processes, serving
// streamable HTTP) behind a round-robin reverse proxy without session
// affinity. Clients at protocol version 2026-07-28, which has no
// protocol-level session (each request stands alone), make 200 calls
// spread over both replicas without an error, and so do the TypeScript
// SDK's client's calls. Then initialize-era clients
// (2025-11-25): their tool calls also work there, since insights' serving
// (mcp-go's default) accepts a session ID another replica issued; against
// stateful replicas (server.WithStateful) they fail without affinity and
// work with Mcp-Session-Id affinity at the balancer.
func TestScaleOut(t *testing.T) {
	data := newSharedData(t)
	replicas := startReplicas(t, data, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// One write first, alone and on one replica (see sharedData); every
	// findings call below, on any replica, must see it.
	const observation = "Seen by every replica."
	if _, err := connect(ctx, t, replicas[0], composition.ModernProtocolVersion).CallResult(ctx, "remember_finding",
		insights.RememberFindingArgs{Table: "books", Observation: observation}); err != nil {
		t.Fatalf("remember_finding: %v", err)
	}

	t.Run("2026-07-28 round-robin", func(t *testing.T) {
		lb, endpoint := newBalancer(t, false, replicas...)
		const clients, perClient = 4, 50
		sessions := make([]*composition.Session, clients)
		for i := range sessions {
			sessions[i] = connect(ctx, t, endpoint, composition.ModernProtocolVersion)
		}
		// Four clients at once, each request going to the next replica.
		errs := make(chan error, clients)
		for _, s := range sessions {
			go func() { errs <- calls(ctx, s, perClient, observation) }()
		}
		for range clients {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		got := lb.counts()
		t.Logf("tools/call per replica: %v", got)
		if got[0]+got[1] != clients*perClient {
			t.Errorf("the replicas were sent %v tools/call requests, want %d in all", got, clients*perClient)
		}
		if got[0] == 0 || got[1] == 0 {
			t.Errorf("tools/call per replica: %v; want both replicas to serve calls", got)
		}
	})

	// A client that is not ours: the TypeScript SDK's, at the newest
	// version both sides speak, making its 20 calls at once.
	t.Run("2026-07-28 round-robin, TypeScript SDK client", func(t *testing.T) {
		lb, endpoint := newBalancer(t, false, replicas...)
		type call struct {
			Name      string `json:"name"`
			Arguments any    `json:"arguments"`
		}
		var list []call
		for range 10 {
			list = append(list,
				call{"table_report", insights.TableReportArgs{Tables: []string{"books"}, SampleRows: 1}},
				call{"findings", insights.FindingsArgs{Table: "books"}})
		}
		callsJSON, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(testenv.ModuleRoot(t), "testservers", "ts-http-client.mjs")
		cmd := exec.CommandContext(ctx, data.node, script, endpoint, string(callsJSON))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ts-http-client.mjs: %v\n%s", err, stderr.String())
		}
		var run struct {
			ProtocolVersion string `json:"protocolVersion"`
			Results         []struct {
				Thrown            string          `json:"thrown"`
				IsError           bool            `json:"isError"`
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"results"`
		}
		if err := json.Unmarshal(out, &run); err != nil {
			t.Fatalf("ts-http-client.mjs printed %q: %v", out, err)
		}
		if run.ProtocolVersion != composition.ModernProtocolVersion {
			t.Errorf("the TypeScript SDK negotiated %q, want %s", run.ProtocolVersion, composition.ModernProtocolVersion)
		}
		if len(run.Results) != len(list) {
			t.Fatalf("%d results for %d calls", len(run.Results), len(list))
		}
		for i, r := range run.Results {
			if r.Thrown != "" || r.IsError {
				t.Errorf("call %d (%s): thrown %q, isError %v: %s", i, list[i].Name, r.Thrown, r.IsError, r.StructuredContent)
			} else if list[i].Name == "findings" && !bytes.Contains(r.StructuredContent, []byte(observation)) {
				t.Errorf("call %d (findings): %s lacks %q", i, r.StructuredContent, observation)
			}
		}
		if got := lb.counts(); got[0]+got[1] != int64(len(list)) || got[0] == 0 || got[1] == 0 {
			t.Errorf("tools/call per replica: %v; want %d in all, on both replicas", got, len(list))
		}
	})

	// insights' own serving issues session IDs that every replica accepts
	// without looking them up, so the tool calls of a 2025-era session
	// work on any replica (what stays on the replica that answered
	// initialize is the rest of the session: see the README).
	t.Run("2025-11-25 round-robin, insights' serving", func(t *testing.T) {
		lb, endpoint := newBalancer(t, false, replicas...)
		s := connect(ctx, t, endpoint, "2025-11-25")
		if err := calls(ctx, s, 20, observation); err != nil {
			t.Error(err)
		}
		if got := lb.counts(); got[0] != 10 || got[1] != 10 {
			t.Errorf("tools/call per replica: %v, want [10 10]", got)
		}
	})

	stateful := startStatefulReplicas(t, data, 2)
	t.Run("2025-11-25 round-robin, stateful replicas", func(t *testing.T) {
		_, endpoint := newBalancer(t, false, stateful...)
		s, err := composition.Connect(ctx, composition.HTTP(endpoint), composition.WithProtocolVersion("2025-11-25"))
		if err == nil {
			defer s.Close()
			err = calls(ctx, s, 2, observation)
		}
		if err == nil {
			t.Fatal("a 2025-11-25 session worked on stateful replicas through a balancer without affinity")
		}
		// The second request of the session (notifications/initialized)
		// reached the replica that did not issue its ID.
		if !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "does not know this session") {
			t.Errorf("without affinity: %v; want the replica's 404 for an unknown session", err)
		}
	})
	t.Run("2025-11-25 with affinity, stateful replicas", func(t *testing.T) {
		lb, endpoint := newBalancer(t, true, stateful...)
		// Two sessions, one per replica (initialize goes round-robin),
		// making different numbers of calls: each replica's count is one
		// session's, so every call stayed with its session's replica.
		a := connect(ctx, t, endpoint, "2025-11-25")
		b := connect(ctx, t, endpoint, "2025-11-25")
		if err := calls(ctx, a, 10, observation); err != nil {
			t.Error(err)
		}
		if err := calls(ctx, b, 20, observation); err != nil {
			t.Error(err)
		}
		if got := lb.counts(); got[0] != 10 || got[1] != 20 {
			t.Errorf("tools/call per replica: %v, want [10 20]", got)
		}
	})
	t.Run("2026-07-28 round-robin, stateful replicas", func(t *testing.T) {
		lb, endpoint := newBalancer(t, false, stateful...)
		if err := calls(ctx, connect(ctx, t, endpoint, composition.ModernProtocolVersion), 20, observation); err != nil {
			t.Error(err)
		}
		if got := lb.counts(); got[0] != 10 || got[1] != 10 {
			t.Errorf("tools/call per replica: %v, want [10 10]", got)
		}
	})
}

// connect opens a session through endpoint at protocol version v, closed
// when the test ends.
func connect(ctx context.Context, t *testing.T, endpoint, v string) *composition.Session {
	t.Helper()
	s, err := composition.Connect(ctx, composition.HTTP(endpoint), composition.WithProtocolVersion(v))
	if err != nil {
		t.Fatalf("connecting at %s: %v", v, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if got := s.ProtocolVersion(); got != v {
		t.Fatalf("negotiated %s, want %s", got, v)
	}
	return s
}
