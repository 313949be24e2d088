package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	stub "github.com/mcpbind/mcpbind/golden/sqlite-explorer-gosdk/sqliteexplorer"
)

// The served-call benchmarks answer describe_table with the same fixed
// 5-column result on a go-sdk server, called by a plain go-sdk client
// (cs.CallTool) over in-memory transports at each era, one call per
// iteration:
//
//   - ServedStub: the server registered by the generated go-sdk Register
//     (gosdk.Serve: arguments decoded into DescribeTableArgs by the
//     package's codec, result encoded once, sent as raw structuredContent
//     plus its text);
//   - ServedAddTool: the same tool hand-written with go-sdk's typed
//     mcp.AddTool[In, Out] (go-sdk infers the schemas from the Go types,
//     validates the arguments and the result against them, and marshals
//     the result for structuredContent and the text).
//
// Run: go test ./composition/gosdk -run '^$' -bench Served -benchmem -count=5

// describeFixed is the describe_table result both servers send.
func describeFixed() *stub.DescribeTableResult {
	return &stub.DescribeTableResult{Table: "notes", Columns: []stub.Column{
		{Name: "id", Type: "INTEGER", PrimaryKey: true},
		{Name: "title", Type: "TEXT", NotNull: true},
		{Name: "body", Type: "TEXT"},
		{Name: "created", Type: "TEXT", NotNull: true},
		{Name: "views", Type: "INTEGER", NotNull: true},
	}}
}

// describeFake answers describe_table with describeFixed.
type describeFake struct {
	stub.UnimplementedHandler
}

func (describeFake) DescribeTable(context.Context, stub.DescribeTableArgs) (*stub.DescribeTableResult, error) {
	return describeFixed(), nil
}

// Hand-written types for mcp.AddTool, as a go-sdk user declares them.
type (
	handArgs struct {
		Table string `json:"table" jsonschema:"the table's name"`
	}
	handColumn struct {
		Name       string `json:"name"`
		Type       string `json:"type"`
		NotNull    bool   `json:"not_null"`
		PrimaryKey bool   `json:"primary_key"`
	}
	handResult struct {
		Table   string       `json:"table"`
		Columns []handColumn `json:"columns"`
	}
)

func BenchmarkServedStub(b *testing.B) {
	benchServed(b, func(srv *mcp.Server) {
		if err := stub.Register(srv, describeFake{}); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkServedAddTool(b *testing.B) {
	benchServed(b, func(srv *mcp.Server) {
		mcp.AddTool(srv, &mcp.Tool{Name: "describe_table", Description: "Describe a table's columns."},
			func(_ context.Context, _ *mcp.CallToolRequest, a handArgs) (*mcp.CallToolResult, handResult, error) {
				d := describeFixed()
				out := handResult{Table: d.Table, Columns: make([]handColumn, len(d.Columns))}
				for i, c := range d.Columns {
					out.Columns[i] = handColumn(c)
				}
				return nil, out, nil
			})
	})
}

// benchServed calls describe_table on a server that register fills, at
// each era, from a plain go-sdk client.
func benchServed(b *testing.B, register func(*mcp.Server)) {
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		b.Run(version, func(b *testing.B) {
			ctx := context.Background()
			srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
			register(srv)
			ct, st := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = ss.Close() })
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close() })
			params := &mcp.CallToolParams{Name: "describe_table", Arguments: map[string]any{"table": "notes"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError || res.StructuredContent == nil {
					b.Fatalf("describe_table = %+v, %v", res, err)
				}
			}
		})
	}
}
