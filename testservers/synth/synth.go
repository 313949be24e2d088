// Package synth builds the synthetic tools mcpbind's scale benchmarks and
// reference comparisons share, so that both measure the same input.
package synth

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mcpbind/mcpbind/bundle"
)

// Tool returns the JSON definition of synthetic tool i ("tool_00042"): an
// inputSchema with a string, a bounded integer, an enum, a nested object
// and a two-variant oneOf told apart by a const "kind"; an outputSchema
// with an array of objects and a total.
func Tool(i int) string {
	return fmt.Sprintf(`{"name":"tool_%05d","description":"Synthetic tool %d.","inputSchema":%s,"outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id"]}},"total":{"type":"integer"}},"required":["rows","total"]}}`,
		i, i, InputSchema())
}

// InputSchema returns the inputSchema every synthetic tool has.
func InputSchema() string {
	return `{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100},` +
		`"mode":{"enum":["fast","exact","fuzzy"]},"filter":{"type":"object","properties":{"field":{"type":"string"},"value":{"type":["string","number"]}},"required":["field"]},` +
		`"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"number"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"y":{"type":"number"}},"required":["kind"]}]}` +
		`},"required":["query"]}`
}

// NestedSchema returns an object schema whose property "a" nests depth
// objects deep, each level also carrying a string property "s"; leaf is
// the innermost schema.
func NestedSchema(depth int, leaf string) string {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"s":{"type":"string"},"a":`)
	}
	b.WriteString(leaf)
	for range depth {
		b.WriteString(`}}`)
	}
	return b.String()
}

// DefsChain returns an object schema whose property "head" refers to the
// first of n "$defs" entries, each an object with a string "s" and a
// "next" that refers to the following entry; the last entry is a string.
func DefsChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"head":{"$ref":"#/$defs/d00000"}},"$defs":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == n-1 {
			fmt.Fprintf(&b, `"d%05d":{"type":"string"}`, i)
			continue
		}
		fmt.Fprintf(&b, `"d%05d":{"type":"object","properties":{"s":{"type":"string"},"next":{"$ref":"#/$defs/d%05d"}}}`, i, i+1)
	}
	b.WriteString(`}}`)
	return b.String()
}

// Bundle returns a one-server bundle (id "synthetic") of the given tool
// definitions, with the digests of its tools and of the server recorded
// under x-mcpbind, as `mcpbind export` writes them.
func Bundle(tools ...string) (*bundle.Bundle, error) {
	ts := make([]bundle.Tool, 0, len(tools))
	for _, raw := range tools {
		t, err := bundle.NewTool(json.RawMessage(raw))
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	s := bundle.Server{ID: "synthetic", ProtocolVersion: "2026-07-28", Transport: bundle.TransportStdio,
		ServerInfo: json.RawMessage(`{"name":"synthetic","version":"1"}`), Tools: ts}
	if err := s.RecordDigests(); err != nil {
		return nil, err
	}
	return &bundle.Bundle{BundleVersion: bundle.Version, Servers: []bundle.Server{s}}, nil
}

// Tools returns the definitions of synthetic tools 0 to n-1 (see Tool).
func Tools(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = Tool(i)
	}
	return out
}

// OneTool returns the definition of a tool "deep" whose inputSchema is
// inputSchema.
func OneTool(inputSchema string) string {
	return `{"name":"deep","inputSchema":` + inputSchema + `}`
}

// ShuffleAlternatives returns the decoded JSON value v with the
// alternatives of every anyOf and oneOf in a random order drawn from r (a
// copy; v is not changed). Keys are visited in sorted order, so a seed
// gives one result.
func ShuffleAlternatives(r *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			e := ShuffleAlternatives(r, x[k])
			if alts, ok := e.([]any); ok && (k == "anyOf" || k == "oneOf") {
				r.Shuffle(len(alts), func(i, j int) { alts[i], alts[j] = alts[j], alts[i] })
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ShuffleAlternatives(r, e)
		}
		return out
	}
	return v
}
