// Command sqlite-explorer is an MCP server over a real SQLite database: a
// small lending library with tables authors, books and loans, created and
// seeded with the same data on first use. It is built with
// github.com/mark3labs/mcp-go and modernc.org/sqlite (no cgo); the tools are
// described in package explorer.
//
// Usage:
//
//	sqlite-explorer [--dir DIR] [--http ADDR]
//
// Flags:
//
//	--dir DIR    folder of the database file (DIR/library.db), created if
//	             missing and reused by later runs. Default: a new temporary
//	             folder, removed when the server exits.
//	--http ADDR  serve streamable HTTP on ADDR (e.g. 127.0.0.1:0 for any free
//	             port) at the path /mcp, instead of stdio.
//
// Without --http the server speaks MCP over stdin/stdout.
//
// Output contract (tests and scripts rely on it): stdout carries only MCP
// messages in stdio mode and nothing in HTTP mode; diagnostics go to stderr.
// With --http, once the listener is bound, the first line written to stderr
// is
//
//	listening on http://HOST:PORT/mcp
//
// with the actual port (a wildcard host such as 0.0.0.0 or :: is printed as
// 127.0.0.1). Both modes serve clients of every protocol version: the
// initialize era (up to 2025-11-25) and the stateless 2026-07-28 era
// (server/discover).
//
// The server stops on SIGINT or SIGTERM, and in stdio mode also when stdin
// is closed, letting calls in flight finish for up to 10 s
// (composition.RunStdio / ListenHTTP). Over HTTP it refuses a non-loopback
// ADDR (it has no authentication) and a browser Origin other than the
// listener's loopback ones (403), and serves /healthz and /readyz.
//
// OpenTelemetry: configured by the standard environment variables
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER,
// OTEL_SERVICE_NAME, default service name sqlite-explorer; see
// examples/internal/telemetry), it exports a SERVER span per tools/call,
// child of the caller's span when the request's params._meta carries
// traceparent, and the server histograms of the MCP semantic conventions.
// With none of them set it exports nothing. What is left to export is
// flushed before the server exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/internal/telemetry"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "sqlite-explorer:", err)
		os.Exit(1)
	}
}

// run parses args and serves until ctx ends or, on stdio, stdin closes.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sqlite-explorer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "folder of the database file (default: a new temporary folder, removed on exit)")
	addr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:0) at /mcp instead of stdio")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	if *dir == "" {
		tmp, err := os.MkdirTemp("", "sqlite-explorer-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = tmp
	}
	store, err := explorer.Open(ctx, *dir)
	if err != nil {
		return err
	}
	defer store.Close()
	tel, err := telemetry.Start(ctx, explorer.Name, stderr)
	if err != nil {
		return err
	}
	defer tel.End(ctx)
	mcpServer, err := explorer.NewServer(store, server.WithToolHandlerMiddleware(composition.ToolMiddleware(tel.MCP.ServerInterceptor())))
	if err != nil {
		return err
	}
	composition.ServerEvents(mcpServer, tel.MCP.ServerEvent)

	if *addr == "" {
		fmt.Fprintf(stderr, "serving %s over stdio (database %s)\n", explorer.Name, store.Path())
		return composition.RunStdio(ctx, mcpServer, stdin, stdout, composition.HostOptions{})
	}
	host, err := composition.ListenHTTP(mcpServer, composition.HostOptions{Addr: *addr})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "listening on %s\n", host.URL())
	fmt.Fprintf(stderr, "database %s\n", store.Path())
	return host.Serve(ctx)
}
