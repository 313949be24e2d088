package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
)

// nestedBundle returns a one-tool bundle whose inputSchema nests depth
// objects deep, with leaf as the innermost schema.
func nestedBundle(tb testing.TB, depth int, leaf string) *bundle.Bundle {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`{"name":"deep","inputSchema":`)
	for range depth {
		b.WriteString(`{"type":"object","properties":{"s":{"type":"string"},"a":`)
	}
	b.WriteString(leaf)
	for range depth {
		b.WriteString(`}}`)
	}
	b.WriteString(`}`)
	tool, err := bundle.NewTool([]byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return &bundle.Bundle{BundleVersion: 1, Servers: []bundle.Server{{ID: "scale", ProtocolVersion: "2026-07-28", Tools: []bundle.Tool{tool}}}}
}

// BenchmarkCompareDepth measures diff of two bundles whose schemas nest
// 100 to 400 objects deep and differ in the innermost leaf (linear in
// depth).
func BenchmarkCompareDepth(b *testing.B) {
	for _, d := range []int{100, 200, 400} {
		b.Run(fmt.Sprint(d), func(b *testing.B) {
			old, cur := nestedBundle(b, d, `{"type":"string"}`), nestedBundle(b, d, `{"type":"integer"}`)
			b.ReportAllocs()
			for b.Loop() {
				if r := Compare(old, cur); len(r.Changes) == 0 {
					b.Fatal("no change found")
				}
			}
		})
	}
}
