// Command synth writes the synthetic bundle of the scale benchmarks
// (gen's BenchmarkGenerateTools): -n tools of the shape internal/synth
// describes, as a bundle file, and optionally each tool's inputSchema as
// its own file (the input of the go-jsonschema comparison).
//
// Usage: synth -n 1000 -o synth.json [-schemas DIR]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/internal/synth"
)

func main() {
	n := flag.Int("n", 1000, "number of tools")
	out := flag.String("o", "", "bundle file to write (required)")
	schemas := flag.String("schemas", "", "folder to write each tool's inputSchema into, as tool_NNNNN.json")
	flag.Parse()
	if *out == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: synth -n N -o FILE [-schemas DIR]")
		os.Exit(2)
	}
	if err := run(*n, *out, *schemas); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}

func run(n int, out, schemas string) error {
	tools := make([]bundle.Tool, 0, n)
	for i := range n {
		t, err := bundle.NewTool(json.RawMessage(synth.Tool(i)))
		if err != nil {
			return err
		}
		tools = append(tools, t)
		if schemas != "" {
			name := filepath.Join(schemas, fmt.Sprintf("tool_%05d.json", i))
			if err := os.WriteFile(name, []byte(synth.InputSchema()), 0o644); err != nil {
				return err
			}
		}
	}
	b := &bundle.Bundle{Servers: []bundle.Server{{ID: "synthetic", ProtocolVersion: "2026-07-28", Transport: bundle.TransportStdio,
		ServerInfo: json.RawMessage(`{"name":"synthetic","version":"1"}`), Tools: tools}}}
	data, err := b.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}
