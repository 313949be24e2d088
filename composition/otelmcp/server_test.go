package otelmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
)

// clientMeta returns the _meta a client with W3C propagation sends from
// inside a span of r's, and that span's context.
func clientMeta(r *recorder) (composition.Meta, trace.SpanContext) {
	ctx, span := r.tp.Tracer("test").Start(context.Background(), "remote client")
	defer span.End()
	meta := composition.Meta{}
	propagation.TraceContext{}.Inject(ctx, meta)
	return meta, span.SpanContext()
}

// serverWant is the server span's attributes of the unit tests' calls.
var serverWant = map[string]string{
	"mcp.method.name":       "tools/call",
	"gen_ai.tool.name":      "query",
	"gen_ai.operation.name": "execute_tool",
	"mcp.protocol.version":  "2025-06-18",
	"mcp.session.id":        "s-9",
	"jsonrpc.request.id":    "req-7",
	"network.transport":     "tcp",
	"network.protocol.name": "http",
}

// TestServerSpan: a served call whose _meta holds trace context is a
// SERVER span "tools/call {tool}" with that remote parent, the handler's
// ctx holds it, and it has exactly the server table's attributes; the
// metric mcp.server.operation.duration has them less the session and
// request ids.
func TestServerSpan(t *testing.T) {
	r := newRecorder(t)
	meta, remote := clientMeta(r)
	call := composition.ServerCall{Tool: "query", Meta: meta, ProtocolVersion: "2025-06-18", SessionID: "s-9", RequestID: "req-7", Transport: composition.TransportStreamableHTTP}
	var inHandler trace.SpanContext
	_, err := r.tel.ServerInterceptor()(context.Background(), call, func(ctx context.Context, c composition.ServerCall) (composition.Answer, error) {
		inHandler = trace.SpanContextFromContext(ctx)
		return composition.Answer{Text: `{"rows":1}`}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := r.one(t, "tools/call query")
	if s.SpanKind() != trace.SpanKindServer {
		t.Errorf("kind %v, want server", s.SpanKind())
	}
	if s.Parent().SpanID() != remote.SpanID() || s.SpanContext().TraceID() != remote.TraceID() || !s.Parent().IsRemote() {
		t.Errorf("parent %v (remote %v), want the client's %v", s.Parent().SpanID(), s.Parent().IsRemote(), remote.SpanID())
	}
	if inHandler.SpanID() != s.SpanContext().SpanID() {
		t.Errorf("handler's ctx holds %v, want the server span %v", inHandler.SpanID(), s.SpanContext().SpanID())
	}
	if len(s.Links()) != 0 {
		t.Errorf("links %v, want none", s.Links())
	}
	checkAttrs(t, "span", s.Attributes(), serverWant)
	checkAttrs(t, "metric", pointAttrs(r.point(t, "mcp.server.operation.duration")), without(serverWant, "mcp.session.id", "jsonrpc.request.id"))
	if s.Status().Code != codes.Unset {
		t.Errorf("status %+v", s.Status())
	}
}

// TestServerSpanLinksAmbient: when the handler's ctx already holds a span
// (an HTTP server span) and _meta holds the client's context, the SERVER
// span's parent is the client's and it links the ambient span; with no
// trace context in _meta the ambient span is the parent, not linked.
func TestServerSpanLinksAmbient(t *testing.T) {
	r := newRecorder(t)
	meta, remote := clientMeta(r)
	ctx, ambient := r.tp.Tracer("test").Start(context.Background(), "POST /mcp", trace.WithSpanKind(trace.SpanKindServer))
	defer ambient.End()
	answer := func(context.Context, composition.ServerCall) (composition.Answer, error) {
		return composition.Answer{Text: "ok"}, nil
	}
	if _, err := r.tel.ServerInterceptor()(ctx, composition.ServerCall{Tool: "a", Meta: meta}, answer); err != nil {
		t.Fatal(err)
	}
	s := r.one(t, "tools/call a")
	if s.Parent().SpanID() != remote.SpanID() {
		t.Errorf("parent %v, want the client's %v", s.Parent().SpanID(), remote.SpanID())
	}
	if l := s.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != ambient.SpanContext().SpanID() {
		t.Errorf("links %v, want the ambient span %v", l, ambient.SpanContext().SpanID())
	}
	if _, err := r.tel.ServerInterceptor()(ctx, composition.ServerCall{Tool: "b"}, answer); err != nil {
		t.Fatal(err)
	}
	s = r.one(t, "tools/call b")
	if s.Parent().SpanID() != ambient.SpanContext().SpanID() || len(s.Links()) != 0 {
		t.Errorf("parent %v links %v, want the ambient span as parent and no link", s.Parent().SpanID(), s.Links())
	}
}

// TestServerErrors: an isError answer is tool_error; an error of the
// chain is the JSON-RPC error the SDK answers (-32603, or the code of a
// composition.RPCError it carries), with rpc.response.status_code; the
// status is Error, described with escaped text.
func TestServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name, errType, code, desc string
		answer                    composition.Answer
		err                       error
	}{
		{"tool error", "tool_error", "", `bad\u001b[0m`, composition.Answer{Text: "bad\x1b[0m", IsError: true}, nil},
		{"tool error in blocks", "tool_error", "", `first\nsecond\u202e`, composition.Answer{IsError: true, Blocks: []json.RawMessage{
			json.RawMessage(`{"type":"text","text":"first"}`), json.RawMessage(`{"type":"image","data":"AA==","mimeType":"image/png"}`),
			json.RawMessage(`{"type":"text","text":"second\u202e"}`)}}, nil},
		{"handler error", "-32603", "-32603", "cannot encode", composition.Answer{}, errors.New("cannot encode")},
		{"forwarded JSON-RPC error", "-32001", "-32001", `nope\n`, composition.Answer{},
			fmt.Errorf("forward: %w", &composition.RPCError{Code: -32001, Message: "nope\n", Err: errors.New("x")})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(t)
			call := composition.ServerCall{Tool: "query", ProtocolVersion: "2025-06-18", SessionID: "s-9", RequestID: "req-7", Transport: composition.TransportStreamableHTTP}
			a, err := r.tel.ServerInterceptor()(context.Background(), call, func(context.Context, composition.ServerCall) (composition.Answer, error) {
				return tc.answer, tc.err
			})
			if err != tc.err || a.IsError != tc.answer.IsError {
				t.Errorf("answer %+v, %v: not passed on", a, err)
			}
			s := r.one(t, "tools/call query")
			want := with(serverWant, "error.type", tc.errType)
			if tc.code != "" {
				want["rpc.response.status_code"] = tc.code
			}
			checkAttrs(t, "span", s.Attributes(), want)
			checkAttrs(t, "metric", pointAttrs(r.point(t, "mcp.server.operation.duration")), without(want, "mcp.session.id", "jsonrpc.request.id"))
			if s.Status().Code != codes.Error || s.Status().Description != tc.desc {
				t.Errorf("status %+v, want Error %q", s.Status(), tc.desc)
			}
		})
	}
}
