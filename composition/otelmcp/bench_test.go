package otelmcp_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// explorerServer returns the sqlite-explorer example server on a fresh
// database.
func explorerServer(t testing.TB) *server.MCPServer {
	t.Helper()
	store, err := explorer.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	srv, err := explorer.NewServer(store)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// BenchmarkTypedCall is composition's typed call (the generated client's
// describe_table, in process to the sqlite-explorer server) without
// telemetry ("off"), with ClientOption on the global providers, no-ops
// when the program installs none ("noop"), and with the SDK's providers:
// spans always sampled into a batcher whose exporter drops them, the
// histograms recorded into a reader nothing collects, W3C propagation
// ("on").
func BenchmarkTypedCall(b *testing.B) {
	ctx := context.Background()
	srv := explorerServer(b)
	noop, err := otelmcp.New()
	if err != nil {
		b.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = tp.Shutdown(ctx); _ = mp.Shutdown(ctx) }()
	on, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp),
		otelmcp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []composition.Option
	}{
		{"off", nil},
		{"noop", []composition.Option{noop.ClientOption()}},
		{"on", []composition.Option{on.ClientOption()}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := composition.Connect(ctx, composition.InProcess(srv), tc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			db := sqliteexplorer.NewClient(s)
			b.ReportAllocs()
			for b.Loop() {
				if res, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: "books"}); err != nil || len(res.Columns) == 0 {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// BenchmarkInterceptor is the client interceptor alone around a next that
// returns at once: its own cost, off the transport's.
func BenchmarkInterceptor(b *testing.B) {
	ctx := context.Background()
	noop, _ := otelmcp.New()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = tp.Shutdown(ctx); _ = mp.Shutdown(ctx) }()
	on, _ := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp), otelmcp.WithPropagators(propagation.TraceContext{}))
	res := &composition.Result{}
	next := func(context.Context, composition.Call) (*composition.Result, error) { return res, nil }
	for name, tel := range map[string]*otelmcp.Telemetry{"noop": noop, "on": on} {
		b.Run(name, func(b *testing.B) {
			ic := tel.Interceptor()
			b.ReportAllocs()
			for b.Loop() {
				call := composition.Call{Tool: "describe_table", Request: &composition.Request{}, Peer: stdioPeer}
				if _, err := ic(ctx, call, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
