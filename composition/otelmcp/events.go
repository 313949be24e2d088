package otelmcp

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
)

// The span events of a registry call, and their attributes that the
// conventions do not name (they are mcpbind's).
const (
	// EventNameReconnect is the span event of composition.EventReconnect:
	// a registry call waited for its server to be reconnected.
	EventNameReconnect = "mcpbind.registry.reconnect"
	// EventNameRetry is the span event of composition.EventRetry: a
	// registry call was sent again on a new session.
	EventNameRetry = "mcpbind.registry.retry"

	// AttrServerID is the server's id in the registry (string).
	AttrServerID = attribute.Key("mcpbind.server.id")
	// AttrDuration is the event's duration in seconds (double), when it
	// has one.
	AttrDuration = attribute.Key("mcpbind.duration")
	// AttrErrorMessage is the text of the event's error (a failed
	// reconnect), redacted and escaped; error.type classifies it.
	AttrErrorMessage = attribute.Key("mcpbind.error.message")
	// AttrMayHaveRun is a retry's: whether the first attempt may have run
	// on the server (bool).
	AttrMayHaveRun = attribute.Key("mcpbind.call.may_have_run")
)

// Event records e, an event of a client session or registry (ClientOption
// passes it to composition.WithEvents): the life of an ended session into
// mcp.client.session.duration, and a registry call's reconnect or retry as
// a span event of the span in ctx (the call's caller's span; each attempt
// has its own CLIENT span). EventSessionStart records nothing.
func (t *Telemetry) Event(ctx context.Context, e composition.Event) {
	switch e.Kind {
	case composition.EventSessionEnd:
		if !t.clientSession.Enabled(ctx) {
			return
		}
		var buf [6]attribute.KeyValue
		kv := appendSession(buf[:0], e)
		if e.Peer.Address != "" {
			kv = append(kv, semconv.ServerAddress(e.Peer.Address))
			if e.Peer.Port != 0 {
				kv = append(kv, semconv.ServerPort(e.Peer.Port))
			}
		}
		t.clientSession.Record(ctx, e.Duration.Seconds(), kv...)
	case composition.EventReconnect, composition.EventRetry:
		span := trace.SpanFromContext(ctx)
		if !span.IsRecording() {
			return
		}
		name := EventNameReconnect
		if e.Kind == composition.EventRetry {
			name = EventNameRetry
		}
		kv := []attribute.KeyValue{AttrServerID.String(e.Server)}
		if e.Tool != "" {
			kv = append(kv, semconv.GenAIToolName(e.Tool))
		}
		kv = appendPeer(kv, e.Peer.Transport, e.Peer.ProtocolVersion)
		if e.Peer.SessionID != "" {
			kv = append(kv, semconv.McpSessionID(e.Peer.SessionID))
		}
		if e.Duration > 0 {
			kv = append(kv, AttrDuration.Float64(e.Duration.Seconds()))
		}
		if e.Kind == composition.EventRetry {
			kv = append(kv, AttrMayHaveRun.Bool(e.MayHaveRun))
		}
		if e.Err != nil {
			kv = append(kv, semconv.ErrorTypeKey.String(errorClass(e.Err)), AttrErrorMessage.String(errorText(e.Err)))
		}
		span.AddEvent(name, trace.WithAttributes(kv...))
	}
}

// ServerEvent records e, an event of a server's client session (pass it
// to composition.ServerEvents or gosdk.ServerEvents): the life of an
// ended session into mcp.server.session.duration. It is apart from Event
// because an Event does not say which side reported it, and the
// conventions keep the two sides in two histograms.
func (t *Telemetry) ServerEvent(ctx context.Context, e composition.Event) {
	if e.Kind != composition.EventSessionEnd || !t.serverSession.Enabled(ctx) {
		return
	}
	var buf [4]attribute.KeyValue
	t.serverSession.Record(ctx, e.Duration.Seconds(), appendSession(buf[:0], e)...)
}

// appendSession appends the attributes of an ended session's histogram:
// its connection's, and error.type when it ended with an error (not
// Close).
func appendSession(kv []attribute.KeyValue, e composition.Event) []attribute.KeyValue {
	kv = appendPeer(kv, e.Peer.Transport, e.Peer.ProtocolVersion)
	if e.Err != nil {
		kv = append(kv, semconv.ErrorTypeKey.String(errorClass(e.Err)))
	}
	return kv
}
