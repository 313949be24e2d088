// Command erasserver is an MCP server over stdio, built on mcp-go's server,
// that export's tests probe in both protocol eras. It serves clients of
// every protocol version and advertises the same tools in each.
//
// Usage:
//
//	erasserver -wrap never|always
//
// With -wrap never it is an ordinary mcp-go server: every outputSchema is
// the natural schema of the result (an integer, an array, a nullable object,
// a plain object), in every era, and results are sent as they are.
//
// With -wrap always it behaves like a Python SDK server: a tool whose
// result is not an object advertises, to every client, the envelope
// {"type":"object","properties":{"result":S},"required":["result"],
// "title":"<tool>Output"} (keeping "$defs" at the root, as pydantic does) and
// answers {"result": v}. One tool also carries FastMCP's marker
// "x-fastmcp-wrap-result": true. Object results are never wrapped.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// tool is one tool: its natural output schema, the envelope a Python SDK
// server would advertise instead (nil for object results), and its value.
type tool struct {
	name, description string
	natural, envelope string
	value             any
}

var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

func tools() []tool {
	return []tool{
		{
			name: "count", description: "Counts things.",
			natural:  `{"type":"integer","minimum":0}`,
			envelope: `{"properties":{"result":{"minimum":0,"title":"Result","type":"integer"}},"required":["result"],"title":"countOutput","type":"object"}`,
			value:    3,
		},
		{
			name: "names", description: "Lists names.",
			natural:  `{"type":"array","items":{"type":"string"}}`,
			envelope: `{"properties":{"result":{"items":{"type":"string"},"title":"Result","type":"array"}},"required":["result"],"title":"namesOutput","type":"object"}`,
			value:    []string{"ada", "grace"},
		},
		{
			name: "find", description: "Finds a row, or null.",
			natural:  `{"anyOf":[{"$ref":"#/$defs/Row"},{"type":"null"}],"$defs":{"Row":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]}}}`,
			envelope: `{"$defs":{"Row":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]}},"properties":{"result":{"anyOf":[{"$ref":"#/$defs/Row"},{"type":"null"}]}},"required":["result"],"title":"findOutput","type":"object"}`,
			value:    map[string]any{"id": 1, "name": "ada"},
		},
		{
			name: "marked", description: "Returns a flag; FastMCP marks its envelope.",
			natural:  `{"type":"boolean"}`,
			envelope: `{"type":"object","properties":{"result":{"type":"boolean"}},"required":["result"],"x-fastmcp-wrap-result":true}`,
			value:    true,
		},
		{
			name: "stats", description: "Returns an object, which no SDK wraps.",
			natural: `{"type":"object","properties":{"result":{"type":"object","properties":{"n":{"type":"integer"}}},"total":{"type":"integer"}}}`,
			value:   map[string]any{"result": map[string]any{"n": 1}, "total": 2},
		},
	}
}

func main() {
	wrap := flag.String("wrap", "never", "never: an mcp-go server; always: wrap non-object results in every version, like the Python SDK")
	flag.Parse()
	if *wrap != "never" && *wrap != "always" {
		log.Fatalf("erasserver: -wrap %q: want never or always", *wrap)
	}
	s := server.NewMCPServer("eras-"+*wrap, "1.0.0", server.WithToolCapabilities(false))
	for _, t := range tools() {
		schema, value := t.natural, t.value
		if *wrap == "always" && t.envelope != "" {
			schema, value = t.envelope, map[string]any{"result": t.value}
		}
		mt := mcp.NewTool(t.name, mcp.WithDescription(t.description))
		mt.InputSchema = mcp.ToolInputSchema{}
		mt.RawInputSchema = noArgs
		mt.RawOutputSchema = json.RawMessage(schema)
		s.AddTool(mt, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(value)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, RawStructuredContent: b}, nil
		})
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "erasserver:", err)
		os.Exit(1)
	}
}
