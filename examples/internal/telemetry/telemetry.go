// Package telemetry sets up OpenTelemetry for the example programs
// (analyst, insights, sqlite-explorer) from the standard environment
// variables of the OpenTelemetry SDK specification
// (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/),
// and exports nothing when they are unset.
//
// Traces, by OTEL_TRACES_EXPORTER:
//
//	unset or ""  otlp when OTEL_EXPORTER_OTLP_ENDPOINT or
//	             OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, else none (the
//	             SDK's own default is otlp: the examples print and send
//	             nothing unless asked)
//	otlp         OTLP to OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT (default
//	             http://localhost:4318), over HTTP/protobuf unless
//	             OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL says grpc
//	console      one JSON object per span, to the program's stderr (never
//	             stdout, which carries MCP messages on stdio)
//	none         nothing
//
// Metrics likewise by OTEL_METRICS_EXPORTER (unset: otlp when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is
// set; also prometheus), read every OTEL_METRIC_EXPORT_INTERVAL and once
// more at shutdown. The exporters read their other variables themselves
// (headers, timeouts, TLS); go.opentelemetry.io/contrib/exporters/autoexport
// makes them for every value but console and unset.
//
// The resource is service.name = the program's name, overridden by
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, plus the SDK's
// telemetry.sdk.* attributes. The propagator is W3C tracecontext and
// baggage. Nothing is set globally: the providers go to otelmcp.New.
//
// A child process inherits the environment: a program that starts another
// (analyst starts insights, insights starts sqlite-explorer) passes on
// OTEL_SERVICE_NAME too, so set it per process, or leave it unset and let
// each program name itself.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpbind/mcpbind/composition/otelmcp"
)

// ShutdownTimeout bounds [Setup.Shutdown]'s flush.
const ShutdownTimeout = 5 * time.Second

// Environment variables this package reads itself (the exporters read the
// others).
const (
	TracesExporterVar      = "OTEL_TRACES_EXPORTER"
	MetricsExporterVar     = "OTEL_METRICS_EXPORTER"
	OTLPEndpointVar        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	OTLPTracesEndpointVar  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	OTLPMetricsEndpointVar = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	consoleExporter        = "console"
	otlpExporter           = "otlp"
)

// Setup is the OpenTelemetry of one program run.
type Setup struct {
	// MCP instruments the program's MCP clients and servers
	// (otelmcp.Telemetry.ClientOption, ServerOption, ServerInterceptor,
	// Event).
	MCP *otelmcp.Telemetry
	// TracerProvider makes the program's own spans (analyst's root span):
	// the SDK's when traces are exported, else a no-op one.
	TracerProvider trace.TracerProvider
	// Tracing and Metrics report whether spans and metrics are exported.
	Tracing, Metrics bool

	program  string
	diag     io.Writer
	shutdown []func(context.Context) error
}

// Start reads the environment and returns the Setup of the program named
// service (its service.name unless OTEL_SERVICE_NAME says otherwise). diag
// receives the console exporters' output (the program's stderr). With no
// OTEL_* variable set it exports nothing and starts nothing. It fails on a
// value the SDK does not know (OTEL_TRACES_EXPORTER=zipkin, a bad
// OTEL_EXPORTER_OTLP_PROTOCOL or OTEL_RESOURCE_ATTRIBUTES).
func Start(ctx context.Context, service string, diag io.Writer) (*Setup, error) {
	s := &Setup{TracerProvider: tracenoop.NewTracerProvider(), program: service, diag: diag}
	var mp metric.MeterProvider = metricnoop.NewMeterProvider()

	spans, err := spanExporter(ctx, diag)
	if err != nil {
		return nil, err
	}
	reader, err := metricReader(ctx, diag)
	if err != nil {
		if spans != nil {
			err = errors.Join(err, spans.Shutdown(ctx))
		}
		return nil, err
	}
	if spans != nil || reader != nil {
		res, err := resource.New(ctx,
			resource.WithAttributes(semconv.ServiceName(service)),
			resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME
			resource.WithTelemetrySDK(),
		)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("OpenTelemetry resource: %w", err), shutdownAll(ctx, spans, reader))
		}
		if spans != nil {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
			s.TracerProvider, s.Tracing = tp, true
			s.shutdown = append(s.shutdown, tp.Shutdown)
		}
		if reader != nil {
			p := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
			mp, s.Metrics = p, true
			s.shutdown = append(s.shutdown, p.Shutdown)
		}
	}
	s.MCP, err = otelmcp.New(
		otelmcp.WithTracerProvider(s.TracerProvider),
		otelmcp.WithMeterProvider(mp),
		otelmcp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
	)
	if err != nil {
		return nil, errors.Join(err, s.Shutdown(ctx))
	}
	return s, nil
}

// Shutdown flushes the spans and metrics not yet exported and stops the
// exporters, within ShutdownTimeout. It does not inherit ctx's cancellation
// or deadline: a program that ends because its ctx was cancelled (a signal)
// still flushes. Call it once, as the program ends (also when it ends on a
// signal or because its stdin closed); later calls do nothing.
func (s *Setup) Shutdown(ctx context.Context) error {
	if len(s.shutdown) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	var errs []error
	for _, f := range s.shutdown {
		errs = append(errs, f(ctx))
	}
	s.shutdown = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("flushing OpenTelemetry: %w", err)
	}
	return nil
}

// End is Shutdown for a deferred call as the program exits: a failure (no
// collector listening) is written to diag as "PROGRAM: flushing
// OpenTelemetry: ..." and does not change the program's exit status.
func (s *Setup) End(ctx context.Context) {
	if err := s.Shutdown(ctx); err != nil {
		fmt.Fprintf(s.diag, "%s: %v\n", s.program, err)
	}
}

// spanExporter returns the exporter OTEL_TRACES_EXPORTER names, or nil for
// none.
func spanExporter(ctx context.Context, diag io.Writer) (sdktrace.SpanExporter, error) {
	switch name := os.Getenv(TracesExporterVar); {
	case name == "" && os.Getenv(OTLPEndpointVar) == "" && os.Getenv(OTLPTracesEndpointVar) == "":
		return nil, nil
	case name == consoleExporter:
		return stdouttrace.New(stdouttrace.WithWriter(diag))
	}
	e, err := autoexport.NewSpanExporter(ctx) // unset: otlp
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TracesExporterVar, err)
	}
	if autoexport.IsNoneSpanExporter(e) {
		return nil, nil
	}
	return e, nil
}

// metricReader returns the reader OTEL_METRICS_EXPORTER names, or nil for
// none.
func metricReader(ctx context.Context, diag io.Writer) (sdkmetric.Reader, error) {
	switch name := os.Getenv(MetricsExporterVar); {
	case name == "" && os.Getenv(OTLPEndpointVar) == "" && os.Getenv(OTLPMetricsEndpointVar) == "":
		return nil, nil
	case name == consoleExporter:
		e, err := stdoutmetric.New(stdoutmetric.WithWriter(diag))
		if err != nil {
			return nil, err
		}
		return sdkmetric.NewPeriodicReader(e), nil
	}
	r, err := autoexport.NewMetricReader(ctx) // unset: otlp
	if err != nil {
		return nil, fmt.Errorf("%s: %w", MetricsExporterVar, err)
	}
	if autoexport.IsNoneMetricReader(r) {
		return nil, nil
	}
	return r, nil
}

// shutdownAll stops what Start made before it failed.
func shutdownAll(ctx context.Context, spans sdktrace.SpanExporter, reader sdkmetric.Reader) error {
	var errs []error
	if spans != nil {
		errs = append(errs, spans.Shutdown(ctx))
	}
	if reader != nil {
		errs = append(errs, reader.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
