package otelmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
)

// stdioPeer and httpPeer are the Peers of the unit tests' calls.
var (
	stdioPeer = composition.Peer{Transport: composition.TransportStdio, ProtocolVersion: "2025-11-25"}
	httpPeer  = composition.Peer{Transport: composition.TransportStreamableHTTP, ProtocolVersion: "2026-07-28",
		SessionID: "sess-1", Address: "127.0.0.1", Port: 8123}
)

// invoke runs the client interceptor of r on call with next, inside a
// parent span, and returns the parent's span context.
func invoke(t *testing.T, r *recorder, call composition.Call, next composition.Invoker) (trace.SpanContext, *composition.Result, error) {
	t.Helper()
	ctx, parent := r.tp.Tracer("test").Start(context.Background(), "parent")
	defer parent.End()
	res, err := r.tel.Interceptor()(ctx, call, next)
	return parent.SpanContext(), res, err
}

// TestClientSpanSuccess: a successful call over stdio is a CLIENT span
// "tools/call {tool}", child of ctx's span, with exactly the conventions'
// attributes (the request id read after next returned), its trace context
// in the request's _meta and in next's ctx, and one point of
// mcp.client.operation.duration without the session and request ids.
func TestClientSpanSuccess(t *testing.T) {
	r := newRecorder(t)
	call := composition.Call{Server: "srv", Tool: "get-weather", Args: map[string]any{"city": "Paris"}, Request: &composition.Request{}, Peer: stdioPeer}
	var inNext trace.SpanContext
	parent, res, err := invoke(t, r, call, func(ctx context.Context, c composition.Call) (*composition.Result, error) {
		inNext = trace.SpanContextFromContext(ctx)
		if got, want := c.Request.Meta.Get("traceparent"), fmt.Sprintf("00-%s-%s-01", inNext.TraceID(), inNext.SpanID()); got != want {
			t.Errorf("_meta traceparent = %q, want %q", got, want)
		}
		c.Request.ID = "7"
		return &composition.Result{StructuredContent: json.RawMessage(`{"t":21}`)}, nil
	})
	if err != nil || res == nil {
		t.Fatalf("call: %v, %v", res, err)
	}
	s := r.one(t, "tools/call get-weather")
	if s.SpanKind() != trace.SpanKindClient {
		t.Errorf("kind %v, want client", s.SpanKind())
	}
	if s.Parent().SpanID() != parent.SpanID() || s.SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("parent %v, want %v", s.Parent().SpanID(), parent.SpanID())
	}
	if s.SpanContext().SpanID() != inNext.SpanID() {
		t.Errorf("next's ctx holds span %v, want the client span %v", inNext.SpanID(), s.SpanContext().SpanID())
	}
	if s.InstrumentationScope().Name != "github.com/mcpbind/mcpbind/composition/otelmcp" || s.InstrumentationScope().Version == "" {
		t.Errorf("scope %+v", s.InstrumentationScope())
	}
	want := map[string]string{
		"mcp.method.name":       "tools/call",
		"gen_ai.tool.name":      "get-weather",
		"gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version":  "2025-11-25",
		"network.transport":     "pipe",
		"jsonrpc.request.id":    "7",
	}
	checkAttrs(t, "span", s.Attributes(), want)
	if s.Status().Code != codes.Unset || len(s.Events()) != 0 {
		t.Errorf("status %+v, events %v: want unset and none", s.Status(), s.Events())
	}
	dp := r.point(t, "mcp.client.operation.duration")
	checkAttrs(t, "metric", pointAttrs(dp), without(want, "jsonrpc.request.id"))
	if dp.Count != 1 || dp.Sum < 0 {
		t.Errorf("count %d sum %v", dp.Count, dp.Sum)
	}
	if len(r.ended("tools/call get-weather")) != 1 {
		t.Error("the span ended more than once")
	}
}

// TestClientSpanHTTP: over Streamable HTTP the span has mcp.session.id,
// network.transport tcp, network.protocol.name http and server.address and
// port; the metric has them too, less the session id. A nil Request (a
// session without interceptors would have none, but a hand-made Call may)
// records no request id and does not fail.
func TestClientSpanHTTP(t *testing.T) {
	r := newRecorder(t)
	call := composition.Call{Tool: "t", Peer: httpPeer}
	if _, _, err := invoke(t, r, call, func(context.Context, composition.Call) (*composition.Result, error) {
		return &composition.Result{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"mcp.method.name":       "tools/call",
		"gen_ai.tool.name":      "t",
		"gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version":  "2026-07-28",
		"mcp.session.id":        "sess-1",
		"network.transport":     "tcp",
		"network.protocol.name": "http",
		"server.address":        "127.0.0.1",
		"server.port":           "8123",
	}
	checkAttrs(t, "span", r.one(t, "tools/call t").Attributes(), want)
	checkAttrs(t, "metric", pointAttrs(r.point(t, "mcp.client.operation.duration")), without(want, "mcp.session.id"))
}

// TestClientErrors: each class of error gives its error.type (and, for a
// JSON-RPC error, rpc.response.status_code) on the span and the metric, a
// span status Error whose description is the JSON-RPC message escaped or
// the error's text, and an exception event; the error reaches the caller
// unchanged.
func TestClientErrors(t *testing.T) {
	rpc := &composition.RPCError{Code: -32602, Message: "unknown tool \x1b[31mx\u202e", Err: errors.New("mcp-go: invalid params")}
	for _, tc := range []struct {
		name, errType, code, desc string
		err                       error
	}{
		{"tool error", "tool_error", "", `tool "t" reported an error: no\nway`, &composition.ToolError{Tool: "t", Text: "no\nway"}},
		{"JSON-RPC error", "-32602", "-32602", `unknown tool \u001b[31mx\u202e`, fmt.Errorf("composition: tool %q: %w", "t", rpc)},
		{"deadline", "timeout", "", "", fmt.Errorf("call: %w", context.DeadlineExceeded)},
		{"canceled", "canceled", "", "", context.Canceled},
		{"lost", "session_lost", "", "", &composition.SessionLostError{Server: "s", Sent: true, Err: errors.New("EOF")}},
		{"closed", "session_closed", "", "", composition.ErrSessionClosed},
		{"validation", "invalid_arguments", "", "", fmt.Errorf("args: %w", &composition.ValidationError{Pointer: "/a", Message: "bad"})},
		{"pin", "tool_changed", "", "", &composition.ToolChangedError{Server: "s", Tool: "t", Removed: true}},
		{"other", "_OTHER", "", "", errors.New("boom https://user:pw@example.com/x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(t)
			_, _, err := invoke(t, r, composition.Call{Tool: "t", Request: &composition.Request{}, Peer: stdioPeer},
				func(context.Context, composition.Call) (*composition.Result, error) { return nil, tc.err })
			if err != tc.err {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			s := r.one(t, "tools/call t")
			want := map[string]string{
				"mcp.method.name": "tools/call", "gen_ai.tool.name": "t", "gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version": "2025-11-25", "network.transport": "pipe", "error.type": tc.errType,
			}
			if tc.code != "" {
				want["rpc.response.status_code"] = tc.code
			}
			checkAttrs(t, "span", s.Attributes(), want)
			checkAttrs(t, "metric", pointAttrs(r.point(t, "mcp.client.operation.duration")), want)
			if s.Status().Code != codes.Error {
				t.Errorf("status %+v, want Error", s.Status())
			}
			desc := tc.desc
			if desc == "" {
				desc = tc.err.Error()
			}
			if strings.Contains(desc, "user:pw") {
				desc = strings.ReplaceAll(desc, "user:pw@", "***@")
			}
			if s.Status().Description != desc {
				t.Errorf("status description %q, want %q", s.Status().Description, desc)
			}
			ev := s.Events()
			if len(ev) != 1 || ev[0].Name != "exception" {
				t.Fatalf("events %v, want one exception", ev)
			}
			msg := attrs(ev[0].Attributes)["exception.message"]
			if strings.ContainsAny(msg, "\x1b\n\u202e") || strings.Contains(msg, "user:pw") {
				t.Errorf("exception.message %q is not escaped and redacted", msg)
			}
		})
	}
}
