package bindimpl

import (
	"context"
	"encoding/json"
)

// ServerCall describes one tools/call request that a served tool answers,
// to a [ServerInterceptor] and (through [IncomingCall]) to its handler. The
// SDK binding fills it from the request; a field the SDK does not expose
// is left empty.
type ServerCall struct {
	// Tool is the name of the tool called.
	Tool string
	// Meta is the request's params._meta as the client sent it; nil when
	// it sent none. It is read-only.
	Meta Meta
	// ProtocolVersion is the request's MCP protocol version: the one a
	// 2026-07-28 request declares, else the one its session negotiated.
	ProtocolVersion string
	// SessionID identifies the MCP session as its client sees it on the
	// wire (the Mcp-Session-Id of Streamable HTTP, the sessionId of an
	// HTTP+SSE endpoint); "" when there is none (stdio, in process,
	// 2026-07-28's stateless HTTP).
	SessionID string
	// RequestID is the JSON-RPC id of the request as text ("7", "req-7");
	// "" when the SDK does not expose it: go-sdk never does, mcp-go only
	// to a server hook, which composition.Serve (given an interceptor) and
	// composition.ServerEvents add.
	RequestID string
	// Args is the request's params.arguments as the client sent them (a
	// JSON object), for interceptors (telemetry records them when asked
	// to); nil when absent, and in what IncomingCall returns to a handler
	// that no interceptor runs around. It is read-only.
	Args json.RawMessage
	// Transport names the transport the request came over: "stdio",
	// "streamable-http", "sse" or "in-process"; "" when unknown (go-sdk
	// tells only its Streamable HTTP apart).
	Transport string
}

// ServerHandler answers a call: the next interceptor, or at the end of the
// chain the served tool itself (argument decoding and validation, the
// handler, result encoding). The error is only for an answer that cannot
// be sent at all, which the binding turns into a JSON-RPC error; a handler's
// error is an Answer with IsError.
type ServerHandler func(ctx context.Context, call ServerCall) (Answer, error)

// ServerInterceptor wraps every tools/call a served tool answers, like a
// gRPC unary server interceptor: it may look at the call, change ctx (for
// a tracing span), call next (or not), and look at or replace the answer.
// It must be safe for concurrent use.
type ServerInterceptor func(ctx context.Context, call ServerCall, next ServerHandler) (Answer, error)

// incomingKey is the context key of the ServerCall a handler answers.
type incomingKey struct{}

// IsIncomingKey reports whether key is the context key under which
// IncomingCall looks for the call (a ServerCall or a CallSource): a binding
// whose own context type carries the request answers that key's Value
// with itself, saving context.WithValue's allocation per call.
func IsIncomingKey(key any) bool {
	_, ok := key.(incomingKey)
	return ok
}

// WithIncomingCall returns ctx carrying call, for IncomingCall.
func WithIncomingCall(ctx context.Context, call ServerCall) context.Context {
	return context.WithValue(ctx, incomingKey{}, call)
}

// IncomingCall returns the call that ctx's served-tool handler is
// answering, and whether there is one.
func IncomingCall(ctx context.Context) (ServerCall, bool) {
	switch c := ctx.Value(incomingKey{}).(type) {
	case ServerCall:
		return c, true
	case CallSource:
		return c.ServerCall(ctx), true
	}
	return ServerCall{}, false
}

// CallSource makes a request's [ServerCall] when it is asked for: a binding
// puts one in a handler's ctx ([WithCallSource]) when no interceptor needs
// the ServerCall, so a handler that never calls [IncomingCall] does not pay
// for converting the request's _meta.
type CallSource interface {
	// ServerCall returns the call; ctx is the handler's (or a context
	// derived from it), which carries the SDK's session.
	ServerCall(ctx context.Context) ServerCall
}

// WithCallSource returns ctx carrying src, for IncomingCall.
func WithCallSource(ctx context.Context, src CallSource) context.Context {
	return context.WithValue(ctx, incomingKey{}, src)
}

// Intercept answers call with h through interceptors, the first the
// outermost; h gets ctx carrying the call as the last interceptor passed
// it on (WithIncomingCall), so a handler's [IncomingCall] sees what the
// interceptors changed.
func Intercept(ctx context.Context, call ServerCall, interceptors []ServerInterceptor, h ServerHandler) (Answer, error) {
	if len(interceptors) == 0 {
		return h(WithIncomingCall(ctx, call), call)
	}
	return interceptors[0](ctx, call, func(ctx context.Context, call ServerCall) (Answer, error) {
		return Intercept(ctx, call, interceptors[1:], h)
	})
}
