package bindimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// The SDK-neutral core of a served tool (mcpbind generate --server): a
// generated Register lists each tool with [Handle] or [HandleNoArgs], and an
// SDK binding (composition.Serve on mcp-go, gosdk.Serve on the official Go
// SDK) prepares each [ServedTool] once ([ServedTool.Prepare]), lists its
// tool object per era ([Prepared]) and answers each call with
// [Prepared.Answer], turning the neutral [Answer] into its SDK's result.
// Nothing here imports an MCP SDK.

// ServedTool is one tool a generated Register serves: the tool's
// descriptor, its tool object as exported and the handler that answers it.
// Make one with [Handle], [HandleNoArgs] or [ServeRaw].
type ServedTool struct {
	tool     Tool
	toolJSON string
	// legacyOutput is the outputSchema listed toward sessions before
	// 2026-07-28 ("" when the tool is listed alike in both eras).
	legacyOutput string
	// run decodes the arguments (raw JSON, "{}" when absent) and calls the
	// handler; it returns the handler's value (a natural result, or a
	// [PlainResult] for a tool without outputSchema), or an *ArgsError.
	run func(ctx context.Context, args json.RawMessage) (any, error)
	// err is why the tool cannot be served; Prepare reports it.
	err error
}

// Handle serves the tool described by tool, whose tools/list object is
// toolJSON (the tool exactly as the bundle holds it), with f: arguments are
// decoded into an A with tool.Types (required and closed properties, exact
// names, defaults), f's value is sent as the result. Generated Register
// functions call it with a Handler method value: Handle(toolQuery, "…",
// h.Query).
func Handle[A, R any](tool Tool, toolJSON string, f func(context.Context, A) (R, error)) ServedTool {
	return ServedTool{tool: tool, toolJSON: toolJSON, run: func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args A
		if err := tool.DecodeArgs(raw, &args); err != nil {
			return nil, err
		}
		return f(ctx, args)
	}}
}

// HandleNoArgs is Handle for a tool without input properties, whose
// handler method takes no arguments (as the generated client's method
// sends none). Arguments a client sends anyway are ignored unless the
// binding's args validation rejects them.
func HandleNoArgs[R any](tool Tool, toolJSON string, f func(context.Context) (R, error)) ServedTool {
	return ServedTool{tool: tool, toolJSON: toolJSON, run: func(ctx context.Context, _ json.RawMessage) (any, error) {
		return f(ctx)
	}}
}

// ServeRaw serves tool (tool object toolJSON) with run, which gets the
// call's raw arguments ({} when absent or null) and returns the value to
// send as Handle's f does, or an error (an *ArgsError for refused
// arguments). A non-nil err makes the tool unservable: [ServedTool.Prepare]
// returns err (a declaration that failed, such as composition.NewTool's).
func ServeRaw(tool Tool, toolJSON string, run func(ctx context.Context, args json.RawMessage) (any, error), err error) ServedTool {
	return ServedTool{tool: tool, toolJSON: toolJSON, run: run, err: err}
}

// WithLegacyOutputSchema returns st listed with outputSchema (JSON text)
// toward sessions before protocol version 2026-07-28, and answering them
// {"result": v} (SEP-2106; DESIGN §8): generate decides it, for a tool
// whose natural output schema root is not a plain "type":"object" schema
// (the envelope the bundle holds, or one built around the natural schema
// with its $refs re-pointed under #/properties/result), and a generated
// Register passes it here, so the runtime never decides it again. Without
// it a tool is listed and answered alike in both eras.
func (st ServedTool) WithLegacyOutputSchema(outputSchema string) ServedTool {
	st.legacyOutput = outputSchema
	return st
}

// Tool returns st's descriptor.
func (st ServedTool) Tool() Tool { return st.tool }

// ServeOptions are the checks a binding's server options turn on.
type ServeOptions struct {
	// ValidateArgs validates each call's arguments against the tool's
	// inputSchema before decoding them.
	ValidateArgs bool
	// ValidateResults validates each natural result (before any envelope)
	// against the tool's natural output schema before sending it.
	ValidateResults bool
	// Interceptors wrap every call, the first the outermost
	// ([ServerInterceptor]).
	Interceptors []ServerInterceptor
}

// Answer is a served tool's answer to one call, in no SDK's types: what a
// binding turns into its SDK's tools/call result.
type Answer struct {
	// Blocks are the content blocks, each one JSON object as sent (valid
	// JSON and UTF-8), for a [PlainResult]; nil means one text block whose
	// text is Text. A non-nil empty Blocks is no content at all.
	Blocks []json.RawMessage
	// Text is the text of the one text block when Blocks is nil: the
	// JSON of the result (its text mirror), or an error's text.
	Text string
	// Structured is structuredContent as JSON; nil when absent.
	Structured json.RawMessage
	// IsError is the result's isError flag.
	IsError bool
	// Meta is the result's _meta object as JSON; nil when absent.
	Meta json.RawMessage
}

// ErrorAnswer is the isError answer whose one text block is text.
func ErrorAnswer(text string) Answer { return Answer{Text: text, IsError: true} }

// PlainResult is a handler value sent as the whole result, as it is: the
// value of a tool without outputSchema. composition's *Result implements
// it.
type PlainResult interface {
	// PlainAnswer returns the value as an Answer, or why it cannot be
	// sent (a block or structuredContent that is not JSON).
	PlainAnswer() (Answer, error)
}

// ErrorResult is an error a handler returns that carries the result to
// answer with: composition's *ToolError implements it.
type ErrorResult interface {
	error
	// ErrorAnswer returns the isError answer for the error.
	ErrorAnswer() Answer
}

// Prepare checks st and builds its listings; the binding calls it once per
// tool when registering. It fails when the tool cannot be served (its
// declaration failed, its tool object or legacy outputSchema is not valid,
// a schema it refers to is missing).
func (st ServedTool) Prepare() (*Prepared, error) {
	if st.err != nil {
		return nil, st.err
	}
	l, err := st.listing()
	if err != nil {
		return nil, err
	}
	return &Prepared{Listing: l, st: st}, nil
}

// Prepared is a [ServedTool] checked and ready to list and answer.
type Prepared struct {
	// Listing is how the tool is listed in each era.
	Listing Listing
	st      ServedTool
}

// Tool returns the served tool's descriptor.
func (p *Prepared) Tool() Tool { return p.st.tool }

// Wraps reports whether a result is sent as {"result": v} in a request of
// the given era (legacy: a protocol version before 2026-07-28): always for
// a tool that always wraps, and before 2026-07-28 for one with a legacy
// outputSchema.
func (p *Prepared) Wraps(legacy bool) bool {
	return p.Listing.AlwaysWraps || (p.Listing.LegacyOutputSchema != nil && legacy)
}

// Answer answers one call: raw are the call's arguments as sent (absent or
// null count as {}), legacy tells the request's era (a protocol version
// before 2026-07-28). Arguments that do not decode (or, with
// o.ValidateArgs, do not match the inputSchema) are answered with an
// isError text naming the tool and the JSON pointer (ArgsErrorText); the
// handler's error with isError and the error's text (an [ErrorResult]'s
// own answer); a [PlainResult] as it is, for a tool without outputSchema;
// any other value as structuredContent plus the same JSON as the text
// block, wrapped as {"result": v} where [Prepared.Wraps] says so. The
// error is only for an answer that cannot be sent at all (a PlainResult
// whose blocks are not JSON): a binding answers it as a protocol error.
//
// The call runs through o.Interceptors (the first the outermost) with the
// [ServerCall] src makes, and the handler's ctx carries the call for
// [IncomingCall]; without interceptors src is only put in ctx, and makes
// the ServerCall if the handler asks. A nil src means ctx already carries
// the call and it is not intercepted here (an outer chain, such as
// composition.ToolMiddleware's, ran the interceptors).
func (p *Prepared) Answer(ctx context.Context, src CallSource, raw json.RawMessage, legacy bool, o ServeOptions) (Answer, error) {
	switch {
	case src == nil:
		return p.answer(ctx, raw, legacy, o)
	case len(o.Interceptors) == 0:
		return p.answer(WithCallSource(ctx, src), raw, legacy, o)
	}
	call := src.ServerCall(ctx)
	call.Args = raw
	return Intercept(ctx, call, o.Interceptors, func(ctx context.Context, _ ServerCall) (Answer, error) {
		return p.answer(ctx, raw, legacy, o)
	})
}

// answer is Answer without the interceptors.
func (p *Prepared) answer(ctx context.Context, raw json.RawMessage, legacy bool, o ServeOptions) (Answer, error) {
	tool := p.st.tool
	raw = argsObject(raw)
	if o.ValidateArgs {
		if err := tool.ValidateArgs(ctx, raw); err != nil {
			return ErrorAnswer(ArgsErrorText(tool.Name, err)), nil
		}
	}
	v, err := p.st.run(ctx, raw)
	if err != nil {
		if ae, ok := errors.AsType[*ArgsError](err); ok {
			return ErrorAnswer(ArgsErrorText(tool.Name, ae)), nil
		}
		if er, ok := errors.AsType[ErrorResult](err); ok {
			return er.ErrorAnswer(), nil
		}
		return ErrorAnswer(err.Error()), nil
	}
	if tool.OutputDoc == "" {
		if r, ok := v.(PlainResult); ok {
			return r.PlainAnswer()
		}
	}
	value, err := tool.EncodeResult(v)
	if err == nil && o.ValidateResults {
		err = tool.ValidateResult(ctx, value)
	}
	if err != nil {
		return ErrorAnswer(fmt.Sprintf("tool %q: %v", tool.Name, err)), nil
	}
	if p.Wraps(legacy) {
		value = WrapResult(value)
	}
	return Answer{Text: string(value), Structured: value}, nil
}

// argsObject returns a call's arguments as raw JSON ({} when absent or
// null).
func argsObject(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`)
	}
	return raw
}
