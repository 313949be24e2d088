package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// slowSession is a connected fake server whose tools/list waits at a
// barrier and which counts how many sessions are open at once.
type slowSession struct {
	name   string
	open   *atomic.Int32
	gate   *barrier
	closed atomic.Bool
}

func (s *slowSession) ProtocolVersion() string { return "2025-11-25" }
func (s *slowSession) Transport() string       { return "stdio" }
func (s *slowSession) ServerInfo() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"version":"1"}`, s.name))
}
func (s *slowSession) Capabilities() json.RawMessage { return json.RawMessage(`{"tools":{}}`) }
func (s *slowSession) Instructions() string          { return "" }
func (s *slowSession) ListToolsRaw(ctx context.Context) ([]json.RawMessage, error) {
	if err := s.gate.wait(ctx); err != nil {
		return nil, err
	}
	return []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object"}}`)}, nil
}

// barrier holds the first size callers of wait until size of them wait at
// once, then lets every caller through. It fails a caller after hangBound,
// which happens only when fewer than size can run at once.
type barrier struct {
	size    int
	mu      sync.Mutex
	arrived int
	full    chan struct{}
}

// hangBound is how long a test waits for something that must happen before
// it reports a hang: generous, so that it fails only on a genuine hang.
const hangBound = time.Minute

func newBarrier(size int) *barrier { return &barrier{size: size, full: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context) error {
	b.mu.Lock()
	b.arrived++
	n := b.arrived
	b.mu.Unlock()
	if n == b.size {
		// Before letting them go, yield: a goroutine that would open one
		// session too many gets to run while size are held.
		for range 1000 {
			runtime.Gosched()
		}
		close(b.full)
	}
	select {
	case <-b.full:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(hangBound):
		return fmt.Errorf("only %d of %d calls ran at once within %v", n, b.size, hangBound)
	}
}

func (s *slowSession) Close() error {
	if s.closed.CompareAndSwap(false, true) {
		s.open.Add(-1)
	}
	return nil
}

// TestExportAllConcurrency checks the bound on concurrent connections, that
// outcomes keep the targets' order, that one failure leaves the others
// exported, and that secrets are hidden from errors and log lines.
func TestExportAllConcurrency(t *testing.T) {
	const secret = "very-secret-token-42"
	var open, peak atomic.Int32
	var targets []*Target
	for i := range 9 {
		targets = append(targets, &Target{ID: fmt.Sprintf("s%d", i), Transport: composition.Stdio(fmt.Sprintf("server-%d", i)), Secrets: []string{secret}})
	}
	var mu sync.Mutex
	var lines []string
	// The first three sessions wait in tools/list until all three are
	// open: the export runs Concurrency sessions at once, and a fourth
	// would show in peak.
	gate := newBarrier(3)
	outcomes := ExportAll(context.Background(), targets, MultiOptions{
		Concurrency: 3,
		Log: func(server string, warning bool, msg string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf("%s %v %s", server, warning, msg))
		},
		Connect: func(ctx context.Context, t *Target) (ClosableSession, error) {
			if t.ID == "s4" {
				return nil, fmt.Errorf("cannot reach %s with key %s: %w", t.ID, secret, fs.ErrNotExist)
			}
			n := open.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			return &slowSession{name: "Server " + t.ID, open: &open, gate: gate}, nil
		},
	})
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency %d, want 3 with Concurrency 3", p)
	}
	if open.Load() != 0 {
		t.Errorf("%d sessions left open", open.Load())
	}
	for i, o := range outcomes {
		if o.Target != targets[i] {
			t.Fatalf("outcome %d is for %s", i, o.Target.ID)
		}
		if i == 4 {
			if o.Err == nil || o.Server != nil {
				t.Fatalf("s4: %+v", o)
			}
			if strings.Contains(o.Err.Error(), secret) || !strings.Contains(o.Err.Error(), "with key ***") {
				t.Errorf("s4 error not redacted: %v", o.Err)
			}
			if !errors.Is(o.Err, fs.ErrNotExist) {
				t.Errorf("s4 error does not unwrap: %v", o.Err)
			}
			continue
		}
		if o.Err != nil || o.Server == nil || o.Server.ID != targets[i].ID || len(o.Server.Tools) != 1 {
			t.Errorf("outcome %d: %+v", i, o)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, secret) {
			t.Errorf("log line shows the secret: %s", l)
		}
	}
	if len(lines) < 3*8 {
		t.Errorf("%d log lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// TestExportAllRealServers exports sqlite-explorer (mcp-go) and
// @modelcontextprotocol/server-everything (npm) over stdio at once, beside a
// server whose binary does not exist.
func TestExportAllRealServers(t *testing.T) {
	sqlCmd, sqlArgs := testenv.SQLiteExplorerStdio(t)
	node, evArgs := testenv.ServerEverything(t)
	targets := []*Target{
		{ID: "sqlite", Transport: composition.Stdio(sqlCmd, sqlArgs...), Timeout: time.Minute},
		{ID: "missing", Transport: composition.Stdio("/nonexistent/mcp-server"), Timeout: time.Minute},
		{ID: "everything", Transport: composition.Stdio(node, evArgs...), Timeout: time.Minute,
			ProtocolVersion: "2025-06-18", Options: []composition.Option{composition.WithProtocolVersion("2025-06-18")}},
	}
	var mu sync.Mutex
	var log bytes.Buffer
	outcomes := ExportAll(t.Context(), targets, MultiOptions{Log: func(server string, warning bool, msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&log, "[%s] %v %s\n", server, warning, msg)
	}})
	sq, missing, ev := outcomes[0], outcomes[1], outcomes[2]
	if sq.Err != nil || ev.Err != nil {
		t.Fatalf("sqlite: %v\neverything: %v\nlog:\n%s", sq.Err, ev.Err, log.String())
	}
	var ce *composition.ConnectError
	if !errors.As(missing.Err, &ce) || ce.Stage != "start" || missing.Server != nil {
		t.Errorf("missing: %v", missing.Err)
	}
	if sq.Server.ID != "sqlite" || sq.Server.ProtocolVersion != "2026-07-28" || len(sq.Server.Tools) < 5 {
		t.Errorf("sqlite: %s %s %d tools", sq.Server.ID, sq.Server.ProtocolVersion, len(sq.Server.Tools))
	}
	if ev.Server.ID != "everything" || ev.Server.ProtocolVersion != "2025-06-18" || len(ev.Server.Tools) < 5 {
		t.Errorf("everything: %s %s %d tools", ev.Server.ID, ev.Server.ProtocolVersion, len(ev.Server.Tools))
	}
	for _, want := range []string{"[sqlite] false connecting to ", "[everything] false exported ", "[missing] false connecting to /nonexistent/mcp-server"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	data, err := (&bundle.Bundle{Servers: []bundle.Server{*sq.Server, *ev.Server}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Parse(data, "both.json"); err != nil {
		t.Fatal(err)
	}
}

func TestMerge(t *testing.T) {
	server := func(id, tool string) bundle.Server {
		tl, err := bundle.NewTool(json.RawMessage(fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, tool)))
		if err != nil {
			t.Fatal(err)
		}
		return bundle.Server{ID: id, ServerInfo: json.RawMessage(`{"name":"x","version":"1"}`),
			ProtocolVersion: "2025-11-25", Transport: "stdio", Tools: []bundle.Tool{tl}}
	}
	old := &bundle.Bundle{Servers: []bundle.Server{server("a", "one"), server("b", "one"), server("c", "one")}}
	before, err := old.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	merged := Merge(old, []bundle.Server{server("b", "two"), server("d", "one")})
	after, err := merged.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Parse(after, "after.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range b.Servers {
		got = append(got, s.ID+":"+s.Tools[0].Name)
	}
	if strings.Join(got, " ") != "a:one b:two c:one d:one" {
		t.Errorf("merged %v", got)
	}
	if len(old.Servers) != 3 || old.Servers[1].Tools[0].Name != "one" {
		t.Error("Merge modified its input")
	}
	// a and c are byte for byte what they were.
	was, now := serverBytes(t, before), serverBytes(t, after)
	for _, id := range []string{"a", "c"} {
		if !bytes.Equal(was[id], now[id]) {
			t.Errorf("server %s changed:\n%s\n%s", id, was[id], now[id])
		}
	}
	if bytes.Equal(was["b"], now["b"]) {
		t.Error("server b was not replaced")
	}
}

// serverBytes returns the bytes of each server object of a bundle file, by
// id, exactly as they are in the file.
func serverBytes(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	var top struct {
		Servers []json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, raw := range top.Servers {
		var s struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		out[s.ID] = raw
	}
	return out
}
