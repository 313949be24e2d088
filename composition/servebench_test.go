package composition_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/sqlitestub"
)

// BenchmarkServedCall compares the server side of one typed call: the
// hand-written sqlite-explorer server (mcp-go handlers of its own) with the
// generated stub (Register, composition.Serve) over the same store, both
// reached in process by the generated client, so only the server-side
// work differs; generated+interceptor adds a server interceptor that only
// calls next. describe_table returns a plain object; list_tables an
// array, wrapped as {"result": …} toward 2025-06-18 sessions.
func BenchmarkServedCall(b *testing.B) {
	ctx := context.Background()
	store, err := explorer.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	real, err := explorer.NewServer(store)
	if err != nil {
		b.Fatal(err)
	}
	stub, err := sqlitestub.NewServer(sqlitestub.Handler{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	// the generated stub with one server interceptor that only calls
	// next: the cost of the chain and of making the ServerCall
	pass := func(ctx context.Context, call composition.ServerCall, next composition.ServerHandler) (composition.Answer, error) {
		return next(ctx, call)
	}
	intercepted, err := sqlitestub.NewServer(sqlitestub.Handler{Store: store}, composition.WithServerInterceptor(pass))
	if err != nil {
		b.Fatal(err)
	}
	for _, srv := range []struct {
		name string
		s    *server.MCPServer
	}{{"hand-written", real}, {"generated", stub}, {"generated+interceptor", intercepted}} {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			s, err := composition.Connect(ctx, composition.InProcess(srv.s), composition.WithProtocolVersion(version))
			if err != nil {
				b.Fatal(err)
			}
			db := sqliteexplorer.NewClient(s)
			b.Run(srv.name+"/describe_table/"+version, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if d, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: "books"}); err != nil || len(d.Columns) == 0 {
						b.Fatal(err, d)
					}
				}
			})
			b.Run(srv.name+"/list_tables/"+version, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if ts, err := db.ListTables(ctx); err != nil || len(ts) == 0 {
						b.Fatal(err, ts)
					}
				}
			})
			_ = s.Close()
		}
	}
}
