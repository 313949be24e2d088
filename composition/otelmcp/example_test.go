package otelmcp_test

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
)

// A composing server instruments both sides: the sessions it calls
// (ClientOption on its registry) and the tools it serves (ServerOption,
// ServerEvent), and its logs carry the trace (LogHandler). The SDK setup
// (exporter, resource) is the program's; here spans go nowhere.
func Example() {
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	tel, err := otelmcp.New() // the global providers and propagator
	if err != nil {
		log.Fatal(err)
	}
	logger := slog.New(otelmcp.LogHandler(slog.NewJSONHandler(os.Stderr, nil)))
	reg := composition.NewRegistry(tel.ClientOption(), composition.WithLogger(logger))
	defer reg.Close()

	srv := server.NewMCPServer("front", "1.0.0", server.WithToolCapabilities(false))
	composition.ServerEvents(srv, tel.ServerEvent)
	if err := composition.Serve(srv, []composition.ServedTool{ /* own tools, a generated Register's */ }, tel.ServerOption()); err != nil {
		log.Fatal(err)
	}
}
