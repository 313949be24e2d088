package otelmcp_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
)

// EchoArgs are the arguments of the example's tool echo.
type EchoArgs struct {
	Text string `json:"text"`
}

// echoTool is the example server's own tool.
var echoTool = composition.NewTool[EchoArgs, EchoArgs]("echo", "Echo the text.")

// A program instruments both sides: the sessions it calls (ClientOption,
// on a session or a registry) and the tools it serves (ServerOption,
// ServerEvent), and its logs carry the trace (LogHandler). The SDK setup
// is the program's; here the spans go to memory (a real program sets the
// global providers and propagator once and calls otelmcp.New()).
func Example() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	tel, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithPropagators(propagation.TraceContext{}))
	if err != nil {
		log.Fatal(err)
	}

	// The server side.
	srv := server.NewMCPServer("echo", "1.0.0", server.WithToolCapabilities(false))
	composition.ServerEvents(srv, tel.ServerEvent)
	err = composition.Serve(srv, []composition.ServedTool{
		echoTool.Serve(func(ctx context.Context, a EchoArgs) (EchoArgs, error) { return a, nil }),
	}, tel.ServerOption())
	if err != nil {
		log.Fatal(err)
	}

	// The client side, logging with the trace ids.
	ctx := context.Background()
	logger := slog.New(otelmcp.LogHandler(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	s, err := composition.Connect(ctx, composition.InProcess(srv), tel.ClientOption(), composition.WithLogger(logger))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	out, err := echoTool.Call(ctx, s, EchoArgs{Text: "hi"})
	fmt.Println(out.Text, err)

	// The server span ends first; it is the client span's child.
	got := spans.GetSpans()
	for _, sp := range got {
		fmt.Println(sp.Name, sp.SpanKind)
	}
	fmt.Println(got[0].Parent.SpanID() == got[1].SpanContext.SpanID())
	// Output:
	// hi <nil>
	// tools/call echo server
	// tools/call echo client
	// true
}
