package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// argumentValidation validates every tools/call's arguments against the
// tool's inputSchema (github.com/santhosh-tekuri/jsonschema/v6) before its
// handler runs, and answers invalid arguments, as SEP-1303 asks, with a tool
// result with isError: true whose text says what is wrong in words
// (`arguments: missing property 'table'`). It replaces mcp-go's
// WithInputSchemaValidation, whose message prints a Go value instead.
func argumentValidation(defs []toolDef) (server.ServerOption, error) {
	schemas := map[string]*jsonschema.Schema{}
	for _, d := range defs {
		raw, err := json.Marshal(d.tool) // the inputSchema as tools/list sends it
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.tool.Name, err)
		}
		var obj struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.tool.Name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(obj.InputSchema))
		if err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", d.tool.Name, err)
		}
		c := jsonschema.NewCompiler()
		url := "urn:sqlite-explorer:" + d.tool.Name
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", d.tool.Name, err)
		}
		if schemas[d.tool.Name], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", d.tool.Name, err)
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
	where := "arguments"
	for _, seg := range verr.InstanceLocation {
		where += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(seg)
	}
	return []string{where + ": " + verr.ErrorKind.LocalizedString(p)}
}
