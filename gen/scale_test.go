package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/synth"
)

// syntheticTools returns n tools of the shape BenchmarkGenerate1000Tools
// uses (a nested input object, an enum, a two-variant union and an
// array-of-objects result per tool), with per-tool digests under
// x-mcpbind, as export records them.
func syntheticTools(tb testing.TB, n int) *bundle.Bundle {
	tb.Helper()
	b, err := synth.Bundle(synth.Tools(n)...)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// oneTool wraps one inputSchema in a one-tool bundle, with digests.
func oneTool(tb testing.TB, inputSchema string) *bundle.Bundle {
	tb.Helper()
	b, err := synth.Bundle(synth.OneTool(inputSchema))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// nestedSchema returns an object schema whose property "a" nests depth
// objects deep, each level also carrying a string property.
func nestedSchema(depth int) string { return synth.NestedSchema(depth, `{"type":"string"}`) }

// wideSchema returns an object schema with n properties of four kinds.
func wideSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	kinds := []string{`{"type":"string"}`, `{"type":"integer","minimum":0}`, `{"type":"array","items":{"type":"string"}}`, `{"type":"object","properties":{"x":{"type":"number"}}}`}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":%s`, i, kinds[i%len(kinds)])
	}
	b.WriteString(`}}`)
	return b.String()
}

// oneOfSchema returns an object schema whose property "v" is a oneOf of n
// object variants told apart by a const "kind".
func oneOfSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"v":{"oneOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"object","properties":{"kind":{"const":"k%05d"},"x%d":{"type":"number"}},"required":["kind"]}`, i, i)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

func benchGenerate(b *testing.B, bun *bundle.Bundle) {
	g, err := New()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Bundle(bun, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateDepth measures generate of one schema nested 100 to
// 1,000 objects deep: time and bytes per level should stay flat (linear in
// depth).
func BenchmarkGenerateDepth(b *testing.B) {
	for _, d := range []int{100, 200, 400, 800, 1000} {
		b.Run(fmt.Sprint(d), func(b *testing.B) { benchGenerate(b, oneTool(b, nestedSchema(d))) })
	}
}

// BenchmarkGenerateDefsChain measures generate of one schema whose types
// are a chain of 1,000 and 3,000 "$defs" entries, each referring to the
// next (linear in the chain's length).
func BenchmarkGenerateDefsChain(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchGenerate(b, oneTool(b, synth.DefsChain(n))) })
	}
}

// BenchmarkGenerateProperties measures generate of one object with 1,000
// and 5,000 properties (linear in the number of properties).
func BenchmarkGenerateProperties(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchGenerate(b, oneTool(b, wideSchema(n))) })
	}
}

// BenchmarkGenerateOneOf measures generate of a oneOf of 1,000 variants.
func BenchmarkGenerateOneOf(b *testing.B) {
	for _, n := range []int{250, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchGenerate(b, oneTool(b, oneOfSchema(n))) })
	}
}

// BenchmarkGenerateTools measures generate of 1,000 and 10,000 synthetic
// tools with their digests recorded, as export writes them (10,000 should
// cost about ten times 1,000).
func BenchmarkGenerateTools(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchGenerate(b, syntheticTools(b, n)) })
	}
}
