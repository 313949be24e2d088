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

	"github.com/mcpbind/mcpbind/internal/rawjson"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Result is a tools/call result as the server sent it. Generated code returns
// it for tools without an outputSchema.
type Result struct {
	// Content holds the content blocks in order.
	Content []Content `json:"content"`
	// StructuredContent is the structuredContent value exactly as sent;
	// nil when absent, the JSON null literal when the server sent null.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError is the result's isError flag.
	IsError bool `json:"isError,omitempty"`
	// Meta is the result's _meta object as sent; nil when absent.
	Meta json.RawMessage `json:"_meta,omitempty"`

	// version is the protocol version of the session that received the
	// result ("" for a Result made elsewhere), for the envelope rules;
	// validate is that session's WithResultValidation.
	version  string
	validate bool
}

// Content is one content block of a tool result. The common fields are
// decoded for convenience (each is "" when absent or not a string); Raw
// holds the whole block exactly as sent, for anything else (annotations,
// _meta, new block types).
type Content struct {
	// Type is "text", "image", "audio", "resource_link", "resource", …
	Type string `json:"type"`
	// Text is the text of a "text" block.
	Text string `json:"text,omitempty"`
	// MimeType is the MIME type of an image, audio or resource_link block.
	MimeType string `json:"mimeType,omitempty"`
	// Data is the base64 data of an image or audio block.
	Data string `json:"data,omitempty"`
	// URI is the URI of a resource_link block.
	URI string `json:"uri,omitempty"`
	// Name is the name of a resource_link block.
	Name string `json:"name,omitempty"`
	// Resource is the resource object of an embedded "resource" block.
	Resource json.RawMessage `json:"resource,omitempty"`
	// Raw is the whole block as sent.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the block in Raw and decodes the fields that are
// strings; it fails only when data is not a JSON object.
func (c *Content) UnmarshalJSON(data []byte) error {
	if err := c.decode(data); err != nil {
		return err
	}
	c.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// decode is UnmarshalJSON with Raw and Resource as slices of data (no
// copy), for data that nothing modifies afterwards (a result a Session
// received). Only the string fields are decoded (a map of all members
// would copy the block once more).
func (c *Content) decode(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		if string(t) == "null" {
			return errors.New("content block is null")
		}
		return fmt.Errorf("content block is not a JSON object: %.20s", t)
	}
	var fields struct {
		Type     lenientString `json:"type"`
		Text     lenientString `json:"text"`
		MimeType lenientString `json:"mimeType"`
		Data     lenientString `json:"data"`
		URI      lenientString `json:"uri"`
		Name     lenientString `json:"name"`
		Resource rawRef        `json:"resource"`
	}
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("content block is not a JSON object: %w", err)
	}
	*c = Content{
		Type:     string(fields.Type),
		Text:     string(fields.Text),
		MimeType: string(fields.MimeType),
		Data:     string(fields.Data),
		URI:      string(fields.URI),
		Name:     string(fields.Name),
		Resource: nonNull(json.RawMessage(fields.Resource)),
		Raw:      data,
	}
	return nil
}

// lenientString decodes a JSON string, and anything else as "".
type lenientString string

// UnmarshalJSON decodes data if it is a string.
func (s *lenientString) UnmarshalJSON(data []byte) error {
	var v string
	if json.Unmarshal(data, &v) == nil {
		*s = lenientString(v)
	}
	return nil
}

// rawRef is a JSON value kept as a slice of the buffer it was decoded from
// (json.Unmarshal passes a slice of its input to UnmarshalJSON); only for
// buffers nothing modifies afterwards.
type rawRef []byte

// UnmarshalJSON keeps data without copying it.
func (r *rawRef) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// decodeResult decodes a tools/call result a Session received. raw is not
// modified afterwards, so StructuredContent, Meta and each block's Raw are
// slices of it: a large result is held once (plus the decoded Text of its
// text blocks), not three or four times.
func decodeResult(raw json.RawMessage) (Result, error) {
	var fields struct {
		Content           []rawRef `json:"content"`
		StructuredContent rawRef   `json:"structuredContent"`
		IsError           bool     `json:"isError"`
		Meta              rawRef   `json:"_meta"`
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return Result{}, fmt.Errorf("not a JSON object")
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Result{}, err
	}
	res := Result{StructuredContent: json.RawMessage(fields.StructuredContent), IsError: fields.IsError, Meta: json.RawMessage(fields.Meta)}
	if fields.Content != nil {
		res.Content = make([]Content, len(fields.Content))
	}
	for i, block := range fields.Content {
		if err := res.Content[i].decode(block); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// MarshalJSON writes Raw when it is set, else the decoded fields.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 {
		return c.Raw, nil
	}
	type plain Content
	return json.Marshal(plain(c))
}

// Text joins the text of the result's text blocks with "\n".
func (r *Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == mcp.ContentTypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// JSON returns the result's JSON value: structuredContent when present
// (even null), otherwise the first text block whose whole text is JSON. It
// reports false when there is neither. The value is valid UTF-8: each byte
// of an invalid sequence is replaced by U+FFFD, as encoding/json does when
// it decodes a string (RFC 8259 §8.1 requires UTF-8 between systems). A
// result received by a [Session] has had that done once already, so
// StructuredContent is returned as is, without a copy.
func (r *Result) JSON() (json.RawMessage, bool) {
	if r.StructuredContent != nil {
		return rawjson.ValidUTF8(r.StructuredContent), true
	}
	for _, c := range r.Content {
		if c.Type != mcp.ContentTypeText {
			continue
		}
		t := bytes.TrimSpace([]byte(c.Text))
		if len(t) > 0 && json.Valid(t) {
			return rawjson.ValidUTF8(t), true
		}
	}
	return nil, false
}

// DecodeJSON decodes the result's JSON value (see [Result.JSON]) into v with
// encoding/json, without unwrapping envelopes.
func (r *Result) DecodeJSON(v any) error {
	raw, ok := r.JSON()
	if !ok {
		return fmt.Errorf("composition: result has no structuredContent and no text content that is JSON (text: %q)", truncate(r.Text(), 200))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("composition: decoding result into %T: %w (received %s)", v, err, truncate(string(raw), 200))
	}
	return nil
}

// ToolError is returned when a tool answered with isError: true. errors.As
// finds it in errors from [Session.Call] and [Session.CallResult].
type ToolError struct {
	// Tool is the tool's name.
	Tool string
	// Text is the result's text blocks joined with "\n".
	Text string
	// Result is the whole result as sent.
	Result *Result
}

// Error says which tool failed and what it said, on one line: control,
// bidirectional and line-breaking characters in the tool's name and text
// are escaped (internal/textsafe: "\n", "\u001b", "\u202e"), so the
// message cannot rewrite a terminal or a log line. Text has the text as
// sent.
func (e *ToolError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("tool %q reported an error (no text)", e.Tool)
	}
	return textsafe.Escape(fmt.Sprintf("tool %q reported an error: %s", e.Tool, e.Text))
}

// CallResult calls the tool name with args and returns its result as sent.
// args is marshalled with encoding/json and must give a JSON object; nil
// sends {}. A result with isError: true is returned as a *[ToolError] (which
// carries the result). Other errors (JSON-RPC errors such as an unknown tool,
// transport errors, ctx ending) name the tool and the server and wrap the
// cause, so errors.Is(err, context.DeadlineExceeded) works. When ctx ends
// first, CallResult returns promptly (and over stdio mcp-go tells the server
// with notifications/cancelled). The call goes through the session's
// interceptors ([WithInterceptor]) and logger ([WithLogger]). Under
// [DigestFail] a tool pinned by [WithDigestCheckAt] whose live definition
// changed is not called: the error is a *[ToolChangedError].
func (s *Session) CallResult(ctx context.Context, name string, args any) (*Result, error) {
	return s.intercept(ctx, Call{Tool: name, Args: args}, s.invokeByName)
}

// invokeByName is the end of CallResult's interceptor chain.
func (s *Session) invokeByName(ctx context.Context, c Call) (*Result, error) {
	return s.callResult(ctx, c.Tool, c.Args)
}

// callResult is CallResult without interceptors.
func (s *Session) callResult(ctx context.Context, name string, args any) (*Result, error) {
	if err := s.checkPin(ctx, name); err != nil {
		return nil, err
	}
	res, err := s.call(ctx, name, args)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, &ToolError{Tool: name, Text: res.Text(), Result: res}
	}
	return res, nil
}

// Call calls tool with args (as [Session.CallResult] does) and decodes its
// result into out, a pointer to the tool's natural result type, or nil to
// ignore the value. The value is structuredContent when present, otherwise
// the first text block that is JSON; it is unwrapped from a {"result": v}
// envelope by [Unwrap] with the session's protocol version and tool.Output,
// then decoded with encoding/json from the bytes as sent (so int64 values
// above 2^53 stay exact). isError: true gives a *[ToolError]; a result with
// no JSON value, or one that does not decode into out, gives an error naming
// the tool and showing (the start of) what was received. With
// WithArgsValidation or WithResultValidation the arguments or the natural
// result are first checked against tool's schemas.
func (s *Session) Call(ctx context.Context, tool bindimpl.Tool, args any, out any) error {
	return callInto(ctx, s, tool, args, out)
}

// Caller calls a tool and returns its result as sent: a *[Session], or the
// binding of a server in a [Registry] ([Registry.Server]), which reconnects
// a lost session. A generated Client holds one; tests may pass their own.
// CallTool applies the envelope rules nowhere: [CallAs] does, with the
// protocol version of the session that answered.
type Caller interface {
	// CallTool calls tool with args (a value that encodes as a JSON
	// object, or nil) and returns the result as sent. isError: true is a
	// *[ToolError].
	CallTool(ctx context.Context, tool bindimpl.Tool, args any) (*Result, error)
}

// CallAs calls tool through c like Session.Call and returns the decoded
// natural result as a T (a pointer type such as *QueryResult, or a value
// type such as int64 or []string); on error it returns T's zero value.
// Generated clients use it so that each method is one line. A result that
// no Session received (one a test's own Caller made) is taken as sent at
// [ModernProtocolVersion]: its value is natural unless tool.Output says the
// server always wraps.
func CallAs[T any](ctx context.Context, c Caller, tool bindimpl.Tool, args any) (T, error) {
	var out T
	if err := callInto(ctx, c, tool, args, &out); err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// callInto is Call for any Caller. Result validation (WithResultValidation)
// is the option of the session that answered.
func callInto(ctx context.Context, c Caller, tool bindimpl.Tool, args any, out any) error {
	res, err := c.CallTool(ctx, tool, args)
	if err != nil {
		return err
	}
	raw, ok := res.JSON()
	if !ok {
		return fmt.Errorf("composition: tool %q returned no structuredContent and no text content that is JSON (text: %q)", tool.Name, truncate(res.Text(), 200))
	}
	version := res.version
	if version == "" {
		version = ModernProtocolVersion
	}
	value, _ := bindimpl.Unwrap(version, tool.Output, raw)
	if res.validate {
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

// call sends tools/call and parses the raw result.
func (s *Session) call(ctx context.Context, name string, args any) (*Result, error) {
	argsRaw, err := marshalArgs(args)
	if err != nil {
		return nil, fmt.Errorf("composition: tool %q: %w", name, err)
	}
	raw, err := s.c.CallToolRaw(ctx, name, argsRaw)
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
	res.version, res.validate = s.ProtocolVersion(), s.validateResults
	return &res, nil
}

// marshalArgs encodes tool arguments, which must form a JSON object.
func marshalArgs(args any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage(`{}`), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encoding arguments: %w", err)
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

// truncate shortens server text for a message to at most n bytes (on a rune
// boundary), marking the cut, after masking URL credentials in it (redact
// first, cut second), and escapes it (internal/textsafe).
func truncate(s string, n int) string { return textsafe.Escape(redact.Cut(s, nil, n)) }

// nonNull is r, or nil when r is absent or JSON null.
func nonNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return r
}
