// Command insights is an MCP server built out of two other MCP servers: it
// reports on the tables of sqlite-explorer (this repository's example) and
// remembers findings about them in @modelcontextprotocol/server-memory (npm),
// calling both through the typed clients mcpbind generated from their
// bundles (packages sqliteexplorer and memory, beside this file). Its tools
// are described in package insights.
//
// Usage:
//
//	insights [--config FILE] [--memory FILE] [--http ADDR] [--log]
//
// Flags:
//
//	--config FILE  the servers config naming the downstream servers
//	               (default examples/insights/servers.yaml, for a run from
//	               the repository root); the same file export reads.
//	--memory FILE  the file in which server-memory keeps the findings (its
//	               MEMORY_FILE_PATH, which insights adds to the environment
//	               servers.yaml gives it). Default: $INSIGHTS_MEMORY_FILE,
//	               else a file in a new temporary folder, removed on exit.
//	--http ADDR    serve streamable HTTP on ADDR (e.g. 127.0.0.1:0) at the
//	               path /mcp, instead of stdio.
//	--log          log the registry's connects, reconnects and downstream
//	               calls (each call's start and end at Debug level, a failure
//	               at Warn) to stderr as log/slog text; never argument values.
//
// The downstream servers are held by one composition.Registry read from the
// servers config: each is started on the first call that needs it and
// started again when it dies. A call that may have reached the server before
// it died is sent again only when the tool is read-only or idempotent (all of
// insights' sqlite-explorer calls, server-memory's open_nodes and
// read_graph); create_entities and add_observations then fail with an error
// saying they may have run, and so does remember_finding.
// Their contracts are pinned: a tool whose live definition differs from the
// bundle the packages were generated from fails its calls (DigestFail).
//
// Output contract, as sqlite-explorer's: stdout carries only MCP messages in
// stdio mode and nothing in HTTP mode; diagnostics (and the downstream
// servers' stderr) go to stderr. With --http, once the listener is bound,
// stderr gets the line
//
//	listening on http://HOST:PORT/mcp
//
// The server stops on SIGINT or SIGTERM, and in stdio mode also when stdin
// is closed, through composition.RunStdio / ListenHTTP: calls in flight get
// up to 10 s to finish, then it closes the registry (and so stops the
// downstream processes). Over HTTP it also serves /healthz and /readyz (not
// ready while a downstream has failed or has blocked tools), answers a
// browser Origin other than the listener's loopback ones with 403, and
// refuses a non-loopback ADDR (it has no authentication).
//
// OpenTelemetry: configured by the standard environment variables
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER,
// OTEL_SERVICE_NAME, default service name insights; see
// examples/internal/telemetry), it exports a SERVER span per tools/call it
// answers, child of the caller's span when the request's params._meta
// carries traceparent, and under it a CLIENT span per downstream call, whose
// trace context goes to the downstream server in its request's _meta; with
// the histograms of the MCP semantic conventions, and registry reconnects
// and retries as span events. With --log, each record of a call carries
// trace_id and span_id. With none of the variables set it exports nothing.
// What is left to export is flushed before the server exits, after the
// downstream servers have stopped.
//
// The downstream packages and the bundle they come from are checked in and
// refreshed by go generate (npm ci --prefix testservers first):
//
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind export --config servers.yaml --probe-eras --timeout 5m -o servers.json
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind generate --server servers.json -o .
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/composition/serverconfig"
	"github.com/mcpbind/mcpbind/examples/insights/insights"
	"github.com/mcpbind/mcpbind/examples/insights/memory"
	"github.com/mcpbind/mcpbind/examples/insights/sqliteexplorer"
	"github.com/mcpbind/mcpbind/examples/internal/telemetry"
)

// MemoryFileVar is the environment variable that names the server-memory
// file when --memory is not given.
const MemoryFileVar = "INSIGHTS_MEMORY_FILE"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "insights:", err)
		os.Exit(1)
	}
}

// run parses args, loads the downstream registry and serves until ctx ends
// or, on stdio, stdin closes.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("insights", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", filepath.Join("examples", "insights", "servers.yaml"), "servers config naming the downstream servers (sqlite-explorer and memory)")
	memFile := fs.String("memory", "", "file in which server-memory keeps the findings (default: $"+MemoryFileVar+", else a temporary file removed on exit)")
	addr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:0) at /mcp instead of stdio")
	logCalls := fs.Bool("log", false, "log connects, reconnects and downstream calls (tool, server, duration, error; never arguments) to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	if *memFile == "" {
		*memFile = os.Getenv(MemoryFileVar)
	}
	if *memFile == "" {
		tmp, err := os.MkdirTemp("", "insights-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*memFile = filepath.Join(tmp, "memory.jsonl")
	}
	abs, err := filepath.Abs(*memFile) // server-memory takes a relative path against its own folder
	if err != nil {
		return err
	}

	// Started before the registry, so that it is flushed after the registry
	// has closed (deferred calls run last first).
	tel, err := telemetry.Start(ctx, insights.Name, stderr)
	if err != nil {
		return err
	}
	defer tel.End(ctx)

	// One registry for both downstream servers, from the servers.yaml that
	// go generate exported them with. Each is started on first use and
	// restarted when its process dies; a changed tool contract fails that
	// tool's calls (DigestFail) instead of feeding it wrong data.
	regOpts := []composition.Option{composition.WithStderr(stderr), tel.MCP.ClientOption()}
	if *logCalls {
		text := slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug})
		regOpts = append(regOpts, composition.WithLogger(slog.New(otelmcp.LogHandler(text))))
	}
	reg, err := serverconfig.LoadRegistry(*config, regOpts...)
	if err != nil {
		return err
	}
	defer reg.Close()
	if err := reg.Use("sqlite-explorer", pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail)); err != nil {
		return fmt.Errorf("%s: %w", *config, err)
	}
	if err := reg.Use("memory", pinning.DigestCheck(memory.Pins, composition.DigestFail), composition.WithEnv("MEMORY_FILE_PATH="+abs)); err != nil {
		return fmt.Errorf("%s: %w", *config, err)
	}
	mcpServer, err := insights.NewServer(insights.Downstream{
		DB:     sqliteexplorer.FromRegistry(reg),
		Memory: memory.FromRegistry(reg),
	}, tel.MCP.ServerOption())
	if err != nil {
		return err
	}
	composition.ServerEvents(mcpServer, tel.MCP.ServerEvent)

	if *addr == "" {
		fmt.Fprintf(stderr, "serving %s over stdio\n", insights.Name)
		return composition.RunStdio(ctx, mcpServer, stdin, stdout, composition.HostOptions{Registry: reg})
	}
	host, err := composition.ListenHTTP(mcpServer, composition.HostOptions{Addr: *addr, Registry: reg})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "listening on %s\n", host.URL())
	return host.Serve(ctx)
}
