// Package gosdk runs mcpbind's typed clients over the official Go MCP SDK,
// github.com/modelcontextprotocol/go-sdk (v1.8.0): [NewSession] makes a
// *composition.Session of a *mcp.ClientSession the program already has, so
// that a generated client (NewClient(s)) calls tools through the same
// pipeline as over composition.Connect — arguments encoded once and sent
// as is, validation ([composition.WithArgsValidation],
// [composition.WithResultValidation]), pinning ([composition.DigestFail]
// and pinning.DigestCheck of a generated package's Pins), interceptors and logging, the
// {"result": v} envelope unwrapped by the session's negotiated protocol
// version, results decoded once from the bytes as sent.
//
// go-sdk decodes a tool's structuredContent into an `any`, so an integer
// above 2^53 loses its last digits before any Go code sees it, and it
// drops fields of a tool definition that it does not know. [Transport]
// wraps the client's mcp.Transport so that this package sees each
// tools/call and tools/list result as the server sent it (and
// notifications/tools/list_changed, which re-check pinned tools):
//
//	client := mcp.NewClient(&mcp.Implementation{Name: "app", Version: "1"}, nil)
//	cs, err := client.Connect(ctx, gosdk.Transport(&mcp.CommandTransport{Command: cmd}), nil)
//	…
//	s, err := gosdk.NewSession(ctx, cs, pinning.DigestCheck(explorer.Pins, composition.DigestFail))
//	…
//	defer s.Close() // closes cs
//	rows, err := explorer.NewClient(s).CountRows(ctx, explorer.CountRowsArgs{Table: "notes"})
//
// Without Transport the session still works, from what go-sdk decoded:
// results and tool definitions are encoded again with encoding/json (exact
// for everything but integers above 2^53 and fields go-sdk drops), and
// notifications/tools/list_changed is not seen (use
// [composition.WithPinRecheck] to re-check pins).
//
// This package imports composition; composition never imports go-sdk.
package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
)

// TransportName is what [composition.Session.Transport] returns for a
// session made by [NewSession]: go-sdk owns the transport.
const TransportName = "go-sdk"

// maxPages bounds the tools/list pages of one listing, as
// composition.DefaultMaxPages does for Connect.
const maxPages = composition.DefaultMaxPages

// NewSession makes a *composition.Session of cs, a go-sdk client session
// that is already connected (its handshake done). The Session owns cs:
// closing the Session closes cs. Calls go out through cs.CallTool with the
// arguments as a json.RawMessage (go-sdk sends them verbatim); the protocol
// version that decides the envelope rules is
// cs.InitializeResult().ProtocolVersion.
//
// The session options of composition apply: WithArgsValidation,
// WithResultValidation, WithInterceptor, WithLogger, WithWarnings,
// WithDigestCheck, WithPins (pinning.DigestCheck of a generated package's Pins)
// and WithPinRecheck; the digest checks run here, and under DigestFail a
// server whose tool list cannot be read, or (without pinned tools) whose
// digest differs, makes NewSession close cs and fail. The options of a
// transport or handshake (WithEnv, WithHeader, WithProtocolVersion,
// WithMaxResponseBytes, WithBearerToken, …) are go-sdk's
// business and are ignored: set them on the mcp.Transport and
// mcp.ClientSessionOptions.
//
// Pinned tools are re-checked on notifications/tools/list_changed only when
// cs was connected over [Transport]; for a 2026-07-28 session go-sdk opens
// the subscriptions/listen stream that carries them only when the client's
// mcp.ClientOptions.ToolListChangedHandler is set (a no-op will do),
// otherwise the session's warnings say so.
//
// A call on a session that go-sdk reports closed (the server process
// exited, the connection broke) fails with an error matching
// composition.ErrSessionLost (a *composition.SessionLostError); a JSON-RPC
// error of the server is a *composition.RPCError (its code, message and
// data) and keeps go-sdk's *jsonrpc.Error reachable with errors.As, its
// text escaped in the message.
//
// For telemetry (issue 21's Call.Request and Call.Peer): the _meta entries
// of a call's Request are sent over every transport (go-sdk adds its
// reserved entries at 2026-07-28); Request.ID, and Call.Peer's transport
// and address, are known over [Transport] only, once a request has passed
// through it (the pin check's tools/list, else the session's first call);
// over go-sdk's Streamable HTTP, which Transport leaves unwrapped, Peer
// names Streamable HTTP when the session has a session id (the legacy
// era), without host and port. Session.Transport stays [TransportName].
func NewSession(ctx context.Context, cs *mcp.ClientSession, opts ...composition.Option) (*composition.Session, error) {
	if cs == nil || cs.InitializeResult() == nil {
		return nil, errors.New("gosdk: NewSession needs a connected *mcp.ClientSession (made by mcp.Client.Connect)")
	}
	return composition.NewSession(ctx, newConn(cs), opts...)
}

// conn is a go-sdk client session as a composition.ClientConn.
type conn struct {
	cs     *mcp.ClientSession
	init   *mcp.InitializeResult
	server string

	// raw is the wrapped connection of Transport that cs runs over, once a
	// request has shown it (nil before, or without Transport); probed says
	// whether a request has looked.
	raw    atomic.Pointer[rawConn]
	probed atomic.Bool

	mu      sync.Mutex
	watches []watch // OnToolsListChanged's, while their life lasts

	gone      chan struct{}
	goneOnce  sync.Once
	goneErr   error
	closed    atomic.Bool
	closeErr  error
	closeOnce sync.Once
}

// watch is one OnToolsListChanged registration.
type watch struct {
	life    context.Context
	changed func()
	ended   func(error)
}

// newConn wraps cs and starts watching for its end (cs.Wait).
func newConn(cs *mcp.ClientSession) *conn {
	init := cs.InitializeResult()
	name := "(unnamed)"
	if init.ServerInfo != nil && init.ServerInfo.Name != "" {
		name = strconv.Quote(init.ServerInfo.Name)
	}
	c := &conn{cs: cs, init: init, server: name + " (go-sdk session)", gone: make(chan struct{})}
	go func() {
		err := cs.Wait()
		if c.closed.Load() {
			c.markGone(composition.ErrSessionClosed)
			return
		}
		if err == nil {
			err = errors.New("the connection was closed")
		}
		c.markGone(&composition.SessionLostError{Server: c.server, Err: err})
	}()
	return c
}

// markGone ends the connection's life once, with err.
func (c *conn) markGone(err error) {
	c.goneOnce.Do(func() {
		c.goneErr = err
		close(c.gone)
	})
}

// ProtocolVersion is the negotiated version, from go-sdk's InitializeResult
// (server/discover's for a 2026-07-28 session).
func (c *conn) ProtocolVersion() string { return c.init.ProtocolVersion }

// Server names the server for messages, as mcp-go's connection does with a
// command or URL: its serverInfo name quoted, and "(go-sdk session)", such as
// `"github-mcp-server" (go-sdk session)` ("(unnamed)" without a name).
func (c *conn) Server() string { return c.server }

// Transport is [TransportName].
func (c *conn) Transport() string { return TransportName }

// ServerInfo is the serverInfo go-sdk decoded, encoded again (nil when the
// server sent none).
func (c *conn) ServerInfo() json.RawMessage { return marshalOrNil(c.init.ServerInfo) }

// Capabilities is the capabilities object go-sdk decoded, encoded again.
func (c *conn) Capabilities() json.RawMessage { return marshalOrNil(c.init.Capabilities) }

// Instructions is the server's instructions text.
func (c *conn) Instructions() string { return c.init.Instructions }

// marshalOrNil encodes v, or returns nil for a nil pointer or a failure.
func marshalOrNil[T any](v *T) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Done is closed when cs has ended.
func (c *conn) Done() <-chan struct{} { return c.gone }

// Err is nil while cs is usable, then composition.ErrSessionClosed or a
// *composition.SessionLostError.
func (c *conn) Err() error {
	select {
	case <-c.gone:
		return c.goneErr
	default:
		return nil
	}
}

// Close closes cs once and returns its first result.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.closeErr = c.cs.Close()
		c.markGone(composition.ErrSessionClosed)
	})
	return c.closeErr
}

// SessionID is cs.ID(): go-sdk's Streamable HTTP session id, "" when none.
func (c *conn) SessionID() string { return c.cs.ID() }

// PeerInfo is, over [Transport], the transport it wraps
// (mcp.CommandTransport: stdio; mcp.SSEClientTransport: sse, with its
// endpoint's host and port; mcp.InMemoryTransport: in-process; another:
// ""), known once a request has passed (the pin check's tools/list, or the
// first call). A session not over Transport with a session id is over
// go-sdk's Streamable HTTP, the only client transport of go-sdk that has
// one (its URL is go-sdk's: no host and port); otherwise "".
func (c *conn) PeerInfo() (transport, host string, port int) {
	if rc := c.raw.Load(); rc != nil {
		return rc.kind, rc.host, rc.port
	}
	if c.cs.ID() != "" {
		return composition.TransportStreamableHTTP, "", 0
	}
	return "", "", 0
}

// CallToolRaw calls the tool through cs.CallTool, with call.Meta's entries
// in params._meta (go-sdk adds its reserved ones), and returns the result
// as sent (over Transport) or as go-sdk decoded it, encoded again. The
// request's id is known over Transport only.
func (c *conn) CallToolRaw(ctx context.Context, call composition.RawCall) (json.RawMessage, error) {
	name := call.Name
	if err := c.Err(); err != nil {
		return nil, c.fail(name, err, false)
	}
	params := &mcp.CallToolParams{Name: name, Arguments: call.Args}
	if len(call.Meta) > 0 {
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(call.Meta, &entries); err != nil {
			return nil, fmt.Errorf("calling tool %q on %s: the request's _meta is not a JSON object: %w", name, c.server, err)
		}
		params.Meta = make(mcp.Meta, len(entries))
		for k, v := range entries {
			params.Meta[k] = v
		}
	}
	capt := &capture{}
	if call.ID != nil {
		// Set here, in the caller's goroutine, whichever way the call ends.
		defer func() {
			if id, ok := capt.requestID(); ok {
				*call.ID = id
			}
		}()
	}
	// go-sdk does not give up a request whose write blocks (a stdio server
	// that stopped reading its input) when ctx ends, so the call runs apart:
	// when ctx ends before the request was written, CallToolRaw returns at
	// once, and the call left behind ends with the write (at the latest
	// when the server's process ends). A request written is waited for:
	// go-sdk then ends it with ctx.
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := c.cs.CallTool(withCapture(ctx, capt), params)
		capt.done()
		c.bind(capt, err == nil)
		done <- answer{res, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		if !capt.written.Load() {
			capt.done()
			return nil, fmt.Errorf("calling tool %q on %s: %w", name, c.server, context.Cause(ctx))
		}
		a = <-done
	}
	res, err := a.res, a.err
	if err != nil {
		return nil, c.fail(name, err, true)
	}
	if raw := capt.result(); raw != nil {
		return raw, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("calling tool %q on %s: encoding go-sdk's result again: %w", name, c.server, err)
	}
	return b, nil
}

// fail is the error of a request for the tool name that failed with err;
// sent says whether the request may have reached the server.
func (c *conn) fail(name string, err error, sent bool) error {
	if errors.Is(err, composition.ErrSessionClosed) {
		return fmt.Errorf("calling tool %q on %s: %w", name, c.server, err)
	}
	if le := new(composition.SessionLostError); errors.As(err, &le) {
		return fmt.Errorf("calling tool %q on %s: %w", name, c.server, &composition.SessionLostError{Server: c.server, Sent: false, Err: le.Err})
	}
	if connectionGone(err) {
		return fmt.Errorf("calling tool %q on %s: %w", name, c.server, &composition.SessionLostError{Server: c.server, Sent: sent, Err: err})
	}
	if we := new(jsonrpc.Error); errors.As(err, &we) {
		err = rpcError(we, err)
	}
	return fmt.Errorf("calling tool %q on %s: %w", name, c.server, err)
}

// rpcError is the *composition.RPCError of we, the JSON-RPC error response
// go-sdk returned within err: its code, message and data (decoded; nil when
// absent or not JSON), with err (and so we) in its chain.
func rpcError(we *jsonrpc.Error, err error) error {
	var data any
	if len(we.Data) > 0 && json.Unmarshal(we.Data, &data) != nil {
		data = nil
	}
	return &composition.RPCError{Code: int(we.Code), Message: we.Message, Data: data, Err: err}
}

// connectionGone reports whether a request failed because the connection
// under the go-sdk session is gone: go-sdk says so (ErrConnectionClosed,
// for requests after the end), or a request in flight got the read side's
// end of stream or a closed connection (go-sdk passes those on wrapped).
func connectionGone(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// ListToolsRaw lists every tool through cs.ListTools, page by page; each
// tool is as sent (over Transport) or as go-sdk decoded it, encoded again
// (go-sdk then has also left out tools it found invalid).
func (c *conn) ListToolsRaw(ctx context.Context) ([]json.RawMessage, error) {
	tools := []json.RawMessage{}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		where := fmt.Sprintf("tools/list page %d", page)
		if cursor != "" {
			where += fmt.Sprintf(" (cursor %q)", cursor)
		}
		if page > maxPages {
			return nil, fmt.Errorf("%s: %s: the server has more than %d pages of tools", c.server, where, maxPages)
		}
		capt := &capture{}
		res, err := c.cs.ListTools(withCapture(ctx, capt), &mcp.ListToolsParams{Cursor: cursor})
		capt.done()
		c.bind(capt, err == nil)
		if err != nil {
			if connectionGone(err) {
				err = &composition.SessionLostError{Server: c.server, Sent: true, Err: err}
			}
			return nil, fmt.Errorf("%s: %s: %w", c.server, where, err)
		}
		next := res.NextCursor
		if raw := capt.result(); raw != nil {
			var body struct {
				Tools      *[]json.RawMessage `json:"tools"`
				NextCursor string             `json:"nextCursor"`
			}
			if err := json.Unmarshal(raw, &body); err != nil || body.Tools == nil {
				return nil, fmt.Errorf("%s: %s: the result is not an object with a tools array", c.server, where)
			}
			tools = append(tools, *body.Tools...)
			next = body.NextCursor
		} else {
			for _, t := range res.Tools {
				b, err := json.Marshal(t)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: encoding go-sdk's tool again: %w", c.server, where, err)
				}
				tools = append(tools, b)
			}
		}
		if next == "" {
			return tools, nil
		}
		if seen[next] || next == cursor {
			return nil, fmt.Errorf("%s: %s: the server repeated cursor %q; its pagination does not advance", c.server, where, next)
		}
		seen[next] = true
		cursor = next
	}
}

// OnToolsListChanged registers changed and ended. Over [Transport] the
// wrapped connection calls changed for each notifications/tools/list_changed
// it reads; without it, or for a 2026-07-28 session whose client did not
// subscribe to the notifications, ended says so once the first request has
// shown which (ListToolsRaw follows at once in composition's pin check).
func (c *conn) OnToolsListChanged(life context.Context, changed func(), ended func(error)) error {
	c.mu.Lock()
	c.watches = append(c.watches, watch{life: life, changed: changed, ended: ended})
	c.mu.Unlock()
	if c.probed.Load() {
		c.checkWatch()
	}
	return nil
}

// toolsChanged calls every live watch's changed.
func (c *conn) toolsChanged() {
	c.mu.Lock()
	ws := append([]watch(nil), c.watches...)
	c.mu.Unlock()
	for _, w := range ws {
		if w.life.Err() == nil {
			w.changed()
		}
	}
}

// checkWatch tells each watch, once the connection is known, whether the
// notifications can arrive: ended is called when they cannot.
func (c *conn) checkWatch() {
	var why error
	rc := c.raw.Load()
	switch {
	case rc == nil:
		why = errors.New("the go-sdk session was not connected over gosdk.Transport, so its notifications are not seen; pinned tools are checked when the session starts and by WithPinRecheck")
	case c.init.ProtocolVersion >= composition.ModernProtocolVersion && c.init.Capabilities != nil && c.init.Capabilities.Tools != nil &&
		c.init.Capabilities.Tools.ListChanged && !rc.listening.Load():
		why = errors.New("go-sdk opened no subscriptions/listen stream for them (set mcp.ClientOptions.ToolListChangedHandler, a no-op will do)")
	}
	c.mu.Lock()
	ws := c.watches
	if why != nil {
		c.watches = nil
	}
	c.mu.Unlock()
	if why == nil {
		return
	}
	for _, w := range ws {
		if w.life.Err() == nil {
			w.ended(why)
		}
	}
}

// bind records, after a request made with capt that succeeded (ok) or
// not, which wrapped connection cs runs over, if any, and checks the
// watches the first time it is known. A request that succeeded without
// passing a wrapped connection shows that there is none (the first
// tools/list of a session is never one go-sdk answers from its cache).
func (c *conn) bind(capt *capture, ok bool) {
	if c.probed.Load() {
		return
	}
	rc := capt.connection()
	if rc == nil && !ok {
		return // nothing learnt
	}
	if rc != nil && c.raw.CompareAndSwap(nil, rc) {
		rc.owner.Store(c)
	}
	if c.probed.CompareAndSwap(false, true) {
		c.checkWatch()
	}
}
