package composition

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
	"github.com/mcpbind/mcpbind/internal/rawjson"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// This file is the one tools/call pipeline of a Session, in the order a call
// takes (as grpc-go keeps its unary call in one call.go):
//
//	Invoke / CallResult
//	  intercept        interceptors and the logger wrap steps 1-5 (observe.go)
//	  1. encodeArgs     the arguments, encoded once to bytes
//	  2. checkArgs      those bytes against the inputSchema (WithArgsValidation)
//	  3. checkPin       the tool's pin (DigestFail, pin.go)
//	  4. roundTrip      those bytes sent as they are; the result parsed
//	  5. isError        a *ToolError
//	  6. Unwrap         the {"result": v} envelope, by the negotiated version
//	  7. checkResult    the natural value (WithResultValidation)
//	  8. tool.Decode    decoded once into out

// Caller calls tools for a generated Client: a *[Session], or the binding
// of a server in a [Registry] ([Registry.Server]), which connects on first
// use and reconnects a lost session. Its method set is that of
// bindimpl.Invoker, the interface generated code calls through, as gRPC's
// generated code calls grpc.ClientConnInterface.Invoke. A test may pass its
// own implementation to a generated NewClient.
type Caller interface {
	// Invoke calls tool with args (a value that encodes as a JSON object,
	// or nil for {}) and decodes the tool's natural result into out: a
	// pointer to the result's Go type, a **[Result] to receive the result
	// as sent (no envelope rule, no result validation), or nil to discard
	// it. isError: true is a *[ToolError], and out is left as it was, as
	// with any error before decoding; a result that does not decode may
	// leave part of a value in out. tool is read, never modified.
	Invoke(ctx context.Context, tool *bindimpl.Tool, args any, out any) error
}

// DefaultPatternBudget is how long all the "pattern" matches of one
// validation ([WithArgsValidation], [WithResultValidation], a served tool's
// argument validation) may take together. A hostile pattern such as
// ^(a+)+$ against a long near-match backtracks for a very long time; a
// validation whose matches exceed the budget fails with an error wrapping
// [ErrPatternBudget] (the value is not taken as valid). Ordinary patterns
// take microseconds.
const DefaultPatternBudget = bindimpl.DefaultPatternBudget

// ErrPatternBudget is in the chain of a validation error when the
// validation's "pattern" matches took longer than [DefaultPatternBudget]
// together.
var ErrPatternBudget = bindimpl.ErrPatternBudget

// WithArgsValidation makes every call of a tool with an inputSchema (every
// call made through generated code) validate its arguments, as encoded to
// be sent, before sending them. A failure is returned as a *ValidationError
// (wrapped) and nothing is sent. Validation honours the call's context, and
// its "pattern" matches share the budget [DefaultPatternBudget].
// Off by default: the server validates its own input.
func WithArgsValidation() Option {
	return Option{apply: func(c *config) { c.validateArgs = true }}
}

// WithResultValidation makes every call made through generated code
// validate the natural result (after unwrapping an envelope) against the
// tool's natural output schema before decoding it. Off by default.
func WithResultValidation() Option {
	return Option{apply: func(c *config) { c.validateResults = true }}
}

// Invoke calls tool with args and decodes its result into out, as
// [Caller] states: generated clients call it through bindimpl.CallAs.
//
// The arguments are encoded once, with tool.Types (the generated package's
// rules; plain encoding/json when nil; a json.RawMessage is taken as it
// is), and must give a JSON object. Those bytes are what WithArgsValidation
// checks and what is sent. The result's value is structuredContent when
// present, otherwise the first text block that is JSON; it is unwrapped
// from a {"result": v} envelope by bindimpl.Unwrap with the session's
// negotiated protocol version and tool.Output, checked by
// WithResultValidation, and decoded once into out from the bytes as sent
// (so int64 values above 2^53 stay exact). A result with no JSON value, or
// one that does not decode into out, gives an error naming the tool and
// showing (the start of) what was received.
//
// The call goes through the session's interceptors ([WithInterceptor]) and
// logger ([WithLogger]): an interceptor sees Call.Args as given here, and
// Args it changes are the ones encoded, since encoding happens at the end of
// the chain. Under [DigestFail] a tool pinned by [WithPins] whose
// live definition changed is not called: the error is a *[ToolChangedError].
// Other errors are those of [Session.CallResult].
func (s *Session) Invoke(ctx context.Context, tool *bindimpl.Tool, args any, out any) error {
	res, err := s.intercept(ctx, Call{Tool: tool.Name, Args: args}, func(ctx context.Context, c Call) (*Result, error) {
		return s.send(ctx, tool, c.Args, c.Request)
	})
	switch {
	case err != nil:
		return err
	case res == nil:
		return fmt.Errorf("composition: tool %q: an interceptor returned neither a result nor an error", tool.Name)
	}
	if asSent, ok := out.(**Result); ok {
		*asSent = res
		return nil
	}
	return s.decode(ctx, tool, res, out)
}

// CallResult calls the tool name with args and returns its result as sent,
// for hand-written code: args is encoded with encoding/json and must give a
// JSON object (nil sends {}). It is [Session.Invoke] with a tool that has
// no schemas: interceptors, the logger and pins apply; validation and the
// envelope rules do not. A result with isError: true is returned as a
// *[ToolError] (which carries the result). Other errors (JSON-RPC errors
// such as an unknown tool, transport errors, ctx ending) name the tool and
// the server and wrap the cause, so errors.Is(err, context.DeadlineExceeded)
// works. When ctx ends first, CallResult returns promptly (and over stdio
// mcp-go tells the server with notifications/cancelled).
func (s *Session) CallResult(ctx context.Context, name string, args any) (*Result, error) {
	var res *Result
	if err := s.Invoke(ctx, &bindimpl.Tool{Name: name}, args, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// send is the end of the interceptor chain: steps 1-5; req is the call's
// Request (nil without interceptors), whose _meta entries are sent and
// whose ID is set.
func (s *Session) send(ctx context.Context, tool *bindimpl.Tool, args any, req *Request) (*Result, error) {
	raw, err := encodeArgs(tool, args)
	if err != nil {
		return nil, fmt.Errorf("composition: tool %q: %w", tool.Name, err)
	}
	if err := s.checkArgs(ctx, tool, raw); err != nil {
		return nil, err
	}
	if err := s.checkPin(ctx, tool.Name); err != nil {
		return nil, err
	}
	call := RawCall{Name: tool.Name, Args: raw}
	if req != nil {
		call.ID = &req.ID
		if call.Meta, err = encodeMeta(req.Meta); err != nil {
			return nil, fmt.Errorf("composition: tool %q: %w", tool.Name, err)
		}
	}
	res, err := s.roundTrip(ctx, call)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, &ToolError{Tool: tool.Name, Text: res.Text(), Result: res}
	}
	return res, nil
}

// encodeArgs encodes args once, to the bytes that are validated and sent:
// with tool.Types when it has one (a generated Args value), else with
// encoding/json; a json.RawMessage (a forwarded call's arguments) is taken
// as it is once checked to be JSON. nil, and a value that encodes as null,
// give {}; any other value must encode as a JSON object.
func encodeArgs(tool *bindimpl.Tool, args any) (json.RawMessage, error) {
	var b []byte
	var err error
	switch a := args.(type) {
	case nil:
		return json.RawMessage(`{}`), nil
	case json.RawMessage:
		if !json.Valid(a) {
			return nil, errors.New("encoding arguments: the json.RawMessage is not valid JSON")
		}
		b = a
	default:
		if tool.Types != nil {
			b, err = tool.Types.Marshal(args)
		} else {
			b, err = json.Marshal(args)
		}
		if err != nil {
			return nil, fmt.Errorf("encoding arguments: %w", err)
		}
	}
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("arguments must encode as a JSON object, got %s", truncate(string(b), 100))
	}
	return b, nil
}

// checkArgs validates the encoded arguments when WithArgsValidation is on
// and tool has an inputSchema, bounded by ctx and the pattern budget
// (SchemaSet.ValidateJSONContext).
func (s *Session) checkArgs(ctx context.Context, tool *bindimpl.Tool, raw json.RawMessage) error {
	set := tool.SchemaDocs()
	if !s.validateArgs || set == nil || tool.InputDoc == "" {
		return nil
	}
	if err := set.ValidateJSONContext(ctx, tool.InputDoc, "", raw); err != nil {
		return fmt.Errorf("composition: tool %q: arguments do not match its inputSchema: %w", tool.Name, err)
	}
	return nil
}

// encodeMeta is the JSON object of meta's entries for params._meta, keys
// sorted (encoding/json sorts map keys), without the keys the protocol
// reserves (io.modelcontextprotocol/…, the session's own); nil when no
// entry is left. An entry that is not valid JSON is an error.
func encodeMeta(meta Meta) (json.RawMessage, error) {
	n := 0
	for k := range meta {
		if !strings.HasPrefix(k, mcpconn.ReservedMetaPrefix) {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	if n < len(meta) {
		kept := make(Meta, n)
		for k, v := range meta {
			if !strings.HasPrefix(k, mcpconn.ReservedMetaPrefix) {
				kept[k] = v
			}
		}
		meta = kept
	}
	b, err := json.Marshal(map[string]json.RawMessage(meta))
	if err != nil {
		return nil, fmt.Errorf("encoding the request's _meta: %w", err)
	}
	return b, nil
}

// roundTrip sends tools/call with the encoded arguments as they are (mcp-go
// puts the json.RawMessage into the request, where encoding/json only
// compacts it; no Go value is encoded again) and parses the raw result.
func (s *Session) roundTrip(ctx context.Context, call RawCall) (*Result, error) {
	name := call.Name
	raw, err := s.c.CallToolRaw(ctx, call)
	if err != nil {
		// A JSON-RPC error's message is the server's text.
		return nil, textsafe.Error(fmt.Errorf("composition: %w", err))
	}
	// Invalid UTF-8 is replaced once here, so that StructuredContent,
	// Content[i].Raw and Meta, which are kept raw, are valid UTF-8 like
	// the strings encoding/json decodes (and a proxy forwards them so).
	raw = rawjson.ValidUTF8(raw)
	res, err := decodeResult(raw)
	if err != nil {
		return nil, fmt.Errorf("composition: tool %q on %s: malformed tools/call result: %w (received %s)", name, s.c.Server(), err, truncate(string(raw), 200))
	}
	res.version = s.ProtocolVersion()
	return &res, nil
}

// decode is steps 6-8: the natural value of res, unwrapped, validated
// (WithResultValidation) and decoded into out (nil: only validated).
func (s *Session) decode(ctx context.Context, tool *bindimpl.Tool, res *Result, out any) error {
	raw, ok := res.JSON()
	if !ok {
		return fmt.Errorf("composition: tool %q returned no structuredContent and no text content that is JSON (text: %q)", tool.Name, truncate(res.Text(), 200))
	}
	value, _ := bindimpl.Unwrap(s.ProtocolVersion(), tool.Output, raw)
	if s.validateResults {
		if err := checkResult(ctx, tool, value); err != nil {
			return err
		}
	}
	if out == nil {
		return nil
	}
	if err := tool.Decode(value, out); err != nil {
		return fmt.Errorf("composition: tool %q: decoding the result into %T: %w (received %s)", tool.Name, out, err, truncate(string(raw), 200))
	}
	return nil
}

// checkResult validates the natural result value against tool's natural
// output schema, when it has one, bounded by ctx and the pattern budget
// (SchemaSet.ValidateJSONContext).
func checkResult(ctx context.Context, tool *bindimpl.Tool, value json.RawMessage) error {
	set := tool.SchemaDocs()
	if set == nil || tool.OutputDoc == "" {
		return nil
	}
	if err := set.ValidateJSONContext(ctx, tool.OutputDoc, tool.ResultPointer, value); err != nil {
		return fmt.Errorf("composition: tool %q: result does not match its outputSchema: %w", tool.Name, err)
	}
	return nil
}
