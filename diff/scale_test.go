package diff

import (
	"fmt"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/synth"
)

// nestedBundle returns a one-tool bundle, with digests, whose inputSchema
// nests depth objects deep, with leaf as the innermost schema.
func nestedBundle(tb testing.TB, depth int, leaf string) *bundle.Bundle {
	tb.Helper()
	b, err := synth.Bundle(synth.OneTool(synth.NestedSchema(depth, leaf)))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkCompareDepth measures diff of two bundles whose schemas nest
// 100 to 1,000 objects deep and differ in the innermost leaf (linear in
// depth).
func BenchmarkCompareDepth(b *testing.B) {
	for _, d := range []int{100, 200, 400, 800, 1000} {
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

// benchSelf measures diff of the bundle built by tools with itself.
func benchSelf(b *testing.B, tools ...string) {
	bun, err := synth.Bundle(tools...)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := Compare(bun, bun); len(r.Changes) != 0 {
			b.Fatal(r.Changes)
		}
	}
}

// BenchmarkCompareDefsChain measures diff of two bundles whose schema is a
// chain of 1,000 and 3,000 "$defs" entries (linear in the chain's length).
func BenchmarkCompareDefsChain(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchSelf(b, synth.OneTool(synth.DefsChain(n))) })
	}
}

// BenchmarkCompareTools measures diff of a bundle of 1,000 and 10,000
// synthetic tools, with digests, with itself (linear in the tools).
func BenchmarkCompareTools(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchSelf(b, synth.Tools(n)...) })
	}
}
