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
// are served exactly as given. A tool call answers an empty result, unless
// the tool's entry in the spec also says how it misbehaves:
//
//   - "repeat": {"text": S, "times": N}: the result is one text block of S
//     repeated N times (a result larger than a client's limit);
//   - "line": L: L is written to stdout as one line (a message that is not
//     JSON-RPC, such as "{garbage") before the result;
//   - "depth": N: a notifications/message nested N levels deep is written
//     before the result (deeper than a client's decoder goes);
//   - "pid": true: the result is the server's process id as text;
//   - "result": R: the result is R, a tools/call result object (content,
//     structuredContent, isError, _meta), as mcp-go decodes and sends it;
//   - "behave": see behave: an isError text, a JSON-RPC error, a crash with
//     a stderr text, a flood of notifications/tools/list_changed, a silent
//     change.
//
// The spec's "stderrAtStart" and "exitAtStart" (see startup) make a server
// that writes to stderr and exits before it serves.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

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
		Repeat       *struct {
			Text  string `json:"text"`
			Times int    `json:"times"`
		} `json:"repeat"`
		Line   *string         `json:"line"`
		Depth  int             `json:"depth"`
		PID    bool            `json:"pid"`
		Result json.RawMessage `json:"result"`
	} `json:"tools"`
}

// lineWriter writes whole lines to stdout, for mcp-go's server (which
// writes each message with one Write) and for the lines tools inject.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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
	out := &lineWriter{w: os.Stdout}
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
		behaved := t.Behave.handler(s)
		var result *mcp.CallToolResult
		if len(t.Result) > 0 {
			result = new(mcp.CallToolResult)
			if err := json.Unmarshal(t.Result, result); err != nil {
				return fmt.Errorf("tool %q: result: %w", t.Name, err)
			}
		}
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if t.Line != nil {
				if _, err := out.Write([]byte(*t.Line + "\n")); err != nil {
					return nil, err
				}
			}
			if t.Depth > 0 {
				msg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` +
					strings.Repeat("[", t.Depth) + strings.Repeat("]", t.Depth) + "}}\n"
				if _, err := out.Write([]byte(msg)); err != nil {
					return nil, err
				}
			}
			switch {
			case t.Repeat != nil:
				return mcp.NewToolResultText(strings.Repeat(t.Repeat.Text, t.Repeat.Times)), nil
			case t.PID:
				return mcp.NewToolResultText(strconv.Itoa(os.Getpid())), nil
			case result != nil:
				return result, nil
			}
			return behaved(ctx, req)
		})
	}
	return server.NewStdioServer(s).Listen(context.Background(), os.Stdin, out)
}
