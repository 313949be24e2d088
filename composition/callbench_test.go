package composition_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// BenchmarkTypedCall compares a typed call through the generated client
// (arguments encoded and the result decoded with the package's types
// table, envelope rules applied) with a bare mcp-go client.CallTool of the
// same tool, both over mcp-go's in-process transport to the sqlite-explorer
// server, so only the client-side work differs; and the typed call through
// a Registry (FromRegistry), bare and observed.
func BenchmarkTypedCall(b *testing.B) {
	ctx := context.Background()
	srv := explorerServer(b)
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		b.Run("raw/"+version, func(b *testing.B) {
			c := client.NewClient(transport.NewInProcessTransport(srv), client.WithProtocolVersion(version))
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: version, ClientInfo: mcp.Implementation{Name: "bench"}}}); err != nil {
				b.Fatal(err)
			}
			req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "describe_table", Arguments: map[string]any{"table": "books"}}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
		b.Run("typed/"+version, func(b *testing.B) {
			s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(version))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			describeBooks(b, sqliteexplorer.NewClient(s))
		})
		// The same with WithArgsValidation: the arguments, encoded once,
		// are validated and sent.
		b.Run("typed+argsvalidation/"+version, func(b *testing.B) {
			s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(version), composition.WithArgsValidation())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			describeBooks(b, sqliteexplorer.NewClient(s))
		})
		// The same typed call through a Registry's binding (lookup, live
		// session check, retry bookkeeping), bare and with a pass-through
		// interceptor and a logger whose level drops the call records.
		noop := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
			return next(ctx, c)
		}
		quiet := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
		for name, opts := range map[string][]composition.Option{
			"registry":          nil,
			"registry+observed": {composition.WithInterceptor(noop), composition.WithLogger(quiet)},
		} {
			b.Run(name+"/"+version, func(b *testing.B) {
				reg := composition.NewRegistry(opts...)
				defer reg.Close()
				if err := reg.Add("sqlite-explorer", composition.InProcess(srv), composition.WithProtocolVersion(version)); err != nil {
					b.Fatal(err)
				}
				describeBooks(b, sqliteexplorer.FromRegistry(reg))
			})
		}
	}
}

// BenchmarkCallLargeArgs calls query through the generated client with a
// 64 KiB statement (a SELECT and a long comment), with and without
// WithArgsValidation, so that the cost of encoding the arguments shows in
// B/op: they are encoded once, and those bytes are validated and sent.
func BenchmarkCallLargeArgs(b *testing.B) {
	ctx := context.Background()
	srv := explorerServer(b)
	args := sqliteexplorer.QueryArgs{SQL: "SELECT 1 -- " + strings.Repeat("x", 64<<10)}
	for name, opts := range map[string][]composition.Option{
		"plain":          nil,
		"argsvalidation": {composition.WithArgsValidation()},
	} {
		b.Run(name, func(b *testing.B) {
			s, err := composition.Connect(ctx, composition.InProcess(srv), opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			db := sqliteexplorer.NewClient(s)
			b.SetBytes(int64(len(args.SQL)))
			b.ReportAllocs()
			for b.Loop() {
				if res, err := db.Query(ctx, args); err != nil || res.RowCount != 1 {
					b.Fatal(err, res)
				}
			}
		})
	}
}
