package composition

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// Server side of a generated package (mcpbind generate --server): the
// generated Register function lists the bundle's tools on an mcp-go server
// and answers them through a generated Handler interface. The code here does
// the work, so each generated tool is one line: [bindimpl.Handle] or [bindimpl.HandleNoArgs]
// with the tool's descriptor, its tool object as exported, and the handler
// method.

// ServedTool is one tool a generated Register adds to an mcp-go server: the
// tool object as exported and the handler method that answers it. Make one
// with [bindimpl.Handle] or [bindimpl.HandleNoArgs]; [Serve] registers them. It is
// bindimpl's, shared with the go-sdk binding (composition/gosdk).
type ServedTool = bindimpl.ServedTool

// ServerOption configures [Serve] (and so a generated Register).
type ServerOption struct {
	apply func(*serveConfig)
}

// serveConfig is what the ServerOptions set.
type serveConfig struct {
	checks bindimpl.ServeOptions
	// forward, when set, answers the tools by forwarding (see Forwarding).
	forward *forwarding
}

// WithServerArgsValidation makes the served tools validate each call's
// arguments against the tool's inputSchema before decoding them; a value
// that does not match is refused like an argument that does not decode
// (see [Serve]). Validation honours the request's context, and its
// "pattern" matches share the budget [DefaultPatternBudget]. Off by
// default: the Args types already enforce required and closed properties.
// It is the server-side counterpart of [WithArgsValidation].
func WithServerArgsValidation() ServerOption {
	return ServerOption{apply: func(c *serveConfig) { c.checks.ValidateArgs = true }}
}

// WithServerResultValidation makes the served tools validate each natural
// result (before any envelope) against the tool's natural output schema
// before sending it; a handler value that does not match is sent as a
// tool error (isError: true) naming the JSON pointer, so a handler cannot
// break the contract silently. Off by default.
func WithServerResultValidation() ServerOption {
	return ServerOption{apply: func(c *serveConfig) { c.checks.ValidateResults = true }}
}

// ServerCall describes one tools/call request a served tool answers, to a
// [ServerInterceptor] and, through [IncomingCall], to the tool's handler.
type ServerCall = bindimpl.ServerCall

// Answer is a served tool's answer to one call, as a [ServerInterceptor]
// sees it: IsError is the result's isError flag.
type Answer = bindimpl.Answer

// ServerHandler answers a served call: the next [ServerInterceptor], or the
// served tool itself.
type ServerHandler = bindimpl.ServerHandler

// ServerInterceptor wraps every tools/call a served tool answers (tools
// served by [Serve], a generated Register, own tools), like a gRPC unary
// server interceptor; composition/otelmcp's server spans are one.
type ServerInterceptor = bindimpl.ServerInterceptor

// WithServerInterceptor adds i to every call of the tools served with this
// option (generated, own and forwarded tools). Interceptors run in the
// order given, the first one added the outermost; the handler's ctx
// carries the [ServerCall] the last one passed on ([IncomingCall]). Serve
// given an interceptor adds a BeforeCallTool hook to the server's mcp-go
// hooks (keeping the program's), the one way to learn a request's JSON-RPC
// id (ServerCall.RequestID). On a server that also has [ToolMiddleware],
// the middleware's interceptors run instead of these.
func WithServerInterceptor(i ServerInterceptor) ServerOption {
	return ServerOption{apply: func(c *serveConfig) {
		if i != nil {
			c.checks.Interceptors = append(append([]ServerInterceptor(nil), c.checks.Interceptors...), i)
		}
	}}
}

// IncomingCall returns the tools/call request that ctx's served-tool
// handler (or server interceptor) is answering, and whether there is one:
// its tool, _meta, protocol version, session and request ids.
func IncomingCall(ctx context.Context) (ServerCall, bool) { return bindimpl.IncomingCall(ctx) }

// RequestMeta returns the params._meta of the tools/call request that
// ctx's served-tool handler is answering, as the client sent it; nil when
// there is none. It is read-only.
func RequestMeta(ctx context.Context) Meta {
	c, _ := bindimpl.IncomingCall(ctx)
	return c.Meta
}

// Serve adds tools to s, as a generated Register does. Each tool is listed
// with its tool object exactly as exported (name, title, description,
// annotations, _meta, icons, execution, inputSchema and outputSchema as
// mcp-go's mcp.Tool carries them; top-level members mcp.Tool does not model
// are not sent, and "annotations" is always sent, {} when the tool object
// has none), in the era of each request (the protocol version of a
// 2026-07-28 request, or the one the session negotiated:
// server.RequestProtocolVersion):
//
//   - toward 2026-07-28 and later: the tool object's outputSchema (for a
//     generated server, the natural one: generate takes the inner schema
//     out of an envelope the bundle recorded), and results as their
//     natural JSON value, whatever it is (SEP-2106);
//   - toward earlier versions, for a tool given a legacy outputSchema
//     ([ServedTool.WithLegacyOutputSchema]; generate gives one to every
//     tool whose natural output schema root is not a plain "type":"object"
//     schema): that envelope
//     {"type":"object","properties":{"result":S},"required":["result"]},
//     and results as {"result": v} — what TypeScript SDK v2 servers do,
//     since those versions require an object outputSchema and
//     structuredContent;
//   - a tool the bundle says always wraps (Output.AlwaysWraps) is listed
//     and answered wrapped in every version.
//
// A result is sent as structuredContent and as the same JSON in one text
// block (a nil pointer, slice or map as null). A tool without outputSchema sends the handler's *Result as it is.
// An error from the handler becomes a result with isError: true whose text
// is the error's text (a *ToolError's Text, or its whole Result when it
// carries one).
//
// Arguments that do not decode into the tool's Args type (or, with
// [WithServerArgsValidation], do not match its inputSchema) get a result
// with isError: true whose text names the tool and the JSON pointer (RFC
// 6901) of the offending value: protocol version 2025-11-25 reports input
// validation errors as tool execution errors (SEP-1303), and mcp-go answers
// every handler error with -32603, so a -32602 error is not available to a
// tool handler.
//
// The era rewrite of tools/list is a server.ToolFilterFunc added to s; it
// touches only the tools passed here. Serve fails, adding nothing, when a
// tool object or a legacy outputSchema is not valid, or a tool's name is
// already served by s (or named twice in tools); it
// reports mcp-go's refusal of a tool (a name taken by a task tool, bad
// x-mcp-header annotations) as an error instead of a panic.
func Serve(s *server.MCPServer, tools []ServedTool, opts ...ServerOption) (err error) {
	var cfg serveConfig
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&cfg)
		}
	}
	if cfg.forward != nil {
		if tools, err = cfg.forward.selectTools(tools); err != nil {
			return err
		}
	}
	entries := make([]server.ServerTool, 0, len(tools))
	legacy := map[string]json.RawMessage{}
	for _, st := range tools {
		l, err := newListing(st)
		if err != nil {
			return err
		}
		if err := checkNewName(s, l.tool.Name, entries); err != nil {
			return err
		}
		if l.Listing.LegacyOutputSchema != nil {
			legacy[l.tool.Name] = l.Listing.LegacyOutputSchema
		}
		h := l.handler(cfg)
		if cfg.forward != nil {
			h = cfg.forward.handler(l)
			if len(cfg.checks.Interceptors) > 0 {
				h = intercepted(cfg.checks.Interceptors, h)
			}
		}
		entries = append(entries, server.ServerTool{Tool: l.tool, Handler: h})
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("composition: mcp-go refused the tools: %v", p)
		}
	}()
	s.AddTools(entries...)
	if len(cfg.checks.Interceptors) > 0 {
		serverHooks(s).AddBeforeCallTool(passRequestID)
	}
	if len(legacy) > 0 {
		server.WithToolFilter(legacyListing(legacy))(s)
	}
	return nil
}

// checkNewName refuses a tool name that s already serves, or that an
// earlier entry of the same Serve call has: mcp-go's AddTools would replace
// the first tool silently, while the first Serve's era filter would still
// list that name with its own legacy outputSchema.
func checkNewName(s *server.MCPServer, name string, entries []server.ServerTool) error {
	taken := s.GetTool(name) != nil
	for _, e := range entries {
		taken = taken || e.Tool.Name == name
	}
	if taken {
		return fmt.Errorf("composition: serving tool %q: the server already has a tool of that name (served twice, by two Serve, Register or Forward calls or twice in one)", name)
	}
	return nil
}

// legacyListing returns the tool filter that lists the wrapped output
// schemas to requests before 2026-07-28.
func legacyListing(legacy map[string]json.RawMessage) server.ToolFilterFunc {
	return func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		if !legacyRequest(ctx) {
			return tools
		}
		out := make([]mcp.Tool, len(tools))
		for i, t := range tools {
			if s, ok := legacy[t.Name]; ok {
				t.RawOutputSchema = s
			}
			out[i] = t
		}
		return out
	}
}

// legacyRequest reports whether the request being handled uses a protocol
// version before 2026-07-28: the version a 2026-07-28 request declares in
// its _meta, or else the one its session negotiated through initialize
// (server.RequestProtocolVersion); "" counts as legacy.
func legacyRequest(ctx context.Context) bool {
	return server.RequestProtocolVersion(ctx) < ModernProtocolVersion
}

// handler returns the mcp-go handler of the tool l lists.
func (l listing) handler(cfg serveConfig) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, err := requestArgs(req)
		if err != nil {
			return mcp.NewToolResultError(bindimpl.ArgsErrorText(l.tool.Name, err)), nil
		}
		var src bindimpl.CallSource
		run := claim(ctx, &req)
		switch {
		case run != nil: // ToolMiddleware's chain runs the interceptors; ctx carries the call
		case len(cfg.checks.Interceptors) > 0:
			src = requestOf(&req)
		default:
			ctx = &incomingCtx{Context: ctx, incoming: requestOf(&req)}
		}
		a, err := l.Answer(ctx, src, raw, legacyRequest(ctx), cfg.checks)
		if err != nil {
			return nil, err
		}
		if run != nil {
			run.answer, run.answered = a, true
		}
		res, err := answerResult(a)
		if err != nil || a.Blocks == nil {
			return res, err // nothing held: no raw bytes
		}
		return holdResult(ctx, req, res)
	}
}

// answerResult converts a served tool's answer into mcp-go's result: a
// natural result's JSON as structuredContent (kept raw) and the text block;
// a plain result's blocks and structuredContent as the bytes received
// (rawContent), not marshalled and parsed again, so a large result is not
// copied here.
func answerResult(a bindimpl.Answer) (*mcp.CallToolResult, error) {
	if a.Blocks == nil {
		out := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(a.Text)}, IsError: a.IsError}
		if a.Structured != nil {
			out.StructuredContent, out.RawStructuredContent = a.Structured, a.Structured
		}
		return out, nil
	}
	out := &mcp.CallToolResult{Content: make([]mcp.Content, len(a.Blocks)), IsError: a.IsError, RawStructuredContent: a.Structured}
	for i, b := range a.Blocks {
		out.Content[i] = rawContent{raw: b}
	}
	if a.Meta != nil {
		var m mcp.Meta
		if err := json.Unmarshal(a.Meta, &m); err != nil {
			return nil, fmt.Errorf("composition: encoding the handler's result: _meta: %w", err)
		}
		out.Meta = &m
	}
	return out, nil
}

// requestArgs returns the call's arguments as raw JSON ({} when absent or
// null).
func requestArgs(req mcp.CallToolRequest) (json.RawMessage, error) {
	raw := req.Params.RawArguments
	if len(raw) == 0 && req.Params.Arguments != nil {
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return nil, err
		}
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), nil
	}
	return raw, nil
}

// plainResult converts a *Result (a tool without outputSchema, or a
// *ToolError's, or a forwarded one) into mcp-go's result (see
// [Result.PlainAnswer]).
func plainResult(r *Result) (*mcp.CallToolResult, error) {
	a, err := r.PlainAnswer()
	if err != nil {
		return nil, err
	}
	return answerResult(a)
}

// PlainAnswer is r as a served tool's whole answer (bindimpl.PlainResult):
// a handler of a tool without outputSchema returns a *Result, which is sent
// with its content blocks and structuredContent as the bytes it holds (made
// valid UTF-8), and its _meta without the keys MCP reserves (a Result that
// a proxy got from its own downstream session carries that session's
// protocol facts, which are not the tool's to forward). A nil r is a result
// without content. It fails when a block or structuredContent is not
// valid JSON. Served tools call it; a program has no need to.
func (r *Result) PlainAnswer() (bindimpl.Answer, error) {
	if r == nil {
		return bindimpl.Answer{Blocks: []json.RawMessage{}}, nil
	}
	a := bindimpl.Answer{Blocks: make([]json.RawMessage, len(r.Content)), IsError: r.IsError}
	for i, c := range r.Content {
		raw := c.Raw
		if len(raw) == 0 {
			b, err := c.MarshalJSON()
			if err != nil {
				return bindimpl.Answer{}, fmt.Errorf("composition: encoding the handler's result: %w", err)
			}
			raw = b
		}
		if !json.Valid(raw) {
			return bindimpl.Answer{}, fmt.Errorf("composition: encoding the handler's result: content block %d is not valid JSON", i)
		}
		a.Blocks[i] = rawjson.ValidUTF8(raw)
	}
	if r.StructuredContent != nil {
		if !json.Valid(r.StructuredContent) {
			return bindimpl.Answer{}, errors.New("composition: encoding the handler's result: structuredContent is not valid JSON")
		}
		a.Structured = rawjson.ValidUTF8(r.StructuredContent)
	}
	if meta := withoutReservedMeta(r.Meta); meta != nil {
		a.Meta = rawjson.ValidUTF8(meta)
	}
	return a, nil
}

// rawContent is a content block forwarded as the bytes received. It embeds
// mcp.TextContent only to be an mcp.Content; MarshalJSON writes raw.
type rawContent struct {
	mcp.TextContent
	raw json.RawMessage
}

// MarshalJSON returns the block as received.
func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }

// ErrorAnswer is the answer a served tool sends when its handler returns
// e (bindimpl.ErrorResult): e.Result with isError: true when e carries a
// Result that can be sent, else one text block e.Text. Served tools call
// it; a program has no need to.
func (e *ToolError) ErrorAnswer() bindimpl.Answer {
	if e.Result != nil {
		if a, err := e.Result.PlainAnswer(); err == nil {
			a.IsError = true
			return a
		}
	}
	return bindimpl.ErrorAnswer(e.Text)
}

// withoutReservedMeta returns the _meta object meta without the keys MCP
// reserves for itself (a prefix with a label "modelcontextprotocol" or
// "mcp", such as "io.modelcontextprotocol/serverInfo": the spec's _meta
// rules, basic/index "General fields"); nil when nothing is left. A _meta
// that is not a JSON object is dropped.
func withoutReservedMeta(meta json.RawMessage) json.RawMessage {
	if len(meta) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(meta, &m); err != nil {
		return nil
	}
	for k := range m {
		if reservedMetaKey(k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// reservedMetaKey reports whether a _meta key has a prefix (the part before
// the last "/") one of whose dot-separated labels is "modelcontextprotocol"
// or "mcp".
func reservedMetaKey(key string) bool {
	i := strings.LastIndex(key, "/")
	if i < 0 {
		return false
	}
	for _, label := range strings.Split(key[:i], ".") {
		if label == "modelcontextprotocol" || label == "mcp" {
			return true
		}
	}
	return false
}
