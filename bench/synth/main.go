// Command synth writes the synthetic bundles of the scale benchmarks, with
// the per-tool and server digests under x-mcpbind that `mcpbind export`
// records:
//
//   - -n N: N tools of the shape testservers/synth describes (gen's
//     BenchmarkGenerateTools), and optionally each tool's inputSchema as
//     its own file (the input of the go-jsonschema comparison);
//   - -depth D: one tool whose inputSchema nests D objects deep;
//   - -defs N: one tool whose inputSchema is a chain of N "$defs" entries.
//
// The -depth and -defs bundles are written compact: the canonical
// two-space indentation would make a bundle nested D deep grow with D².
//
// Usage: synth (-n N [-schemas DIR] | -depth D | -defs N) -o FILE
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpbind/mcpbind/testservers/synth"
)

func main() {
	n := flag.Int("n", 0, "number of synthetic tools")
	depth := flag.Int("depth", 0, "nesting depth of the one tool's inputSchema")
	defs := flag.Int("defs", 0, "length of the one tool's $defs chain")
	out := flag.String("o", "", "bundle file to write (required)")
	schemas := flag.String("schemas", "", "with -n: folder to write each tool's inputSchema into, as tool_NNNNN.json")
	flag.Parse()
	given := 0
	for _, v := range []int{*n, *depth, *defs} {
		if v > 0 {
			given++
		}
	}
	if *out == "" || given != 1 {
		fmt.Fprintln(os.Stderr, "usage: synth (-n N [-schemas DIR] | -depth D | -defs N) -o FILE")
		os.Exit(2)
	}
	if err := run(*n, *depth, *defs, *out, *schemas); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}

func run(n, depth, defs int, out, schemas string) error {
	var tools []string
	switch {
	case depth > 0:
		tools = []string{synth.OneTool(synth.NestedSchema(depth, `{"type":"string"}`))}
	case defs > 0:
		tools = []string{synth.OneTool(synth.DefsChain(defs))}
	default:
		tools = synth.Tools(n)
		if schemas != "" {
			for i := range n {
				name := filepath.Join(schemas, fmt.Sprintf("tool_%05d.json", i))
				if err := os.WriteFile(name, []byte(synth.InputSchema()), 0o644); err != nil {
					return err
				}
			}
		}
	}
	b, err := synth.Bundle(tools...)
	if err != nil {
		return err
	}
	data, err := b.Marshal()
	if err != nil {
		return err
	}
	if depth > 0 || defs > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			return err
		}
		data = append(buf.Bytes(), '\n')
	}
	return os.WriteFile(out, data, 0o644)
}
