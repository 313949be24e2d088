package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// Protocol eras and result envelopes (SEP-2106).
//
// Before protocol version 2026-07-28 the spec required an object outputSchema
// and an object structuredContent. Toward such clients this server does what
// the TypeScript SDK v2 does: a tool whose natural output schema S is not a
// plain {"type":"object"} schema advertises
//
//	{"type":"object","properties":{"result":S},"required":["result"]}
//
// and answers {"result": v} (also when v is null). Toward 2026-07-28 clients
// it advertises S and answers v itself, whatever JSON value it is.
//
// The era is decided per request from what mcp-go records for it (see
// modernRequest); tools/list is rewritten by a server.ToolFilterFunc and
// tools/call by the tool's handler.

// modernRequest reports whether the request being handled uses protocol
// version 2026-07-28 or later.
//
// server.RequestProtocolVersion returns the version a 2026-07-28 request
// declares in its _meta ("io.modelcontextprotocol/protocolVersion", which the
// mcp-go server reads into server.RequestProtocolInfo for every message), and
// otherwise the version the session negotiated through initialize. Requests
// with neither (a legacy HTTP request without a session) are legacy.
func modernRequest(ctx context.Context) bool {
	return mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
}

// schemaOf infers the JSON Schema of T with composition.InferSchema (slices typed
// "array", so list_tables advertises the natural
// {"type":"array","items":{"type":"string"}}). A nullable root (a Go pointer,
// ["null", T]) is expressed as {"anyOf":[{…T…},{"type":"null"}]} rather than
// a type array, because mcp-go's mcp.Tool (and so its client's ListTools)
// cannot decode a tool whose outputSchema root has a type array.
func schemaOf[T any]() (*jsonschema.Schema, error) {
	s, err := composition.InferSchema(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		inner := *s
		inner.Types, inner.Type = nil, s.Types[1]
		s = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{&inner, {Type: "null"}}}
	}
	return s, nil
}

// isPlainObject reports whether s is a plain "type":"object" schema: not
// nullable and not a union. No SDK wraps results of such a schema.
func isPlainObject(s *jsonschema.Schema) bool {
	return s.Type == "object" && len(s.Types) == 0 &&
		len(s.AnyOf) == 0 && len(s.OneOf) == 0 && len(s.AllOf) == 0
}

// wrap returns the envelope schema {"type":"object","properties":{"result":s},
// "required":["result"]}. The schemas that schemaOf infers have no $ref, so
// nothing needs re-pointing under #/properties/result.
func wrap(s *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:          "object",
		Properties:    map[string]*jsonschema.Schema{"result": s},
		PropertyOrder: []string{"result"},
		Required:      []string{"result"},
	}
}

// envelope is the legacy-era structuredContent of a wrapped tool.
type envelope struct {
	Result any `json:"result"`
}

// toolDef is a tool, its handler, and its legacy-era output schema.
type toolDef struct {
	tool    mcp.Tool
	handler server.ToolHandlerFunc
	// legacyOutput is the wrapped output schema advertised before
	// 2026-07-28, or nil when the natural schema is a plain object.
	legacyOutput json.RawMessage
}

// newTool builds a tool whose input schema is inferred from Args and whose
// output schema from Out, and a handler that decodes Args (numbers kept
// exact), runs run, and answers in the request's era. An error from run
// becomes a result with isError: true carrying the error's text.
func newTool[Args, Out any](name string, run func(context.Context, Args) (Out, error), opts ...mcp.ToolOption) (toolDef, error) {
	in, err := schemaOf[Args]()
	if err != nil {
		return toolDef{}, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	out, err := schemaOf[Out]()
	if err != nil {
		return toolDef{}, fmt.Errorf("tool %s: output schema: %w", name, err)
	}
	rawIn, err := json.Marshal(in)
	if err != nil {
		return toolDef{}, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	rawOut, err := json.Marshal(out)
	if err != nil {
		return toolDef{}, fmt.Errorf("tool %s: output schema: %w", name, err)
	}
	def := toolDef{}
	if !isPlainObject(out) {
		if def.legacyOutput, err = json.Marshal(wrap(out)); err != nil {
			return toolDef{}, fmt.Errorf("tool %s: wrapped output schema: %w", name, err)
		}
	}
	def.tool = mcp.NewTool(name, opts...)
	// Raw schemas keep every keyword and the fields' order; mcp.Tool
	// marshals a raw input schema only when the structured one is unset.
	def.tool.InputSchema = mcp.ToolInputSchema{}
	def.tool.RawInputSchema = rawIn
	def.tool.RawOutputSchema = rawOut
	wraps := def.legacyOutput != nil
	def.handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args Args
		if err := bindArgs(req, &args); err != nil {
			return mcp.NewToolResultErrorf("invalid arguments for %s: %v", name, err), nil
		}
		v, err := run(ctx, args)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		var structured any = v
		if wraps && !modernRequest(ctx) {
			structured = envelope{Result: v}
		}
		return structuredResult(structured)
	}
	return def, nil
}

// structuredResult is the tool result carrying v as structuredContent, and
// the same JSON as the text of a TextContent block (SEP-2106 requires the
// text for non-object values; it is sent for all).
//
// The JSON goes in RawStructuredContent, which mcp.CallToolResult marshals
// verbatim: that is how a null structuredContent is sent (StructuredContent
// is omitted when nil).
func structuredResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return &mcp.CallToolResult{
		Content:              []mcp.Content{mcp.NewTextContent(string(b))},
		StructuredContent:    json.RawMessage(b),
		RawStructuredContent: b,
	}, nil
}

// bindArgs decodes the call's arguments into args. Unlike
// mcp.CallToolRequest.BindArguments it keeps numbers in untyped values as
// json.Number, so integers bound into SQL stay integers.
func bindArgs(req mcp.CallToolRequest, args any) error {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return err
		}
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(args)
}

// eraToolFilter returns the server.ToolFilterFunc that gives legacy-era
// clients the wrapped output schemas in tools/list. mcp-go runs tool filters
// on the tools/list result of each request (and, with only the called tool,
// as an access check on tools/call, where a rewritten copy is harmless).
func eraToolFilter(legacyOutputs map[string]json.RawMessage) server.ToolFilterFunc {
	return func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		if modernRequest(ctx) {
			return tools
		}
		out := make([]mcp.Tool, len(tools))
		for i, t := range tools {
			if s, ok := legacyOutputs[t.Name]; ok {
				t.RawOutputSchema = s
			}
			out[i] = t
		}
		return out
	}
}
