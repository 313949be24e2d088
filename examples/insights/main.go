// Command insights is an MCP server built out of two other MCP servers: it
// reports on the tables of sqlite-explorer (this repository's example) and
// remembers findings about them in @modelcontextprotocol/server-memory (npm),
// calling both through the typed clients mcpbind generated from their
// bundles (packages sqliteexplorer and memory, beside this file). Its tools
// are described in package insights.
//
// Usage:
//
//	insights [--config FILE] [--memory FILE] [--http ADDR]
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
//
// Output contract, as sqlite-explorer's: stdout carries only MCP messages in
// stdio mode and nothing in HTTP mode; diagnostics (and the downstream
// servers' stderr) go to stderr. With --http, once the listener is bound,
// stderr gets the line
//
//	listening on http://HOST:PORT/mcp
//
// The server stops on SIGINT or SIGTERM, and in stdio mode also when stdin
// is closed; it closes its downstream sessions (and so stops their
// processes) on the way out.
//
// The downstream packages and the bundle they come from are checked in and
// refreshed by go generate (npm ci --prefix testservers first):
//
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind export --config servers.yaml --probe-eras --timeout 5m -o servers.json
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind generate servers.json -o .
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/mcpbind/mcpbind/examples/insights/insights"
	"github.com/mcpbind/mcpbind/examples/internal/serve"
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

// run parses args, connects the downstream servers and serves until ctx
// ends or, on stdio, stdin closes.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("insights", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", filepath.Join("examples", "insights", "servers.yaml"), "servers config naming the downstream servers (sqlite-explorer and memory)")
	memFile := fs.String("memory", "", "file in which server-memory keeps the findings (default: $"+MemoryFileVar+", else a temporary file removed on exit)")
	addr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:0) at /mcp instead of stdio")
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

	down, closeDown, err := connectDownstream(ctx, *config, abs, stderr)
	if err != nil {
		return err
	}
	defer closeDown()
	mcpServer, err := insights.NewServer(down)
	if err != nil {
		return err
	}

	if *addr == "" {
		fmt.Fprintf(stderr, "serving %s over stdio\n", insights.Name)
		return serve.Stdio(ctx, mcpServer, stdin, stdout)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "listening on %s\n", serve.EndpointURL(ln.Addr()))
	return serve.HTTP(ctx, mcpServer, ln)
}
