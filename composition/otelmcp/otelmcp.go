// Package otelmcp instruments mcpbind's composed calls with OpenTelemetry,
// following the OpenTelemetry semantic conventions for the Model Context
// Protocol: docs/gen-ai/mcp.md of
// github.com/open-telemetry/semantic-conventions-genai at commit
// 0393513c908bf895e7b3ec480a2c1eb073c584af (status Development; the MCP
// model first shipped in semantic-conventions v1.39.0), with the Go
// attribute keys and instruments of go.opentelemetry.io/otel/semconv/v1.41.0
// and its mcpconv package.
//
// It is an option the program adds, as otelgrpc is: nothing global is set
// (the defaults are the global providers and propagator, read when [New]
// runs, and the global ones delegate to whatever the program installs
// later), and a program that does not import this package does not link
// OpenTelemetry (composition and generated code do not import it).
//
// # What is recorded
//
// A client call (a tools/call through a session or registry that has
// [Telemetry.ClientOption]) is a CLIENT span named "tools/call {tool}", a
// child of the span in the call's ctx, with these attributes:
//
//	mcp.method.name          "tools/call"
//	gen_ai.tool.name         the tool's name
//	gen_ai.operation.name    "execute_tool"
//	mcp.protocol.version     the negotiated version, e.g. "2025-11-25"
//	mcp.session.id           the MCP session id, when the session has one
//	jsonrpc.request.id       the request's JSON-RPC id, once it was sent
//	network.transport        "pipe" (stdio), "tcp" (Streamable HTTP, SSE);
//	                         absent in process
//	network.protocol.name    "http" for Streamable HTTP and SSE
//	server.address, .port    the HTTP server's host and port
//	error.type               see Errors
//	rpc.response.status_code the JSON-RPC error code, for a JSON-RPC error
//
// and its duration goes to the histogram mcp.client.operation.duration with
// the same attributes less mcp.session.id and jsonrpc.request.id (the
// conventions' metric table has neither: they would make every call a new
// series).
//
// A served call (a tool answered through [Telemetry.ServerOption] or
// [Telemetry.ServerInterceptor]) is a SERVER span of the same name whose
// parent is the context the client injected into params._meta (see
// Propagation), with the same attributes less the server.* ones; when the
// handler's ctx already held another span (an HTTP server span of an
// instrumented handler), the SERVER span links to it, as the conventions
// say. The handler runs with the SERVER span in its ctx, so the calls it
// makes downstream are its children. Its duration goes to
// mcp.server.operation.duration.
//
// Session ends reported through [Telemetry.Event] (client sessions:
// ClientOption adds it) and [Telemetry.ServerEvent] (server sessions: pass
// it to composition.ServerEvents or gosdk.ServerEvents) go to
// mcp.client.session.duration and mcp.server.session.duration. A registry's
// reconnects and retries become span events of the span in the call's ctx.
//
// All four histograms are in seconds with the conventions' explicit bucket
// boundaries [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120,
// 300].
//
// # Propagation
//
// The client injects the configured propagator's fields (traceparent,
// tracestate, baggage for W3C Trace Context and Baggage) into the
// request's params._meta, unprefixed, as SEP-414 and the conventions say;
// the server extracts them from params._meta. The global propagator of a
// program that set none propagates nothing: set one
// (otel.SetTextMapPropagator) or pass [WithPropagators].
//
// # Errors
//
// error.type is, the first that applies:
//
//	tool_error       the tool answered with isError: true (the conventions' value)
//	"-32602", …      the JSON-RPC error code of a JSON-RPC error response,
//	                 also set as rpc.response.status_code (the conventions' rule)
//	timeout          the call's ctx deadline passed (context.DeadlineExceeded)
//	canceled         the call's ctx was canceled (context.Canceled)
//	session_lost     the session with the server was lost (composition.ErrSessionLost)
//	session_closed   the session or registry was closed before the call
//	invalid_arguments the arguments did not match the tool's inputSchema
//	                 (composition.ValidationError, with WithArgsValidation)
//	tool_changed     a pinned tool changed (composition.ToolChangedError)
//	_OTHER           anything else (the conventions' fallback)
//
// These are few and fixed (low cardinality), and name what a user acts
// on: retry, raise a deadline, fix a caller, re-pin. A served call whose
// chain returns an error (an answer that cannot be sent) has error.type
// and rpc.response.status_code "-32603" (Internal error: the JSON-RPC
// error both SDK bindings answer it with), unless the error carries a
// composition.RPCError (a Forwarding proxy's downstream error, which
// composition's stdio and HTTP hosts send with its own code), whose code
// is used.
//
// The span's status is Error whenever error.type is set; its description
// is the JSON-RPC error's message for a JSON-RPC error (server text,
// escaped: control and bidirectional characters never reach an exporter
// raw), else the error's text, which is mcpbind's own, escaped and redacted
// of URL credentials. The error is also recorded as an "exception" span
// event with that text.
//
// # Arguments and results
//
// Neither is recorded unless the program opts in ([WithToolArguments],
// [WithToolResults]): they may hold personal or secret data. When recorded
// they are JSON text (the conventions allow a JSON string where a
// structured value is not supported), cut to [MaxPayloadBytes], and never
// hold secrets as far as a rule can tell: see [WithToolArguments].
//
// # Cost
//
// With no-op providers (the global defaults of a program that installs no
// SDK) a call's interceptor starts a non-recording span, skips every
// attribute, and records no metric; see the benchmarks in this package
// for figures.
package otelmcp

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// ScopeName is the instrumentation scope of the tracer and the meter: this
// package's import path.
const ScopeName = "github.com/mcpbind/mcpbind/composition/otelmcp"

// bucketBoundaries returns the explicit bucket boundaries, in seconds, of
// the four duration histograms, as the conventions give them for each.
func bucketBoundaries() []float64 {
	return []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
}

// MaxPayloadBytes is how long a recorded gen_ai.tool.call.arguments or
// gen_ai.tool.call.result may be, in bytes: a longer one is cut at a UTF-8
// boundary and ends with "…" (and is then no longer valid JSON).
const MaxPayloadBytes = 4096

// Option configures [New].
type Option struct {
	apply func(*config)
}

// config is what the Options set.
type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagators    propagation.TextMapPropagator
	arguments      bool
	results        bool
}

// WithTracerProvider sets the provider of the spans' tracer (default: the
// global one, otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return Option{apply: func(c *config) { c.tracerProvider = tp }}
}

// WithMeterProvider sets the provider of the histograms' meter (default:
// the global one, otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return Option{apply: func(c *config) { c.meterProvider = mp }}
}

// WithPropagators sets the propagator that injects trace context into a
// request's params._meta and extracts it on the server (default: the
// global one, otel.GetTextMapPropagator).
func WithPropagators(p propagation.TextMapPropagator) Option {
	return Option{apply: func(c *config) { c.propagators = p }}
}

// WithToolArguments records each tool call's arguments as
// gen_ai.tool.call.arguments (opt-in in the conventions: they may hold
// sensitive data), on client and server spans.
//
// The arguments are recorded as JSON: on a client, a generated Args value
// or a map encoded with encoding/json, a json.RawMessage as it is; on a
// server, the request's arguments as sent (composition.ServerCall.Args). Before it is
// recorded, the JSON is decoded and the value of every member whose name
// looks like a secret is replaced by "***": a name that, lower-cased and
// without "-", "_", "." and spaces, contains password, passwd, passphrase,
// secret, token, authorization, apikey, accesskey, privatekey,
// credential, cookie, bearer or signature, at any depth (so "api_key",
// "X-Api-Key", "clientSecret", "refresh_token" and "max_tokens" are all
// masked: a false positive hides a harmless value, a false negative would
// leak). URL credentials (user information, query values) in the
// remaining text are masked too (internal/redact), and the result is cut
// to [MaxPayloadBytes]. A value that is not JSON is not recorded.
func WithToolArguments() Option {
	return Option{apply: func(c *config) { c.arguments = true }}
}

// WithToolResults records each successful tool call's result as
// gen_ai.tool.call.result (opt-in in the conventions), on client and
// server spans: the structuredContent when there is one, else the text of
// a result whose one text block is JSON, else the content blocks as a JSON
// array. The secret rule of [WithToolArguments] applies.
func WithToolResults() Option {
	return Option{apply: func(c *config) { c.results = true }}
}

// Telemetry makes the spans and histograms of MCP calls, on clients and on
// servers. Make one with [New] and share it; it is safe for concurrent use.
type Telemetry struct {
	tracer trace.Tracer
	// clientKind and serverKind are the spans' start options, made once.
	clientKind, serverKind []trace.SpanStartOption
	propagator             propagation.TextMapPropagator
	clientOp               mcpconv.ClientOperationDuration
	serverOp               mcpconv.ServerOperationDuration
	clientSession          mcpconv.ClientSessionDuration
	serverSession          mcpconv.ServerSessionDuration
	arguments              bool
	results                bool
}

// New returns the Telemetry of opts, its tracer, meter and four histograms
// created once. The error is the meter's, when it refuses an instrument.
func New(opts ...Option) (*Telemetry, error) {
	var cfg config
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&cfg)
		}
	}
	if cfg.tracerProvider == nil {
		cfg.tracerProvider = otel.GetTracerProvider()
	}
	if cfg.meterProvider == nil {
		cfg.meterProvider = otel.GetMeterProvider()
	}
	if cfg.propagators == nil {
		cfg.propagators = otel.GetTextMapPropagator()
	}
	version := mcpconn.ModuleVersion()
	t := &Telemetry{
		tracer: cfg.tracerProvider.Tracer(ScopeName,
			trace.WithInstrumentationVersion(version), trace.WithSchemaURL(semconv.SchemaURL)),
		clientKind: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)},
		serverKind: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)},
		propagator: cfg.propagators,
		arguments:  cfg.arguments,
		results:    cfg.results,
	}
	meter := cfg.meterProvider.Meter(ScopeName,
		metric.WithInstrumentationVersion(version), metric.WithSchemaURL(semconv.SchemaURL))
	buckets := metric.WithExplicitBucketBoundaries(bucketBoundaries()...)
	var err error
	if t.clientOp, err = mcpconv.NewClientOperationDuration(meter, buckets); err != nil {
		return nil, err
	}
	if t.serverOp, err = mcpconv.NewServerOperationDuration(meter, buckets); err != nil {
		return nil, err
	}
	if t.clientSession, err = mcpconv.NewClientSessionDuration(meter, buckets); err != nil {
		return nil, err
	}
	if t.serverSession, err = mcpconv.NewServerSessionDuration(meter, buckets); err != nil {
		return nil, err
	}
	return t, nil
}
