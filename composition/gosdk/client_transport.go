package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// Transport wraps t, a client transport of go-sdk, so that a session that
// [NewSession] makes of a client session connected over it sees the
// results of its tools/call and tools/list requests as the server sent
// them (integers above 2^53 exact, every field of a tool definition, the
// bytes that pin digests are computed from), and the server's
// notifications/tools/list_changed, which re-check pinned tools. Nothing
// else changes: every message is passed on as is, in order, and other
// requests (those the program makes on the client session itself) are not
// held.
//
// It works for every transport whose connection go-sdk drives only through
// the mcp.Connection interface: mcp.CommandTransport, mcp.IOTransport,
// mcp.InMemoryTransport, mcp.StdioTransport and mcp.SSEClientTransport. A
// *mcp.StreamableClientTransport is returned as is: go-sdk tells its
// connection the negotiated protocol version through an unexported hook
// (for the MCP-Protocol-Version header and the standalone SSE stream) that
// a wrapper would hide, so a session over it uses go-sdk's decoded values
// (see the package doc). A nil t gives nil.
func Transport(t mcp.Transport) mcp.Transport {
	switch t.(type) {
	case nil, *mcp.StreamableClientTransport:
		return t
	}
	return &rawTransport{t: t}
}

// rawTransport is the mcp.Transport of Transport.
type rawTransport struct {
	t mcp.Transport
}

// Connect connects the wrapped transport and wraps its connection.
func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rc := &rawConn{Connection: c, pending: map[jsonrpc.ID]*capture{}}
	switch tt := t.t.(type) {
	case *mcp.CommandTransport:
		rc.kind = composition.TransportStdio
	case *mcp.InMemoryTransport:
		rc.kind = composition.TransportInProcess
	case *mcp.SSEClientTransport:
		rc.kind = composition.TransportSSE
		rc.host, rc.port = mcpconn.PeerAddress(tt.Endpoint)
	}
	return rc, nil
}

// rawConn is a go-sdk connection that hands the raw result of a request
// made with a capture in its context to that capture, and tells its owner
// (the session's conn) of notifications/tools/list_changed.
type rawConn struct {
	mcp.Connection
	// kind, host and port are the session's PeerInfo: the transport
	// wrapped (composition's name for it; "" for one that names no
	// particular transport, such as mcp.IOTransport) and an HTTP server's
	// host and port.
	kind string
	host string
	port int
	// owner is the conn of NewSession over this connection, once a
	// request of it has passed (bind).
	owner atomic.Pointer[conn]
	// listening: go-sdk sent subscriptions/listen for
	// notifications/tools/list_changed (2026-07-28 sessions).
	listening atomic.Bool
	mu        sync.Mutex
	pending   map[jsonrpc.ID]*capture // by request ID, until the response
}

// Write records the capture of a request made with one, then writes msg.
func (c *rawConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return c.Connection.Write(ctx, msg)
	}
	if req.Method == "subscriptions/listen" && subscribesToolList(req.Params) {
		c.listening.Store(true)
	}
	capt, _ := ctx.Value(captureKey{}).(*capture)
	if capt == nil {
		return c.Connection.Write(ctx, msg)
	}
	capt.setConn(c, req.ID)
	c.mu.Lock()
	c.pending[req.ID] = capt
	c.mu.Unlock()
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.forget(req.ID)
	} else {
		capt.written.Store(true)
	}
	return err
}

// forget drops the capture of the request id (a request whose answer
// will not be read: its write failed, or its caller gave up on it).
func (c *rawConn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Read reads the next message, hands a captured request's result to its
// capture and reports notifications/tools/list_changed to the owner (which
// re-checks in a goroutine of its own), then returns the message as read.
func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		c.mu.Lock()
		capt := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if capt != nil && m.Error == nil {
			capt.setResult(m.Result)
		}
	case *jsonrpc.Request:
		if !m.IsCall() && m.Method == "notifications/tools/list_changed" {
			if o := c.owner.Load(); o != nil {
				o.toolsChanged()
			}
		}
	}
	return msg, nil
}

// subscribesToolList reports whether subscriptions/listen params ask for
// notifications/tools/list_changed.
func subscribesToolList(params json.RawMessage) bool {
	var p struct {
		Notifications struct {
			ToolsListChanged bool `json:"toolsListChanged"`
		} `json:"notifications"`
	}
	return json.Unmarshal(params, &p) == nil && p.Notifications.ToolsListChanged
}

// captureKey is the context key of a request's capture.
type captureKey struct{}

// capture receives, from a rawConn, the raw result of the one request made
// with it in its context, and which rawConn wrote the request.
type capture struct {
	mu   sync.Mutex
	conn *rawConn
	id   jsonrpc.ID // the request's ID on conn
	raw  json.RawMessage
	// written is set once the whole request went out on conn: go-sdk then
	// waits for the answer, which it gives up when the call's ctx ends.
	written atomic.Bool
}

// withCapture returns ctx carrying capt.
func withCapture(ctx context.Context, capt *capture) context.Context {
	return context.WithValue(ctx, captureKey{}, capt)
}

// setConn records the connection that wrote the request, and its ID.
func (c *capture) setConn(rc *rawConn, id jsonrpc.ID) {
	c.mu.Lock()
	c.conn, c.id = rc, id
	c.mu.Unlock()
}

// done is called once the request has returned: a request that ended
// without its answer (ctx ended, the session closed) is forgotten by its
// connection, which would otherwise hold the capture until an answer that
// may never come.
func (c *capture) done() {
	c.mu.Lock()
	rc, id, answered := c.conn, c.id, c.raw != nil
	c.mu.Unlock()
	if rc != nil && !answered {
		rc.forget(id)
	}
}

// connection is the connection that wrote the request, or nil.
func (c *capture) connection() *rawConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// setResult records the raw result (go-sdk decoded it into a fresh slice,
// which nothing modifies).
func (c *capture) setResult(raw json.RawMessage) {
	c.mu.Lock()
	c.raw = raw
	c.mu.Unlock()
}

// requestID is the JSON-RPC id of the request as text, once a rawConn
// wrote it; ok is false before.
func (c *capture) requestID() (id string, ok bool) {
	c.mu.Lock()
	rc, raw := c.conn, c.id.Raw()
	c.mu.Unlock()
	if rc == nil {
		return "", false
	}
	switch v := raw.(type) {
	case string:
		return v, true
	case int64:
		return strconv.FormatInt(v, 10), true
	default:
		return fmt.Sprint(v), true
	}
}

// result is the raw result, or nil when none arrived through a rawConn.
func (c *capture) result() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw
}
