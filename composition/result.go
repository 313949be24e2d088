package composition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/rawjson"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Result is a tools/call result as the server sent it. Generated code returns
// it for tools without an outputSchema; [Session.CallResult] returns it.
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
	// result ("" for a Result made elsewhere): a Forwarding proxy puts the
	// envelope on or takes it off by it.
	version string
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
// finds it in errors from [Session.Invoke], [Session.CallResult] and
// generated clients' methods.
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
