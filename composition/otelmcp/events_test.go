package otelmcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
)

// TestSessionDurations: a client session's end goes to
// mcp.client.session.duration (with server.address and port, and
// error.type when it was lost), a server session's end (ServerEvent) to
// mcp.server.session.duration; a session start records nothing.
func TestSessionDurations(t *testing.T) {
	r := newRecorder(t)
	ctx := context.Background()
	r.tel.Event(ctx, composition.Event{Kind: composition.EventSessionStart, Server: "s", Peer: httpPeer, Duration: time.Millisecond})
	r.tel.Event(ctx, composition.Event{Kind: composition.EventSessionEnd, Server: "s", Peer: httpPeer, Duration: 3 * time.Second,
		Err: &composition.SessionLostError{Server: "s", Err: errors.New("EOF")}})
	r.tel.ServerEvent(ctx, composition.Event{Kind: composition.EventSessionStart, Peer: stdioPeer})
	r.tel.ServerEvent(ctx, composition.Event{Kind: composition.EventSessionEnd, Peer: stdioPeer, Duration: 2 * time.Second})

	dp := r.point(t, "mcp.client.session.duration")
	checkAttrs(t, "client session", pointAttrs(dp), map[string]string{
		"mcp.protocol.version": "2026-07-28", "network.transport": "tcp", "network.protocol.name": "http",
		"server.address": "127.0.0.1", "server.port": "8123", "error.type": "session_lost",
	})
	if dp.Count != 1 || dp.Sum != 3 {
		t.Errorf("client session: count %d sum %v, want 1 and 3 s", dp.Count, dp.Sum)
	}
	dp = r.point(t, "mcp.server.session.duration")
	checkAttrs(t, "server session", pointAttrs(dp), map[string]string{"mcp.protocol.version": "2025-11-25", "network.transport": "pipe"})
	if dp.Count != 1 || dp.Sum != 2 {
		t.Errorf("server session: count %d sum %v, want 1 and 2 s", dp.Count, dp.Sum)
	}
}

// TestRegistryEvents: a reconnect and a retry are span events of the span
// in ctx, with the server id, tool, new session, duration, may-have-run
// and the reconnect error's class and redacted text.
func TestRegistryEvents(t *testing.T) {
	r := newRecorder(t)
	ctx, span := r.tp.Tracer("test").Start(context.Background(), "caller")
	r.tel.Event(ctx, composition.Event{Kind: composition.EventReconnect, Server: "db", Tool: "query", Peer: httpPeer,
		Duration: 1500 * time.Millisecond, Err: errors.New("dial https://u:secret@db.example/mcp: refused")})
	r.tel.Event(ctx, composition.Event{Kind: composition.EventRetry, Server: "db", Tool: "query", Peer: httpPeer, MayHaveRun: true})
	span.End()
	ev := r.one(t, "caller").Events()
	if len(ev) != 2 {
		t.Fatalf("events %v, want 2", ev)
	}
	peer := map[string]string{
		"mcpbind.server.id": "db", "gen_ai.tool.name": "query", "mcp.protocol.version": "2026-07-28",
		"mcp.session.id": "sess-1", "network.transport": "tcp", "network.protocol.name": "http",
	}
	if ev[0].Name != "mcpbind.registry.reconnect" {
		t.Errorf("event %q, want mcpbind.registry.reconnect", ev[0].Name)
	}
	checkAttrs(t, "reconnect", ev[0].Attributes, with(peer, "mcpbind.duration", "1.5", "error.type", "_OTHER",
		"mcpbind.error.message", "dial https://***@db.example/mcp: refused"))
	if ev[1].Name != "mcpbind.registry.retry" {
		t.Errorf("event %q, want mcpbind.registry.retry", ev[1].Name)
	}
	checkAttrs(t, "retry", ev[1].Attributes, with(peer, "mcpbind.call.may_have_run", "true"))
}
