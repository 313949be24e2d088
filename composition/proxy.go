package composition

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// A faithful proxy: the tools of a generated package forwarded to the
// downstream server they describe, so that a client cannot tell the proxy
// from the downstream (issue 18 item 7). The listing is Serve's (the tool
// objects as the bundle holds them, per era); the calls skip the typed
// handler: the client's arguments go out as sent once they match the
// inputSchema, and the downstream's answer comes back as sent.

// Forwarding makes [Serve] (and so a generated Register, or the generated
// Forward that calls it) list only the tools named (all of the package's
// when none is named) and answer each call by forwarding it to c, the
// downstream server the package was generated from (a [*Session], or
// [Registry.Server]: pinning, interceptors and reconnects apply as to any
// call through c; an interceptor sees the arguments as a json.RawMessage).
// The Handler given to Register is not called.
//
// A forwarded call:
//
//   - arguments: the client's JSON object is validated against the tool's
//     inputSchema (as [WithServerArgsValidation] does; a value that does not
//     match is refused with a tool error naming the JSON pointer, and
//     nothing is sent) and then sent as the client sent it: no default of
//     the bundle is filled in, no property is dropped, nothing is decoded
//     into a Go type;
//   - result: content blocks, structuredContent, isError and _meta as the
//     downstream sent them (the _meta keys MCP reserves dropped, as Serve
//     does; the bytes are not copied on the way out with [ServeStdio] and
//     [StreamableHTTPHandler]). When the downstream session and the client
//     are of different protocol eras, and generate decided the tool's
//     results are wrapped before 2026-07-28
//     ([ServedTool.WithLegacyOutputSchema]), structuredContent is unwrapped
//     from, or wrapped in, {"result": v} to be what the downstream sends a
//     client of the client's era (SEP-2106). The content blocks are left as
//     c's session got them: a downstream that writes its text block
//     differently per era (mcp-go servers serialise the envelope toward
//     clients before 2026-07-28) shows the client the text of c's era. A
//     tool that always wraps (Output.AlwaysWraps) is forwarded as sent in
//     every era;
//   - a JSON-RPC error of the downstream reaches the client as a JSON-RPC
//     error with the downstream's code, message and data when served by
//     [ServeStdio] or [StreamableHTTPHandler] (mcp-go answers a tool
//     handler's error with -32603: these put the downstream's code back as
//     they write the response); served by mcp-go's own transports, or
//     in process, it keeps the message and gets -32603;
//   - failures that are the proxy's (the downstream cannot be reached, its
//     session was lost, a pinned tool is blocked under [DigestFail], ctx
//     ended) are JSON-RPC errors -32603 in our words, the tool and the
//     class of failure only (a blocked tool: "it changed on the downstream
//     server since the bundle was exported, so it is not called"): no
//     executable name, URL, stderr or change details of the downstream.
//
// Nothing of the client's request but the tool name and the arguments
// reaches the downstream: c has its own transport and credentials, so the
// client's Authorization header (or any other) is never passed on (the MCP
// authorization specification forbids token passthrough).
func Forwarding(c Caller, tools ...string) ServerOption {
	return ServerOption{apply: func(cfg *serveConfig) {
		cfg.forward = &forwarding{to: c, only: tools}
	}}
}

// forwarding is what Forwarding sets.
type forwarding struct {
	to   Caller
	only []string // nil: every tool
}

// selectTools returns the tools the option forwards, in the order given to
// Serve; an unknown name is an error.
func (f *forwarding) selectTools(tools []ServedTool) ([]ServedTool, error) {
	if f.to == nil {
		return nil, errors.New("composition: Forwarding needs a Caller (the downstream server), got nil")
	}
	if len(f.only) == 0 {
		return tools, nil
	}
	wanted := map[string]bool{}
	for _, name := range f.only {
		wanted[name] = true
	}
	var out []ServedTool
	for _, st := range tools {
		if name := st.Tool().Name; wanted[name] {
			out = append(out, st)
			delete(wanted, name)
		}
	}
	for _, name := range f.only {
		if wanted[name] {
			return nil, fmt.Errorf("composition: Forwarding names the tool %q, which the package does not have", name)
		}
	}
	return out, nil
}

// handler returns the mcp-go handler that forwards calls of the tool l
// lists.
func (f *forwarding) handler(l listing) server.ToolHandlerFunc {
	// The arguments go out as the client's raw JSON: without Types, which
	// would encode them as an Args value, but with the schemas, for a
	// session's WithArgsValidation.
	tool := l.Tool()
	tool.Schemas, tool.Types = tool.SchemaDocs(), nil
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, err := requestArgs(req)
		if err == nil {
			err = tool.ValidateArgs(ctx, raw)
		}
		if err != nil {
			return mcp.NewToolResultError(bindimpl.ArgsErrorText(tool.Name, err)), nil
		}
		var res *Result
		err = f.to.Invoke(ctx, &tool, raw, &res)
		if te, ok := errors.AsType[*ToolError](err); ok && te.Result != nil {
			res, err = te.Result, nil
		}
		if err != nil {
			return nil, forwardedError(ctx, req, err)
		}
		out, err := plainResult(reEnvelope(res, tool.Output, l, legacyRequest(ctx)))
		if err != nil {
			return nil, err
		}
		if res.IsError {
			out.IsError = true
		}
		return holdResult(ctx, req, out)
	}
}

// reEnvelope returns res with its structuredContent as the downstream
// sends it to a client of the other era when the downstream session's era
// differs from the client's (clientLegacy) and l says the tool's results
// are wrapped before 2026-07-28; otherwise res.
func reEnvelope(res *Result, o bindimpl.Output, l listing, clientLegacy bool) *Result {
	if l.Listing.LegacyOutputSchema == nil || l.Listing.AlwaysWraps || len(res.StructuredContent) == 0 {
		return res
	}
	downstreamLegacy := res.version != "" && res.version < ModernProtocolVersion
	switch {
	case downstreamLegacy && !clientLegacy:
		if v, wrapped := bindimpl.Unwrap(res.version, o, res.StructuredContent); wrapped {
			out := *res
			out.StructuredContent = v
			return &out
		}
	case !downstreamLegacy && clientLegacy:
		out := *res
		out.StructuredContent = bindimpl.WrapResult(res.StructuredContent)
		return &out
	}
	return res
}

// forwardedError is the handler error for the forwarded call req that
// failed without a result: the downstream's JSON-RPC error as sent (its
// code set through the request's rpcErrorSlot, or held for the HTTP
// response, when the transport has one; not for a task-augmented call,
// whose error another request fetches), or our words for a failure of our
// own.
func forwardedError(ctx context.Context, req mcp.CallToolRequest, err error) error {
	tool := req.Params.Name
	if re, ok := errors.AsType[*mcpconn.RPCError](err); ok {
		d := mcp.NewJSONRPCErrorDetails(re.Code, re.Message, re.Data)
		if slot, ok := ctx.Value(rpcErrorKey{}).(*rpcErrorSlot); ok {
			slot.set(d)
		} else if h, ok := ctx.Value(heldKey{}).(*heldBytes); ok && req.Params.Task == nil {
			if placeholder, ok := h.holdRPCError(d); ok {
				return errors.New(placeholder)
			}
		}
		return errors.New(re.Message)
	}
	var what string
	switch tc, changed := errors.AsType[*ToolChangedError](err); {
	case changed && tc.Removed:
		what = "the downstream server no longer lists it, so it is not called (DigestFail)"
	case changed:
		what = "it changed on the downstream server since the bundle was exported, so it is not called (DigestFail)"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		what = "the call ended before the downstream server answered"
	case isType[*SessionLostError](err), isType[*CallLostError](err), errors.Is(err, ErrSessionLost):
		what = "the session with the downstream server was lost"
	case errors.Is(err, mcpconn.ErrSessionClosed), errors.Is(err, ErrRegistryClosed):
		what = "the session with the downstream server is closed"
	case isType[*ConnectError](err):
		what = "the downstream server cannot be reached"
	default:
		what = "the downstream server did not answer with a result"
	}
	return fmt.Errorf("composition: forwarding the tool %q: %s", tool, what)
}

// rpcErrorKey is the context key of a request's *rpcErrorSlot.
type rpcErrorKey struct{}

// rpcErrorSlot receives the JSON-RPC error a forwarded call's response
// should carry in place of mcp-go's -32603 (ServeStdio puts one in each
// request's context).
type rpcErrorSlot struct {
	mu      sync.Mutex
	details *mcp.JSONRPCErrorDetails
}

// set records d.
func (s *rpcErrorSlot) set(d mcp.JSONRPCErrorDetails) {
	s.mu.Lock()
	s.details = &d
	s.mu.Unlock()
}

// get returns what was recorded, or nil.
func (s *rpcErrorSlot) get() *mcp.JSONRPCErrorDetails {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.details
}

// forwardedErrorResponse returns resp with the error a forwarded call
// recorded in slot, when resp is that call's error response; otherwise
// resp.
func forwardedErrorResponse(resp mcp.JSONRPCMessage, slot *rpcErrorSlot) mcp.JSONRPCMessage {
	d := slot.get()
	if d == nil {
		return resp
	}
	e, ok := resp.(mcp.JSONRPCError)
	if !ok || e.Error.Message != d.Message {
		return resp
	}
	e.Error = *d
	return e
}

// isType reports whether err's chain holds an E.
func isType[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}
