package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
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
		if decode {
			decodeByHand(b, res)
		}
	}
}

// decodeByHand is what go-sdk users write to get a typed value: marshal
// StructuredContent again and unmarshal it into the generated type.
func decodeByHand(b *testing.B, res *mcp.CallToolResult) {
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		b.Fatal(err)
	}
	var out explorer.DescribeTableResult
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Columns) != 5 {
		b.Fatal(out, err)
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

// The decode benchmarks time only the client's decoding of one
// describe_table result (the bytes of describeNotes as a tools/call
// result), without transports or goroutine hand-offs, whose scheduling
// makes the ns/op of the call benchmarks noisy on a loaded machine:
//
//   - DecodeGoSDK: what go-sdk does with every result (into
//     *mcp.CallToolResult, structuredContent into `any`);
//   - DecodeByHand: that, plus the step go-sdk users write to get a typed
//     value (marshal StructuredContent again, unmarshal it);
//   - DecodeTyped: what TypedCall adds to DecodeGoSDK: the result's bytes
//     into a composition.Result, then Session.Invoke's unwrap and typed
//     decode.

func decodeInput(b *testing.B) []byte {
	b.Helper()
	text, err := json.Marshal(describeNotes)
	if err != nil {
		b.Fatal(err)
	}
	return []byte(`{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + describeNotes + `}`)
}

func BenchmarkDecodeGoSDK(b *testing.B) {
	raw := decodeInput(b)
	b.ReportAllocs()
	for b.Loop() {
		var res mcp.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil || res.StructuredContent == nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeByHand(b *testing.B) {
	raw := decodeInput(b)
	b.ReportAllocs()
	for b.Loop() {
		var res mcp.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			b.Fatal(err)
		}
		decodeByHand(b, &res)
	}
}

// rawCaller answers every call with its result bytes, decoded as
// Session.Invoke decodes a result after the wire: into a
// composition.Result, then unwrapped (at 2026-07-28) and decoded into out
// with the tool's Types.
type rawCaller []byte

func (r rawCaller) Invoke(_ context.Context, tool *bindimpl.Tool, _ any, out any) error {
	var res composition.Result
	if err := json.Unmarshal(r, &res); err != nil {
		return err
	}
	raw, _ := res.JSON()
	value, _ := bindimpl.Unwrap(composition.ModernProtocolVersion, tool.Output, raw)
	return tool.Decode(value, out)
}

func BenchmarkDecodeTyped(b *testing.B) {
	c := explorer.NewClient(rawCaller(decodeInput(b)))
	ctx := context.Background()
	args := explorer.DescribeTableArgs{Table: "notes"}
	b.ReportAllocs()
	for b.Loop() {
		out, err := c.DescribeTable(ctx, args)
		if err != nil || len(out.Columns) != 5 {
			b.Fatal(out, err)
		}
	}
}
