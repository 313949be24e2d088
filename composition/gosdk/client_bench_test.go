package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	explorer "github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// The benchmarks call describe_table (a 5-column object result, 420 bytes
// of structuredContent) on the go-sdk server of newGoSDKExplorer over
// in-memory transports at 2026-07-28, one call per iteration:
//
//   - RawCallTool: cs.CallTool as a go-sdk user writes it, the result left
//     in go-sdk's `any`;
//   - RawCallToolDecoded: the same, then the hand-written step go-sdk users
//     add to get a typed value (marshal StructuredContent again, unmarshal
//     into the generated DescribeTableResult);
//   - TypedCall: the generated client's DescribeTable over gosdk.NewSession
//     on a session connected over gosdk.Transport (raw bytes, decoded once);
//   - TypedCallNoTransport: the same without gosdk.Transport (decoded by
//     go-sdk, encoded again, decoded into the typed value).
//
// Run: go test ./composition/gosdk -run '^$' -bench . -benchmem -count=5

func benchSession(b *testing.B, wrap func(mcp.Transport) mcp.Transport) (*mcp.ClientSession, context.Context) {
	b.Helper()
	ctx := context.Background()
	e := newGoSDKExplorer(b)
	cs := e.connect(ctx, b, composition.ModernProtocolVersion, wrap)
	b.Cleanup(func() { _ = cs.Close() })
	return cs, ctx
}

func BenchmarkRawCallTool(b *testing.B)        { benchRaw(b, false) }
func BenchmarkRawCallToolDecoded(b *testing.B) { benchRaw(b, true) }

// benchRaw calls through cs.CallTool and, with decode, decodes
// structuredContent into the generated type by hand.
func benchRaw(b *testing.B, decode bool) {
	cs, ctx := benchSession(b, noWrap)
	args := explorer.DescribeTableArgs{Table: "notes"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "describe_table", Arguments: args})
		if err != nil || res.IsError || res.StructuredContent == nil {
			b.Fatal(res, err)
		}
		if !decode {
			continue
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			b.Fatal(err)
		}
		var out explorer.DescribeTableResult
		if err := json.Unmarshal(raw, &out); err != nil || len(out.Columns) != 5 {
			b.Fatal(out, err)
		}
	}
}

func benchTyped(b *testing.B, wrap func(mcp.Transport) mcp.Transport) {
	cs, ctx := benchSession(b, wrap)
	s, err := gosdk.NewSession(ctx, cs)
	if err != nil {
		b.Fatal(err)
	}
	c := explorer.NewClient(s)
	args := explorer.DescribeTableArgs{Table: "notes"}
	b.ReportAllocs()
	for b.Loop() {
		out, err := c.DescribeTable(ctx, args)
		if err != nil || len(out.Columns) != 5 {
			b.Fatal(out, err)
		}
	}
}

func BenchmarkTypedCall(b *testing.B)            { benchTyped(b, gosdk.Transport) }
func BenchmarkTypedCallNoTransport(b *testing.B) { benchTyped(b, noWrap) }
