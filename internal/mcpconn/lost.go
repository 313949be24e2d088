package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// ErrSessionLost is matched (errors.Is) by every error of a request that
// failed because the connection to the server is gone: a stdio server
// process that exited, an HTTP server that refuses or resets connections or
// answers 404 for the session id (MCP "Streamable HTTP", session
// management: the client must start a new session), or an HTTP+SSE event
// stream that ended. Such an error is a *LostError, which says whether the
// request reached the server.
var ErrSessionLost = errors.New("the session with the server is lost")

// ErrSessionClosed is what Err returns after Close.
var ErrSessionClosed = errors.New("the session is closed")

// LostError: see composition.LostError, which documents it for users.
type LostError struct {
	// Server names the server as Transport.String does.
	Server string
	// Sent reports whether the request may have reached the server: false
	// when the session was known to be lost before it was sent, or the
	// server refused the connection or did not know the session (HTTP 404),
	// so it certainly did not run; true when the connection broke while the
	// request was in flight, so it may or may not have run.
	Sent bool
	// Err is why the session is lost.
	Err error
}

// RPCError is a JSON-RPC error response of the server to a request, as
// sent: its code, message and data. Err is the error mcp-go made of it (its
// message, and for the codes mcp-go knows a sentinel such as
// mcp.ErrInternalError); Error and Unwrap are Err's, so the text and
// errors.Is behave as without it.
type RPCError struct {
	// Code is the error's code as sent.
	Code int
	// Message is the error's message as sent: server text, not escaped.
	Message string
	// Data is the error's data member as mcp-go decoded it (nil when
	// absent).
	Data any
	// Err is mcp-go's error for the response.
	Err error
}

// Error returns Err's text.
func (e *RPCError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *RPCError) Unwrap() error { return e.Err }

// Error names the server, says whether the request may have reached it,
// and why the session is lost.
func (e *LostError) Error() string {
	if e.Sent {
		return fmt.Sprintf("the session with %s was lost while the request was in flight: %v", e.Server, e.Err)
	}
	return fmt.Sprintf("the session with %s is lost (the request was not sent): %v", e.Server, e.Err)
}

// Unwrap returns ErrSessionLost and the cause.
func (e *LostError) Unwrap() []error { return []error{ErrSessionLost, e.Err} }

// Done is closed when the session is known to be lost (see [ErrSessionLost])
// or has been closed.
func (s *Conn) Done() <-chan struct{} { return s.gone }

// Err is nil while the session is usable; afterwards it says why not: an
// error matching [ErrSessionLost], or [ErrSessionClosed].
func (s *Conn) Err() error {
	select {
	case <-s.gone:
		return s.goneErr
	default:
		return nil
	}
}

// markGone ends the session's life once, with err.
func (s *Conn) markGone(err error) {
	s.goneOnce.Do(func() {
		s.goneErr = err
		close(s.gone)
	})
}

// gaveUp reports whether the session was given up on a message or a write
// (stdiotransport.go), rather than lost: its process was then ended by this
// package, so its exit status says nothing.
func (s *Conn) gaveUp() bool {
	le := new(LostError)
	if !errors.As(s.Err(), &le) {
		return false
	}
	var limit *LimitError
	var parse *ParseError
	var stall *StallError
	return errors.As(le.Err, &limit) || errors.As(le.Err, &parse) || errors.As(le.Err, &stall)
}

// markLost records that the connection is gone because of cause.
func (s *Conn) markLost(cause error, sent bool) *LostError {
	le := &LostError{Server: s.server, Sent: sent, Err: cause}
	s.markGone(&LostError{Server: s.server, Err: cause})
	return le
}

// watch starts noticing, for a connected stdio session, that the server
// process exited, so that the next request fails at once as not sent.
func (s *Conn) watch() {
	if s.proc == nil {
		return
	}
	go func() {
		select {
		case <-s.proc.exited:
			s.markLost(fmt.Errorf("the server process exited (%s)", s.proc.exitDescription()), false)
		case <-s.gone:
		}
	}()
}

// lostError classifies err, the failure of a request on s (already
// annotated), and returns a *LostError when it means the connection is gone,
// else nil. Context ends are never a loss.
func (s *Conn) lostError(ctx context.Context, err error) *LostError {
	if ctx.Err() != nil {
		return nil
	}
	if le := new(LostError); errors.As(err, &le) {
		return le
	}
	if le := new(LostError); errors.As(s.Err(), &le) {
		// The session was given up while the request waited (a limit, an
		// unparsable message, a stalled stdin: stdiotransport.go).
		return &LostError{Server: s.server, Sent: !errors.Is(err, errNotWritten), Err: le.Err}
	}
	switch {
	case errors.Is(err, transport.ErrSessionTerminated):
		return s.markLost(errors.New("the server no longer knows the session (HTTP 404)"), false)
	case errors.Is(err, syscall.ECONNREFUSED):
		return s.markLost(errors.New("the server refused the connection"), false)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return s.markLost(errors.New("the connection was reset"), true)
	case s.http != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		// A kept-alive connection the server closed (it stopped or
		// restarted): Go's HTTP client does not send a POST again, and
		// the request may have been read before the connection closed.
		return s.markLost(errors.New("the server closed the connection"), true)
	case s.conn.lostErr() != nil:
		return s.markLost(fmt.Errorf("the server's HTTP+SSE event stream has ended (%w)", s.conn.lostErr()), true)
	case s.proc != nil && s.proc.hasExited(0):
		return s.markLost(fmt.Errorf("the server process exited (%s)", s.proc.exitDescription()), true)
	}
	return nil
}

// RawCall: see composition.RawCall, which documents it for SDK adapters.
type RawCall struct {
	// Name is the tool's name.
	Name string
	// Args are the arguments, a JSON object sent as is.
	Args json.RawMessage
	// Meta, when not empty, is a JSON object of entries for the request's
	// params._meta. The caller leaves out the keys the protocol reserves
	// (ReservedMetaPrefix): those are the SDK's, which on 2026-07-28
	// mcp-go sets over any of the same name.
	Meta json.RawMessage
	// ID, when not nil, receives the JSON-RPC id the request was sent with,
	// as text ("7"); it is left as it is when the request was not sent.
	ID *string
}

// CallToolRaw sends tools/call for the tool call.Name with call.Args (a JSON
// object) and call.Meta's entries in params._meta, and returns the result
// object exactly as the server sent it. A session already lost fails at
// once with a *LostError whose Sent is false. Other errors name the tool and
// the server and keep the cause (and ctx's error) reachable; a failure that
// shows the connection is gone is a *LostError, and a JSON-RPC error
// response is a *RPCError.
func (s *Conn) CallToolRaw(ctx context.Context, call RawCall) (json.RawMessage, error) {
	name := call.Name
	fail := func(err error) (json.RawMessage, error) {
		return nil, fmt.Errorf("calling tool %q on %s: %w", name, s.server, err)
	}
	if err := s.Err(); err != nil {
		if le := new(LostError); errors.As(err, &le) {
			return fail(&LostError{Server: s.server, Err: le.Err})
		}
		return fail(err)
	}
	params := mcp.CallToolParams{Name: name, Arguments: call.Args}
	if len(call.Meta) > 0 {
		meta, err := requestMeta(call.Meta)
		if err != nil {
			return fail(err)
		}
		params.Meta = meta
	}
	capt := newCapture(sanitizeCallResult, string(mcp.MethodToolsCall))
	_, err := s.client.CallTool(withCapture(ctx, capt), mcp.CallToolRequest{Params: params})
	if call.ID != nil {
		if id, ok := capt.requestID(); ok {
			*call.ID = id
		}
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", err, ctxErr)
		}
		err = s.annotate(err)
		if le := s.lostError(ctx, err); le != nil {
			return fail(&LostError{Server: le.Server, Sent: le.Sent, Err: err})
		}
		if d := capt.rpcError(string(mcp.MethodToolsCall)); d != nil {
			err = &RPCError{Code: d.Code, Message: d.Message, Data: d.Data, Err: err}
		}
		return fail(err)
	}
	raw := capt.result(string(mcp.MethodToolsCall))
	if raw == nil {
		return fail(errors.New("no result was captured"))
	}
	return raw, nil
}

// ReservedMetaPrefix starts the _meta keys the MCP specification reserves
// for the protocol (io.modelcontextprotocol/…: on 2026-07-28, the protocol
// version, client info and capabilities of every request, SEP-2575). A
// session sets those itself; a caller's entries never replace them.
const ReservedMetaPrefix = "io.modelcontextprotocol/"

// requestMeta is mcp-go's Meta of the entries of raw, a JSON object, each
// value kept raw. mcp-go encodes the entries with encoding/json (keys
// sorted) and, on 2026-07-28, sets its reserved entries over them.
func requestMeta(raw json.RawMessage) (*mcp.Meta, error) {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("the request's _meta is not a JSON object: %w", err)
	}
	fields := make(map[string]any, len(entries))
	for k, v := range entries {
		fields[k] = v
	}
	return &mcp.Meta{AdditionalFields: fields}, nil
}

// Server names the server for messages, as Transport.String does.
func (s *Conn) Server() string { return s.server }

// Client is the mcp-go client of the session, for what this package does
// not wrap (such as OnNotification). Requests made through it bypass the
// raw-JSON capture and the loss tracking.
func (s *Conn) Client() *client.Client { return s.client }

// Warn records msg as a warning of the session (see Warnings) and passes it
// to the WithWarnings callback.
func (s *Conn) Warn(msg string) {
	s.conn.mu.Lock()
	s.conn.warnings = append(s.conn.warnings, msg)
	warn := s.warn
	s.conn.mu.Unlock()
	if warn != nil {
		warn(msg)
	}
}

// OnToolsListChanged has changed called whenever the server sends
// notifications/tools/list_changed, until life ends. For a 2026-07-28
// session, whose notifications are opt-in (SEP-2575), it opens a
// subscriptions/listen stream for them when the server advertises
// tools.listChanged; ended is called with why that stream ended, and the
// error is why it could not be opened.
func (s *Conn) OnToolsListChanged(life context.Context, changed func(), ended func(error)) error {
	s.client.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) && life.Err() == nil {
			changed()
		}
	})
	if s.ProtocolVersion() < mcp.ProtocolVersion20260728 || !advertisesToolsListChanged(s.Capabilities()) {
		return nil
	}
	_, err := s.client.ListenAsync(life, mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) {
		ended(fmt.Errorf("the subscriptions/listen stream ended: %w", err))
	})
	if err != nil {
		return fmt.Errorf("subscriptions/listen: %w", err)
	}
	return nil
}

// advertisesToolsListChanged reports whether server capabilities declare
// tools.listChanged.
func advertisesToolsListChanged(capabilities json.RawMessage) bool {
	var c struct {
		Tools *struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
	}
	return json.Unmarshal(capabilities, &c) == nil && c.Tools != nil && c.Tools.ListChanged
}
