package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Raw capture.
//
// mcp-go decodes every result into its own types, which loses data this
// package must keep: mcp.Tool drops schema keywords and fails on boolean or
// type-array schema roots, structuredContent decoded into `any` turns large
// integers into float64, and unknown content types fail the whole call. So
// the mcp-go transport is wrapped in rawTransport, which hands the raw result
// bytes of selected responses to the caller.
//
// The caller asks for them per request: it puts a *capture into the context
// (withCapture); mcp-go passes that context (or one derived from it) down to
// Transport.SendRequest, where rawTransport records the Result of each
// successful response whose method the capture names. Each write replaces
// the previous one for that method, so a call that takes several round trips
// (SEP-2322 multi round-trip requests, version renegotiation of
// server/discover) keeps the final answer. A capture may also rewrite what
// mcp-go gets to decode (see toolsPage.sanitize and sanitizeCallResult), so
// that its typed decode cannot fail on something this package reads raw.
// Requests without a capture in their context pass through untouched.

// captureKey is the context key of a *capture.
type captureKey struct{}

// capture is a per-request slot for raw results.
type capture struct {
	// methods are the JSON-RPC methods to record.
	methods []string
	// sanitize, if set, returns what mcp-go should decode instead of raw.
	sanitize func(raw json.RawMessage) json.RawMessage

	mu     sync.Mutex
	got    map[string]json.RawMessage
	rpcErr map[string]*mcp.JSONRPCErrorDetails
	// id is the JSON-RPC id of the last request of a wanted method that
	// was sent (hasID says whether there was one).
	id    mcp.RequestId
	hasID bool
}

func newCapture(sanitize func(json.RawMessage) json.RawMessage, methods ...string) *capture {
	return &capture{methods: methods, sanitize: sanitize}
}

func withCapture(ctx context.Context, c *capture) context.Context {
	return context.WithValue(ctx, captureKey{}, c)
}

// result returns the last raw result recorded for method, or nil.
func (c *capture) result(method string) json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[method]
}

// recordID keeps the id of a request to method when the method is wanted.
func (c *capture) recordID(method string, id mcp.RequestId) {
	if !slices.Contains(c.methods, method) {
		return
	}
	c.mu.Lock()
	c.id, c.hasID = id, true
	c.mu.Unlock()
}

// requestID is the id recorded by recordID as text: a number in decimal,
// a string as it is; ok is false when no request was sent.
func (c *capture) requestID() (string, bool) {
	c.mu.Lock()
	id, ok := c.id, c.hasID
	c.mu.Unlock()
	if !ok {
		return "", false
	}
	return IDText(id.Value()), true
}

// IDText is a JSON-RPC request id as text, the one rule for
// jsonrpc.request.id on both sides: a string as it is, a number in its
// shortest decimal form ("7"), whether mcp-go holds it as an int64 or int, a
// float64 (as it decodes a received id), a json.Number or an
// mcp.RequestId; "" for anything else (a null or absent id).
func IDText(id any) string {
	switch v := id.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	case mcp.RequestId:
		return IDText(v.Value())
	}
	return ""
}

// rpcError returns the last JSON-RPC error recorded for method, or nil.
func (c *capture) rpcError(method string) *mcp.JSONRPCErrorDetails {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rpcErr[method]
}

// recordError keeps the JSON-RPC error of a response to method when the
// method is wanted: mcp-go turns it into a Go error that keeps the message
// but, for codes it does not know, not the code.
func (c *capture) recordError(method string, details *mcp.JSONRPCErrorDetails) {
	if !slices.Contains(c.methods, method) {
		return
	}
	c.mu.Lock()
	if c.rpcErr == nil {
		c.rpcErr = map[string]*mcp.JSONRPCErrorDetails{}
	}
	c.rpcErr[method] = details
	c.mu.Unlock()
}

// record keeps resp's raw result when its method is wanted, and returns the
// response mcp-go should see.
func (c *capture) record(method string, resp *transport.JSONRPCResponse) *transport.JSONRPCResponse {
	wanted := false
	for _, m := range c.methods {
		if m == method {
			wanted = true
			break
		}
	}
	if !wanted {
		return resp
	}
	// The transports decode each response into a buffer of its own that
	// nothing writes to afterwards, so the result is kept without a copy
	// (a large result would otherwise cost its size again).
	raw := resp.Result
	c.mu.Lock()
	if c.got == nil {
		c.got = map[string]json.RawMessage{}
	}
	c.got[method] = raw
	c.mu.Unlock()
	if c.sanitize == nil {
		return resp
	}
	clone := *resp
	clone.Result = c.sanitize(raw)
	return &clone
}

// rawTransport decorates an mcp-go transport with raw capture. It implements
// transport.Interface; newRawTransport returns a wrapper that also
// implements transport.BidirectionalInterface and transport.HTTPConnection
// exactly when the inner transport does, because mcp-go's client changes
// behaviour on those assertions (server-to-client requests; the
// MCP-Protocol-Version header, cancellation and x-mcp-header handling over
// HTTP). The other interfaces the client asserts, RequiresLegacyProtocol
// and SetConnectionLostHandler, are forwarded when the inner transport has
// them and are no-ops otherwise, which mcp-go treats the same as absent.
type rawTransport struct {
	inner transport.Interface
}

func newRawTransport(inner transport.Interface) transport.Interface {
	base := &rawTransport{inner: inner}
	bidi, isBidi := inner.(transport.BidirectionalInterface)
	hc, isHTTP := inner.(transport.HTTPConnection)
	switch {
	case isBidi && isHTTP:
		return &rawBidiHTTPTransport{rawBidiTransport: rawBidiTransport{rawTransport: base, bidi: bidi}, http: hc}
	case isBidi:
		return &rawBidiTransport{rawTransport: base, bidi: bidi}
	case isHTTP:
		return &rawHTTPTransport{rawTransport: base, http: hc}
	default:
		return base
	}
}

// Start starts the inner transport.
func (t *rawTransport) Start(ctx context.Context) error { return t.inner.Start(ctx) }

// SendRequest sends through the inner transport and records the raw result
// for the capture in ctx, if any. It also tells the HTTP round tripper which
// JSON-RPC method a request carries, and notes the outcome of handshake
// requests for the retry and fallback decisions of connect.go.
func (t *rawTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	ctx = context.WithValue(ctx, rpcMethodKey{}, req.Method)
	if c, ok := ctx.Value(captureKey{}).(*capture); ok {
		c.recordID(req.Method, req.ID)
	}
	resp, err := t.inner.SendRequest(ctx, req)
	if err == nil && req.Method == string(mcp.MethodServerDiscover) && !discoverNamesVersions(resp) {
		// A server/discover answer that names no supported protocol version
		// (some servers answer any unknown method with {}) is no 2026-07-28
		// server; failing the probe makes mcp-go fall back to initialize.
		err = errors.New("server/discover answer lists no supportedVersions")
		resp = nil
	}
	noteOutcome(ctx, req.Method, resp, err)
	if c, ok := ctx.Value(captureKey{}).(*capture); ok && err == nil && resp != nil && resp.Error != nil {
		c.recordError(req.Method, resp.Error)
	}
	if err != nil || resp == nil || resp.Error != nil {
		return resp, err
	}
	if c, ok := ctx.Value(captureKey{}).(*capture); ok {
		resp = c.record(req.Method, resp)
	}
	return resp, nil
}

// SendNotification sends through the inner transport.
func (t *rawTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	return t.inner.SendNotification(ctx, n)
}

// SetNotificationHandler sets the inner transport's notification handler.
func (t *rawTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.inner.SetNotificationHandler(h)
}

// Close closes the inner transport.
func (t *rawTransport) Close() error { return t.inner.Close() }

// GetSessionId returns the inner transport's session ID.
func (t *rawTransport) GetSessionId() string { return t.inner.GetSessionId() }

// RequiresLegacyProtocol forwards mcp-go's legacyRequiringTransport check.
func (t *rawTransport) RequiresLegacyProtocol() bool {
	l, ok := t.inner.(interface{ RequiresLegacyProtocol() bool })
	return ok && l.RequiresLegacyProtocol()
}

// SetConnectionLostHandler forwards mcp-go's connectionLostSetter.
func (t *rawTransport) SetConnectionLostHandler(h func(error)) {
	if s, ok := t.inner.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		s.SetConnectionLostHandler(h)
	}
}

type rawBidiTransport struct {
	*rawTransport
	bidi transport.BidirectionalInterface
}

// SetRequestHandler sets the handler for server-to-client requests.
func (t *rawBidiTransport) SetRequestHandler(h transport.RequestHandler) { t.bidi.SetRequestHandler(h) }

type rawHTTPTransport struct {
	*rawTransport
	http transport.HTTPConnection
}

// SetProtocolVersion forwards the negotiated version to the HTTP transport.
func (t *rawHTTPTransport) SetProtocolVersion(v string) { t.http.SetProtocolVersion(v) }

type rawBidiHTTPTransport struct {
	rawBidiTransport
	http transport.HTTPConnection
}

// SetProtocolVersion forwards the negotiated version to the HTTP transport.
func (t *rawBidiHTTPTransport) SetProtocolVersion(v string) { t.http.SetProtocolVersion(v) }

// Compile-time checks of the decorator's interface sets.
var (
	_ transport.Interface              = (*rawTransport)(nil)
	_ transport.BidirectionalInterface = (*rawBidiTransport)(nil)
	_ transport.HTTPConnection         = (*rawHTTPTransport)(nil)
	_ transport.BidirectionalInterface = (*rawBidiHTTPTransport)(nil)
	_ transport.HTTPConnection         = (*rawBidiHTTPTransport)(nil)
)

// sanitizeCallResult is what mcp-go decodes of a tools/call result: the
// fields its multi round-trip loop needs (resultType, inputRequests,
// requestState), with empty content. The content and
// structuredContent are read raw by composition.Session, so mcp-go's decode of them
// (which fails on content types it does not know) is skipped. A result that
// is not an object is passed on unchanged for mcp-go to reject.
func sanitizeCallResult(raw json.RawMessage) json.RawMessage {
	// Only the three small fields are copied out of raw (a map of all
	// members would copy the content, which may be large).
	var fields struct {
		ResultType    json.RawMessage `json:"resultType,omitempty"`
		InputRequests json.RawMessage `json:"inputRequests,omitempty"`
		RequestState  json.RawMessage `json:"requestState,omitempty"`
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return raw
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return raw
	}
	out := struct {
		Content       json.RawMessage `json:"content"`
		ResultType    json.RawMessage `json:"resultType,omitempty"`
		InputRequests json.RawMessage `json:"inputRequests,omitempty"`
		RequestState  json.RawMessage `json:"requestState,omitempty"`
	}{json.RawMessage(`[]`), fields.ResultType, fields.InputRequests, fields.RequestState}
	b, err := json.Marshal(out)
	if err != nil {
		return raw
	}
	return b
}

// discoverNamesVersions reports whether a server/discover response is an
// error (left to mcp-go) or a result with a non-empty "supportedVersions"
// array (SEP-2575).
func discoverNamesVersions(resp *transport.JSONRPCResponse) bool {
	if resp == nil || resp.Error != nil {
		return true
	}
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	return json.Unmarshal(resp.Result, &r) == nil && len(r.SupportedVersions) > 0
}
