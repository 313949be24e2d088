// Command sqlite-stub serves sqlite-explorer's contract over stdio from the
// code `mcpbind generate --server` generated (package sqlitestub), on a
// fresh copy of the example's database in --dir (--validate-args turns on
// composition.WithServerArgsValidation; --tables-only serves
// sqlitestub.TablesOnly, which answers list_tables and leaves every other
// tool to the generated UnimplementedHandler). Tests start it to compare it
// with the real sqlite-explorer from other clients (the TypeScript SDKs),
// and to call omitted tools of a server in another process. --sdk go-sdk
// serves the same Handler through the package generated with --sdk go-sdk
// on a server of the official Go SDK (gosdkstub.GoSDK).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/sqlitestub"
	"github.com/mcpbind/mcpbind/testservers/sqlitestub/gosdkstub"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlite-stub:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	dir := flag.String("dir", "", "folder of the database file (required)")
	validate := flag.Bool("validate-args", false, "validate arguments against the inputSchema (composition.WithServerArgsValidation)")
	tablesOnly := flag.Bool("tables-only", false, "answer list_tables only; every other tool answers that it is not implemented")
	sdk := flag.String("sdk", "mcp-go", `serve on "mcp-go" or on "go-sdk" (the package generated with --sdk go-sdk)`)
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 || (*sdk != "mcp-go" && *sdk != "go-sdk") {
		return fmt.Errorf("usage: sqlite-stub --dir FOLDER [--validate-args] [--tables-only] [--sdk mcp-go|go-sdk]")
	}
	var opts []composition.ServerOption
	if *validate {
		opts = append(opts, composition.WithServerArgsValidation())
	}
	store, err := explorer.Open(ctx, *dir)
	if err != nil {
		return err
	}
	defer store.Close()
	var h sqliteexplorer.Handler = sqlitestub.Handler{Store: store}
	if *tablesOnly {
		h = sqlitestub.TablesOnly{Store: store}
	}
	if *sdk == "go-sdk" {
		return serveGoSDK(ctx, h, *validate)
	}
	s, err := sqlitestub.NewServer(h, opts...)
	if err != nil {
		return err
	}
	err = server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// serveGoSDK serves h over stdio on a go-sdk server through the package
// generated with --sdk go-sdk.
func serveGoSDK(ctx context.Context, h sqliteexplorer.Handler, validate bool) error {
	var opts []gosdk.ServerOption
	if validate {
		opts = append(opts, gosdk.WithServerArgsValidation())
	}
	s, err := gosdkstub.NewServer(gosdkstub.GoSDK{H: h}, opts...)
	if err != nil {
		return err
	}
	err = s.Run(ctx, &mcp.StdioTransport{})
	if ctx.Err() != nil {
		return nil
	}
	return err
}
