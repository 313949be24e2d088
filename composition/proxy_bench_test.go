package composition_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// BenchmarkForwardedCall compares one call through a proxy of
// sqlite-explorer: the generated Forward (raw arguments validated against
// the inputSchema, the result passed on as received) and the typed proxy
// Register(s, NewClient(down)) (arguments decoded and encoded again, the
// result decoded and encoded again), with the hand-written server reached
// directly as the baseline. Everything is in process, so only the proxy's
// work differs.
func BenchmarkForwardedCall(b *testing.B) {
	ctx := context.Background()
	real := explorerServer(b)
	down, err := composition.Connect(ctx, composition.InProcess(real))
	if err != nil {
		b.Fatal(err)
	}
	defer down.Close()
	forward := server.NewMCPServer("forward", "0")
	if err := sqliteexplorer.Forward(forward, down); err != nil {
		b.Fatal(err)
	}
	typed := server.NewMCPServer("typed", "0")
	if err := sqliteexplorer.Register(typed, sqliteexplorer.NewClient(down)); err != nil {
		b.Fatal(err)
	}
	for _, srv := range []struct {
		name string
		s    *server.MCPServer
	}{{"direct", real}, {"Forward", forward}, {"typed-Register", typed}} {
		s, err := composition.Connect(ctx, composition.InProcess(srv.s))
		if err != nil {
			b.Fatal(err)
		}
		db := sqliteexplorer.NewClient(s)
		b.Run(srv.name+"/describe_table", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: "books"}); err != nil || len(d.Columns) == 0 {
					b.Fatal(err, d)
				}
			}
		})
		_ = s.Close()
	}
}
