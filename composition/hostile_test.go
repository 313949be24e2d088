package composition

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// hostile returns the stdio transport of testservers/hostileserver serving
// spec (see its package doc: tools with a "behave" member, stderrAtStart,
// exitAtStart), and the option that hands it the spec file.
func hostile(t testing.TB, spec map[string]any) (Transport, Option) {
	t.Helper()
	bin := testenv.Build(t, "./testservers/hostileserver")
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return Stdio(bin), WithEnv("MCPBIND_HOSTILE_SPEC=" + file)
}

// floodSpec is a server with one tool to pin ("pinned") and one that
// starts a flood of notifications/tools/list_changed ("flood").
func floodSpec() map[string]any {
	return map[string]any{
		"serverInfo": map[string]string{"name": "flooder", "version": "1"},
		"tools": []map[string]any{
			{"name": "pinned", "description": "a pinned tool", "inputSchema": map[string]any{"type": "object"}},
			{"name": "flood", "description": "starts the flood", "behave": map[string]any{"flood": true}},
		},
	}
}

// floodedSession connects to the flood server with "pinned" pinned under
// DigestFail, starts the flood and returns once the session has received
// 200 notifications/tools/list_changed.
func floodedSession(ctx context.Context, t testing.TB) *Session {
	t.Helper()
	tr, opts := floodPins(ctx, t)
	s, err := Connect(ctx, tr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	startFlood(ctx, t, s)
	return s
}

// floodPins returns the flood server's transport and the options that pin
// its tool "pinned" under DigestFail, at protocol 2025-11-25.
func floodPins(ctx context.Context, t testing.TB) (Transport, []Option) {
	t.Helper()
	tr, env := hostile(t, floodSpec())
	const version = "2025-11-25"
	pins := exportPins(ctx, t, tr, env, WithProtocolVersion(version))
	return tr, []Option{env, WithProtocolVersion(version), WithDigestCheckAt(pins.server, version, DigestFail, pins.tools["pinned"])}
}

// startFlood calls the flood server's "flood" tool on s and returns once s
// has received 200 notifications/tools/list_changed.
func startFlood(ctx context.Context, t testing.TB, s *Session) {
	t.Helper()
	flooding := make(chan struct{})
	var n atomic.Int64
	s.c.(*mcpconn.Conn).Client().OnNotification(func(m mcp.JSONRPCNotification) {
		if m.Method == string(mcp.MethodNotificationToolsListChanged) && n.Add(1) == 200 {
			close(flooding)
		}
	})
	if _, err := s.CallResult(ctx, "flood", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-flooding:
	case <-ctx.Done():
		t.Fatalf("the flood did not start: %v", ctx.Err())
	}
}
