// Command hostileserver is an MCP server over stdio, built on mcp-go's
// server, that serves whatever serverInfo and tools a test gives it: the
// fake for hostile servers in the tests of mcpbind's generated-code safety
// (a real server would not send such contracts on purpose).
//
// Usage:
//
//	MCPBIND_HOSTILE_SPEC=spec.json hostileserver
//
// spec.json is {"serverInfo":{"name":N,"version":V},"tools":[T, …]} where
// each T is a tool definition as MCP's tools/list sends it (name, title,
// description, inputSchema, outputSchema, _meta); the strings and schemas
// are served exactly as given. Every tool call answers an empty result,
// unless the tool's entry has a "behave" member (see behave: an isError
// text, a JSON-RPC error, a crash with a stderr text, a flood of
// notifications/tools/list_changed). The spec's "stderrAtStart" and
// "exitAtStart" (see startup) make a server that writes to stderr and exits
// before it serves.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// specEnv names the environment variable that holds the spec file's path.
const specEnv = "MCPBIND_HOSTILE_SPEC"

// spec is the content of the spec file.
type spec struct {
	startup
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Tools []struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Meta         map[string]any  `json:"_meta"`
		Behave       behave          `json:"behave"`
	} `json:"tools"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hostileserver:", err)
		os.Exit(1)
	}
}

func run() error {
	raw, err := os.ReadFile(os.Getenv(specEnv))
	if err != nil {
		return fmt.Errorf("read $%s: %w", specEnv, err)
	}
	var sp spec
	if err := json.Unmarshal(raw, &sp); err != nil {
		return fmt.Errorf("$%s: %w", specEnv, err)
	}
	sp.startup.run()
	s := server.NewMCPServer(sp.ServerInfo.Name, sp.ServerInfo.Version, server.WithToolCapabilities(false))
	for _, t := range sp.Tools {
		in := t.InputSchema
		if len(in) == 0 {
			in = json.RawMessage(`{"type":"object"}`)
		}
		tool := mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, RawInputSchema: in}
		if len(t.OutputSchema) > 0 {
			tool.RawOutputSchema = t.OutputSchema
		}
		if len(t.Meta) > 0 {
			tool.Meta = &mcp.Meta{AdditionalFields: t.Meta}
		}
		s.AddTool(tool, t.Behave.handler(s))
	}
	return server.ServeStdio(s)
}
