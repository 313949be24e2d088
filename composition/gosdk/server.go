package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Server side: a package generated with `mcpbind generate --server --sdk
// go-sdk` has a Register(s *mcp.Server, h Handler, opts ...ServerOption)
// function that calls [Serve] with one bindimpl.ServedTool per tool. The
// tools are the same as composition.Serve's on mcp-go (bindimpl decodes and
// validates the arguments, runs the handler and encodes the result); this
// file only speaks go-sdk.

// ServerOption configures [Serve] (and so a generated Register).
type ServerOption struct {
	apply func(*bindimpl.ServeOptions)
}

// WithServerArgsValidation makes the served tools validate each call's
// arguments against the tool's inputSchema (JSON Schema 2020-12, with
// google/jsonschema-go) before decoding them; a value that does not match
// is refused as an argument that does not decode is (see [Serve]). Off by
// default: the generated Args types already enforce required and closed
// properties. It is composition.WithServerArgsValidation for go-sdk.
func WithServerArgsValidation() ServerOption {
	return ServerOption{apply: func(o *bindimpl.ServeOptions) { o.ValidateArgs = true }}
}

// WithServerResultValidation makes the served tools validate each natural
// result (before any envelope) against the tool's natural output schema;
// a value that does not match is sent as a tool error (isError: true)
// naming the JSON pointer. Off by default. It is
// composition.WithServerResultValidation for go-sdk.
func WithServerResultValidation() ServerOption {
	return ServerOption{apply: func(o *bindimpl.ServeOptions) { o.ValidateResults = true }}
}

// WithServerInterceptor adds i to every call of the tools served with this
// option, the first one added the outermost. It is
// composition.WithServerInterceptor for go-sdk.
func WithServerInterceptor(i bindimpl.ServerInterceptor) ServerOption {
	return ServerOption{apply: func(o *bindimpl.ServeOptions) {
		if i != nil {
			o.Interceptors = append(append([]bindimpl.ServerInterceptor(nil), o.Interceptors...), i)
		}
	}}
}

// ServerEvents makes s report the start and end of each of its client
// sessions to f (composition.EventSessionStart, and EventSessionEnd with
// the session's life in Duration). Call it once per server, before it
// serves.
//
// go-sdk has no session hooks: a receiving middleware (s.AddReceivingMiddleware)
// sees each session's first request (initialize, or any request of a
// 2026-07-28 session) and reports the start once that request is answered,
// with the negotiated protocol version in Event.Peer (initialize's result,
// or the version the request declares); the end is reported when the
// session's connection closes (mcp.ServerSession.Wait), with the time
// since its first request. A session of go-sdk's stateless Streamable HTTP
// lives for one request. Event.Peer's SessionID is the session's id ("" for
// stdio and in-memory sessions) and its Transport "streamable-http" for a
// session go-sdk's Streamable HTTP handler made, else "" (go-sdk does not
// tell its other transports apart); Event.Server is "".
func ServerEvents(s *mcp.Server, f func(ctx context.Context, e composition.Event)) {
	if f == nil {
		return
	}
	var mu sync.Mutex
	seen := map[*mcp.ServerSession]bool{}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if ss == nil {
				return next(ctx, method, req)
			}
			mu.Lock()
			first := !seen[ss]
			seen[ss] = true
			mu.Unlock()
			if !first {
				return next(ctx, method, req)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			peer := composition.Peer{SessionID: ss.ID()}
			if req.GetExtra() != nil {
				peer.Transport = composition.TransportStreamableHTTP
			}
			if r, ok := res.(*mcp.InitializeResult); ok && r != nil {
				peer.ProtocolVersion = r.ProtocolVersion
			} else if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
				peer.ProtocolVersion, _ = p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
			}
			ctx = context.WithoutCancel(ctx)
			f(ctx, composition.Event{Kind: composition.EventSessionStart, Peer: peer})
			go func() {
				_ = ss.Wait()
				mu.Lock()
				delete(seen, ss)
				mu.Unlock()
				f(ctx, composition.Event{Kind: composition.EventSessionEnd, Peer: peer, Duration: time.Since(start)})
			}()
			return res, err
		}
	})
}

// Serve adds tools to s, a go-sdk server, as a generated Register does,
// with the rules of composition.Serve on mcp-go:
//
//   - tools/list lists each tool object exactly as the bundle holds it
//     (every member, in order; go-sdk's mcp.Tool would drop the members it
//     does not model and add readOnlyHint and idempotentHint), with the
//     natural outputSchema toward requests of protocol version 2026-07-28
//     and later, and the legacy one a generated Register gives
//     (bindimpl.ServedTool.WithLegacyOutputSchema) toward earlier ones;
//   - tools/call decodes the arguments into the tool's Args type (go-sdk's
//     low-level AddTool validates nothing), runs the handler, and sends
//     its value as structuredContent and the same JSON in one text block,
//     as {"result": v} toward sessions before 2026-07-28 where the tool
//     has a legacy outputSchema (and in every era for a tool whose bundle
//     says it always wraps); arguments that do not decode, and a handler's
//     error, are answered with isError: true and the error's text; a
//     handler value of a tool without outputSchema (a *composition.Result)
//     is sent as it is.
//
// The era of a request is modern when its _meta carries
// "io.modelcontextprotocol/protocolVersion" (mcp.MetaKeyProtocolVersion)
// as a string at or after "2026-07-28", as go-sdk sends it on every
// request of a 2026-07-28 session; any other request, and every request
// of a session opened with initialize (which go-sdk never negotiates at
// 2026-07-28 or later), is legacy. (mcp.ServerRequest.ProtocolVersion is
// not used: for an initialize session it is the version the client asked
// for, not the one negotiated.)
//
// The listing per era is a receiving middleware on tools/list
// (s.AddReceivingMiddleware) that touches only the tools added here, told
// apart by the *mcp.Tool registered, so a tool of the same name that the
// program adds later with mcp.AddTool replaces it in both tools/list and
// tools/call. Serve fails, adding nothing, when a tool cannot be served: a
// declaration that failed, a tool object or legacy outputSchema that is
// not valid, an inputSchema whose "type" is not "object" (which go-sdk's
// AddTool would panic on), a name given twice, or anything else go-sdk's
// AddTool panics on, reported as an error.
func Serve(s *mcp.Server, tools []bindimpl.ServedTool, opts ...ServerOption) (err error) {
	var checks bindimpl.ServeOptions
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&checks)
		}
	}
	type entry struct {
		tool *mcp.Tool
		h    mcp.ToolHandler
	}
	entries := make([]entry, 0, len(tools))
	listed := make(map[*mcp.Tool]bindimpl.Listing, len(tools))
	names := make(map[string]bool, len(tools))
	for _, st := range tools {
		p, err := st.Prepare()
		if err != nil {
			return err
		}
		l := p.Listing
		if names[l.Name] {
			return fmt.Errorf("gosdk: serving tool %q: the tool is named twice", l.Name)
		}
		names[l.Name] = true
		if err := objectSchema(l); err != nil {
			return err
		}
		t := &mcp.Tool{Name: l.Name, InputSchema: l.InputSchema}
		if l.OutputSchema != nil {
			t.OutputSchema = l.OutputSchema
		}
		listed[t] = l
		entries = append(entries, entry{tool: t, h: handler(p, checks)})
	}
	added := make([]string, 0, len(entries))
	defer func() {
		if p := recover(); p != nil {
			s.RemoveTools(added...)
			err = fmt.Errorf("gosdk: go-sdk refused the tools: %s", textsafe.Escape(fmt.Sprint(p)))
		}
	}()
	for _, e := range entries {
		s.AddTool(e.tool, e.h)
		added = append(added, e.tool.Name)
	}
	if len(listed) > 0 {
		s.AddReceivingMiddleware(listingMiddleware(listed))
	}
	return nil
}

// objectSchema refuses a tool whose inputSchema's "type" is not exactly
// "object": go-sdk's AddTool panics on it (MCP requires an object schema).
func objectSchema(l bindimpl.Listing) error {
	var in struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(l.InputSchema, &in); err != nil {
		return fmt.Errorf("gosdk: serving tool %q: its inputSchema is not a JSON object: %v", l.Name, err)
	}
	if in.Type != "object" {
		return fmt.Errorf(`gosdk: serving tool %q: its inputSchema's "type" is %s, not "object" (go-sdk serves only object inputSchemas)`, l.Name, jsonText(in.Type))
	}
	return nil
}

// jsonText is v as JSON for an error message: strings quoted, and control,
// bidirectional and line-breaking characters escaped (textsafe), so the
// bundle's text cannot rewrite the message's line.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "(not JSON)"
	}
	return textsafe.Escape(string(b))
}

// legacyMeta reports whether a request whose params carry meta (its _meta)
// uses a protocol version before 2026-07-28: true unless meta names a
// version at or after it (see [Serve]).
func legacyMeta(meta mcp.Meta) bool {
	v, _ := meta[mcp.MetaKeyProtocolVersion].(string) // "" when absent or not a string: legacy
	return v < bindimpl.ModernProtocolVersion
}

// handler returns the go-sdk handler of the prepared tool p.
func handler(p *bindimpl.Prepared, checks bindimpl.ServeOptions) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		legacy := true
		if req.Params != nil {
			raw, legacy = req.Params.Arguments, legacyMeta(req.Params.Meta)
		}
		a, err := p.Answer(ctx, (*incoming)(req), raw, legacy, checks)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return callResult(a)
	}
}

// incoming is a tools/call request as the [bindimpl.CallSource] of its
// [composition.ServerCall]:
//
//   - Meta is params._meta, each value as go-sdk decoded it, encoded again
//     (so numbers keep go-sdk's float64 precision);
//   - ProtocolVersion is the one a 2026-07-28 request declares, else the
//     one the client asked for in initialize (go-sdk keeps the negotiated
//     version to itself; the two differ only when the server does not
//     support the client's);
//   - SessionID is the session's id (Mcp-Session-Id over Streamable HTTP;
//     "" over stdio, in-memory and SSE transports, which go-sdk gives none);
//   - RequestID is always "": go-sdk keeps the JSON-RPC id under a context
//     key of its own, which neither a handler nor a middleware can read;
//   - Transport is "streamable-http" for a request go-sdk's Streamable
//     HTTP handler received (it alone sets the request's Extra), else ""
//     (go-sdk does not tell stdio, in-memory and SSE sessions apart).
type incoming mcp.CallToolRequest

// ServerCall returns the call's [composition.ServerCall].
func (r *incoming) ServerCall(context.Context) bindimpl.ServerCall {
	req := (*mcp.CallToolRequest)(r)
	call := bindimpl.ServerCall{ProtocolVersion: req.ProtocolVersion()}
	if req.Params != nil {
		call.Tool, call.Meta = req.Params.Name, meta(req.Params.Meta)
	}
	if req.Session != nil {
		call.SessionID = req.Session.ID()
	}
	if req.Extra != nil {
		call.Transport = composition.TransportStreamableHTTP
	}
	return call
}

// meta returns a request's _meta key by key as JSON; nil when it has none.
// A value that does not encode (go-sdk decoded it from JSON, so none) is
// left out.
func meta(m mcp.Meta) bindimpl.Meta {
	if m == nil {
		return nil
	}
	out := make(bindimpl.Meta, len(m))
	for k, v := range m {
		if b, err := json.Marshal(v); err == nil {
			out[k] = b
		}
	}
	return out
}

// callResult converts a served tool's answer into go-sdk's result: the
// natural JSON as structuredContent (a json.RawMessage, sent as it is) and
// one text block; a plain result's blocks as the bytes it holds (rawBlock).
func callResult(a bindimpl.Answer) (*mcp.CallToolResult, error) {
	out := &mcp.CallToolResult{IsError: a.IsError}
	if a.Structured != nil {
		out.StructuredContent = a.Structured
	}
	if a.Blocks == nil {
		out.Content = []mcp.Content{&mcp.TextContent{Text: a.Text}}
	} else {
		out.Content = make([]mcp.Content, len(a.Blocks))
		for i, b := range a.Blocks {
			out.Content[i] = rawBlock{raw: b}
		}
	}
	if a.Meta != nil {
		if err := json.Unmarshal(a.Meta, &out.Meta); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("gosdk: encoding the handler's result: _meta: %v", err)}
		}
	}
	return out, nil
}

// rawBlock is a content block sent as the bytes it holds. It embeds
// *mcp.TextContent only to be an mcp.Content (whose method set go-sdk
// seals); MarshalJSON writes raw, and go-sdk only marshals a server's
// result.
type rawBlock struct {
	*mcp.TextContent
	raw json.RawMessage
}

// MarshalJSON returns the block as held.
func (b rawBlock) MarshalJSON() ([]byte, error) { return b.raw, nil }
