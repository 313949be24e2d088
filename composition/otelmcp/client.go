package otelmcp

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpbind/mcpbind/composition"
)

// methodToolsCall is the span name's prefix, the value of mcp.method.name
// (semconv.McpMethodNameToolsCall).
const methodToolsCall = "tools/call"

// ClientOption instruments a session or registry (composition.Connect,
// composition.NewRegistry, gosdk.NewSession): [Telemetry.Interceptor] for
// its calls and [Telemetry.Event] for its session and registry events.
func (t *Telemetry) ClientOption() composition.Option {
	return composition.Options(composition.WithInterceptor(t.Interceptor()), composition.WithEvents(t.Event))
}

// Interceptor is the client interceptor of ClientOption, for a program
// that orders its interceptors itself (the first one given is the
// outermost: put it first for the CLIENT span to enclose the others).
func (t *Telemetry) Interceptor() composition.Interceptor { return t.intercept }

// intercept is the interceptor: a CLIENT span around next, trace context
// into the request's _meta, the duration into mcp.client.operation.duration.
func (t *Telemetry) intercept(ctx context.Context, call composition.Call, next composition.Invoker) (*composition.Result, error) {
	start := time.Now()
	ctx, span := t.tracer.Start(ctx, methodToolsCall+" "+call.Tool, t.clientKind...)
	defer span.End()
	if call.Request != nil {
		t.propagator.Inject(ctx, metaCarrier{call.Request})
	}
	res, err := next(ctx, call)
	elapsed := time.Since(start).Seconds()

	recording, measured := span.IsRecording(), t.clientOp.Enabled(ctx)
	if !recording && !measured {
		return res, err
	}
	var buf [12]attribute.KeyValue // escapes: one allocation for all
	kv := appendCall(buf[:0], call.Tool, call.Peer.Transport, call.Peer.ProtocolVersion)
	if call.Peer.Address != "" {
		kv = append(kv, semconv.ServerAddress(call.Peer.Address))
		if call.Peer.Port != 0 {
			kv = append(kv, semconv.ServerPort(call.Peer.Port))
		}
	}
	var o outcome
	if err != nil {
		o = clientOutcome(err)
		kv = o.append(kv)
	}
	if measured {
		t.clientOp.Record(ctx, elapsed, mcpconv.MethodNameToolsCall, kv...)
	}
	if !recording {
		return res, err
	}
	var id string
	if call.Request != nil {
		id = call.Request.ID
	}
	kv = appendIDs(kv, call.Peer.SessionID, id)
	span.SetAttributes(kv...)
	if t.arguments {
		if s, ok := argumentsJSON(call.Args); ok {
			span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(s))
		}
	}
	if t.results && err == nil && res != nil {
		if s, ok := resultJSON(res); ok {
			span.SetAttributes(semconv.GenAIToolCallResultKey.String(s))
		}
	}
	if err != nil {
		o.record(span, err)
	}
	return res, err
}

// metaCarrier is the propagation.TextMapCarrier of a request's _meta: it
// makes the map on the first Set, so a propagator that sets nothing (the
// default global one) allocates nothing.
type metaCarrier struct{ r *composition.Request }

// Get returns the string value of key in the request's _meta.
func (c metaCarrier) Get(key string) string { return c.r.Meta.Get(key) }

// Set sets key in the request's _meta to the JSON string value.
func (c metaCarrier) Set(key, value string) {
	if c.r.Meta == nil {
		c.r.Meta = composition.Meta{}
	}
	c.r.Meta.Set(key, value)
}

// Keys returns the keys of the request's _meta.
func (c metaCarrier) Keys() []string { return c.r.Meta.Keys() }

// appendCall appends the attributes of a tools/call of tool over a
// connection, on either side, for the span and the histogram.
func appendCall(kv []attribute.KeyValue, tool, transport, protocolVersion string) []attribute.KeyValue {
	kv = append(kv, semconv.GenAIToolName(tool), semconv.GenAIOperationNameExecuteTool)
	return appendPeer(kv, transport, protocolVersion)
}

// appendIDs appends the attributes only the span has: mcp.method.name (the
// histogram's Record adds its own), mcp.session.id and jsonrpc.request.id
// when there are ids.
func appendIDs(kv []attribute.KeyValue, sessionID, requestID string) []attribute.KeyValue {
	kv = append(kv, semconv.McpMethodNameToolsCall)
	if sessionID != "" {
		kv = append(kv, semconv.McpSessionID(sessionID))
	}
	if requestID != "" {
		kv = append(kv, semconv.JSONRPCRequestID(requestID))
	}
	return kv
}

// appendPeer appends the attributes of a connection: mcp.protocol.version,
// network.transport ("pipe" for stdio, "tcp" for the HTTP transports,
// none in process or when unknown) and network.protocol.name ("http").
func appendPeer(kv []attribute.KeyValue, transport, protocolVersion string) []attribute.KeyValue {
	if protocolVersion != "" {
		kv = append(kv, semconv.McpProtocolVersion(protocolVersion))
	}
	switch transport {
	case composition.TransportStdio:
		kv = append(kv, semconv.NetworkTransportPipe)
	case composition.TransportStreamableHTTP, composition.TransportSSE:
		kv = append(kv, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
	}
	return kv
}
