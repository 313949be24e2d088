// Package argcheck validates the arguments of the example servers' tool
// calls against their input schemas, with messages in words.
package argcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validation returns a server option that validates every tools/call's
// arguments against the called tool's inputSchema (one of tools; calls of
// other tools pass) before its handler runs, with
// github.com/santhosh-tekuri/jsonschema/v6. Invalid arguments are answered,
// as SEP-1303 asks, with a tool result with isError: true whose text says
// what is wrong in words, each problem as "arguments<JSON pointer>: <what>"
// (`arguments: missing property 'table'`, `arguments/sample_rows: got
// string, want integer`), joined with "; ". It replaces mcp-go's
// WithInputSchemaValidation, whose message prints a Go value instead. It
// fails when a tool's inputSchema does not compile, naming the tool.
func Validation(tools []mcp.Tool) (server.ServerOption, error) {
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range tools {
		raw, err := json.Marshal(tool) // the inputSchema as tools/list sends it
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", tool.Name, err)
		}
		var obj struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("tool %s: %w", tool.Name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(obj.InputSchema))
		if err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", tool.Name, err)
		}
		c := jsonschema.NewCompiler()
		url := "urn:tool:" + tool.Name
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", tool.Name, err)
		}
		if schemas[tool.Name], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", tool.Name, err)
		}
	}
	p := message.NewPrinter(language.English)
	return server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sch, ok := schemas[req.Params.Name]
			if !ok {
				return next(ctx, req)
			}
			args := req.Params.Arguments
			if args == nil {
				args = map[string]any{}
			}
			raw, err := json.Marshal(args)
			if err != nil {
				return mcp.NewToolResultError("arguments: " + err.Error()), nil
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				return mcp.NewToolResultError("arguments: " + err.Error()), nil
			}
			var verr *jsonschema.ValidationError
			if err := sch.Validate(v); errors.As(err, &verr) {
				return mcp.NewToolResultError(strings.Join(leafMessages(verr, p), "; ")), nil
			}
			return next(ctx, req)
		}
	}), nil
}

// leafMessages renders the leaves of a validation error as
// "arguments/<pointer>: <what is wrong>".
func leafMessages(verr *jsonschema.ValidationError, p *message.Printer) []string {
	if len(verr.Causes) > 0 {
		var out []string
		for _, c := range verr.Causes {
			out = append(out, leafMessages(c, p)...)
		}
		return out
	}
	where := jsonpointer.Append("arguments", verr.InstanceLocation...)
	return []string{where + ": " + verr.ErrorKind.LocalizedString(p)}
}
