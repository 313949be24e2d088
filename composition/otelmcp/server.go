package otelmcp

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
)

// ServerOption instruments the tools served with it (composition.Serve, a
// generated Register, own tools).
func (t *Telemetry) ServerOption() composition.ServerOption {
	return composition.WithServerInterceptor(t.ServerInterceptor())
}

// ServerInterceptor is the server interceptor of ServerOption, also for
// gosdk.WithServerInterceptor and composition.ToolMiddleware.
func (t *Telemetry) ServerInterceptor() composition.ServerInterceptor { return t.serve }

// serve is the server interceptor: a SERVER span whose parent is the
// context in the request's _meta (linking the ambient span of ctx when it
// is another one), around next, which runs with the span in its ctx; the
// duration into mcp.server.operation.duration.
func (t *Telemetry) serve(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
	start := time.Now()
	parent := ctx
	if len(call.Meta) > 0 {
		parent = t.propagator.Extract(ctx, call.Meta)
	}
	opts := t.serverKind
	if ambient := trace.SpanContextFromContext(ctx); ambient.IsValid() && !ambient.Equal(trace.SpanContextFromContext(parent)) {
		opts = []trace.SpanStartOption{opts[0], trace.WithLinks(trace.Link{SpanContext: ambient})}
	}
	ctx, span := t.tracer.Start(parent, methodToolsCall+" "+call.Tool, opts...)
	defer span.End()
	answer, err := next(ctx, call)
	elapsed := time.Since(start).Seconds()

	recording, measured := span.IsRecording(), t.serverOp.Enabled(ctx)
	if !recording && !measured {
		return answer, err
	}
	var buf [12]attribute.KeyValue
	kv := appendCall(buf[:0], call.Tool, call.Transport, call.ProtocolVersion)
	var o outcome
	switch {
	case err != nil:
		o = serverOutcome(err)
	case answer.IsError:
		o = outcome{errorType: errorTypeToolError, description: answerErrorText(answer)}
	}
	if o.errorType != "" {
		kv = o.append(kv)
	}
	if measured {
		t.serverOp.Record(ctx, elapsed, mcpconv.MethodNameToolsCall, kv...)
	}
	if !recording {
		return answer, err
	}
	kv = appendIDs(kv, call.SessionID, call.RequestID)
	span.SetAttributes(kv...)
	if t.arguments && len(call.Args) > 0 {
		if s, ok := safeJSON(call.Args); ok {
			span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(s))
		}
	}
	if t.results && err == nil && !answer.IsError {
		if s, ok := answerJSON(answer); ok {
			span.SetAttributes(semconv.GenAIToolCallResultKey.String(s))
		}
	}
	if o.errorType != "" {
		o.record(span, err)
	}
	return answer, err
}

// answerErrorText is the text of an isError answer (its text blocks
// joined with "\n", as composition.ToolError's Text), made safe
// (peerText): the handler's words, which may quote a downstream server's.
func answerErrorText(a composition.Answer) string {
	if a.Blocks == nil {
		return peerText(a.Text)
	}
	var texts []string
	for _, b := range a.Blocks {
		var block struct{ Type, Text string }
		if json.Unmarshal(b, &block) == nil && block.Type == "text" {
			texts = append(texts, block.Text)
		}
	}
	return peerText(strings.Join(texts, "\n"))
}
