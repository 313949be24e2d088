package composition

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
	"github.com/mcpbind/mcpbind/internal/rawjson"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Serving an mcp-go server over stdio without copying large results.
//
// mcp-go's StdioServer answers a tools/call by json.Marshal of the whole
// JSON-RPC response (inside which CallToolResult.MarshalJSON builds a map
// and marshals it again, and encoding/json copies each content block's
// MarshalJSON output while compacting it) and then fmt.Fprintf("%s\n"),
// one more copy: a forwarded 30 MB result cost the composing server about
// 7× its size, and nothing in mcp-go takes pre-encoded JSON. ServeStdio
// runs the same mcp-go server (every message goes through
// MCPServer.HandleMessage: initialize, lists, hooks, middleware, tool
// filters, era decoration) and writes the responses itself: a tools/call
// result is written piece by piece, the content blocks and
// structuredContent a handler passed as bytes (a forwarded *Result, a
// generated handler's encoded value) going to the wire as they are.

const (
	// stdioToolCalls is how many tools/call requests ServeStdio runs at
	// once; later ones wait for a slot (the read loop does not). A result
	// is held from its handler until it is queued for writing, and the
	// queue holds at most 4 MiB or one larger answer beside the one being
	// written, so this also bounds the results a composing server holds
	// at once (8 + 2).
	stdioToolCalls = 8
	// stdioRequests is how many requests ServeStdio has in flight at
	// once, tools/call included; a request beyond them is answered at
	// once with errBusy. This bounds the goroutines (and answers) a client
	// holds by sending requests without reading the answers. The read
	// loop does not wait for a slot instead: the answers to the server's
	// own requests (sampling, elicitation, roots), which the handlers in
	// flight may be waiting for, come on the same stream.
	stdioRequests = 256
	// errBusy is the JSON-RPC error code of a request beyond
	// stdioRequests (-32000 to -32099 are the implementation's own
	// server errors).
	errBusy = -32000
	// stdioReadBuffer is the buffer of ServeStdio's input.
	stdioReadBuffer = 64 << 10
	// stdioNotifications is the size of the session's notification
	// channel (mcp-go's StdioServer uses 100).
	stdioNotifications = 100
)

// ServeStdio serves s to one client over a stdio stream pair: JSON-RPC
// messages, one per line, are read from in (normally os.Stdin) and the
// answers and notifications are written to out (normally os.Stdout). It
// returns when in ends (nil at io.EOF, once the answers are written) or
// ctx ends (ctx's error), once the requests in flight have returned (their
// context is cancelled) — a read blocked on in is not interrupted by ctx;
// closing in ends it. Likewise a write blocked on out: its goroutine stays
// until out accepts or fails.
//
// Every message is handled by s.HandleMessage, as mcp-go's
// server.ServeStdio does; what differs is the writing. A tools/call result
// is written without being encoded again: content blocks and
// structuredContent that a handler passed as bytes (a *Result forwarded
// from a downstream session through [Serve], a generated handler's
// encoded value) are written as they are, so forwarding a result costs no
// copy of it (mcp-go's StdioServer allocates about 3.5 times its size to
// answer it). The JSON a client
// reads is the same as mcp-go's, member for member. At most 8 tools/call
// requests run at once (a result is held until it is queued, behind at
// most one being written and one queued, so this bounds the results held
// at once); other requests and notifications are
// not held back by them. At most 256 requests are in flight: a request
// beyond them is answered at once with error -32000. Answers and
// notifications are written from one goroutine through a bounded queue
// (mcpconn.WriteQueue): a client that stops reading its stdout holds at
// most that queue and those 256 requests (the read loop then waits for
// room to answer), and a handler's request to the client returns when its
// context ends.
//
// The session records the client's info, capabilities, negotiated
// protocol version and log level (server.SessionWithClientInfo,
// SessionWithLogging, SessionWithProtocolVersion), carries the server's
// notifications, and sends the server's sampling, elicitation and roots
// requests to the client (SessionWithSampling, SessionWithElicitation,
// SessionWithRoots: protocol versions before 2026-07-28), each waiting for
// the client's answer or for its context. Use signal.NotifyContext for
// ctx to stop on SIGTERM, as server.ServeStdio does.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer) error {
	return serveStdio(ctx, s, in, out, 0)
}

// serveStdio is ServeStdio. With grace > 0, the requests in flight when in
// ends or ctx ends keep running, their context not cancelled, for up to
// grace (then it is cancelled), and the answers are written within another
// grace; with grace 0 they are cancelled at once.
func serveStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, grace time.Duration) error {
	q := mcpconn.NewWriteQueue(out)
	defer q.Close()
	ss := &stdioServer{srv: s, out: q, calls: make(chan struct{}, stdioToolCalls), requests: make(chan struct{}, stdioRequests)}
	sess := &stdioSession{
		notifications: make(chan mcp.JSONRPCNotification, stdioNotifications),
		send:          func(ctx context.Context, b []byte) error { return ss.writePieces(ctx, b) },
		pending:       map[int64]chan clientAnswer{},
	}
	ss.sess = sess
	sess.id = fmt.Sprintf("stdio-%p", sess)
	if err := s.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("composition: serving over stdio: %w", err)
	}
	defer s.UnregisterSession(ctx, sess.id)
	outer := ctx
	base := ctx
	if grace > 0 {
		base = context.WithoutCancel(ctx) // in-flight calls outlive outer by up to grace
	}
	ctx, cancel := context.WithCancel(s.WithContext(base, sess))
	defer cancel()

	var wg, requests sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case n := <-sess.notifications:
				ss.write(ctx, n)
			case <-ctx.Done():
				return
			}
		}
	})
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(in, stdioReadBuffer)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	var err error
loop:
	for {
		select {
		case line := <-lines:
			ss.handle(ctx, line, &requests)
		case rerr := <-readErr:
			if !errors.Is(rerr, io.EOF) {
				err = fmt.Errorf("composition: reading stdin: %w", rerr)
			}
			break loop
		case <-outer.Done():
			err = outer.Err()
			break loop
		}
	}
	drainCtx := outer
	if grace > 0 {
		waitGrace(&requests, grace)
		var stop context.CancelFunc
		drainCtx, stop = context.WithTimeout(base, grace)
		defer stop()
	}
	cancel()
	requests.Wait()
	wg.Wait()
	if err == nil || grace > 0 {
		// The answers are queued: wait for them to be written (a client
		// that does not read them holds this until outer ends, or for
		// grace).
		if derr := q.Drain(drainCtx); derr != nil && err == nil {
			err = fmt.Errorf("composition: writing stdout: %w", derr)
		}
	}
	return err
}

// waitGrace waits for wg, at most for d.
func waitGrace(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// stdioServer is one ServeStdio.
type stdioServer struct {
	srv   *server.MCPServer
	sess  *stdioSession
	calls chan struct{} // a slot per tools/call running
	// requests is a slot per request in flight; the read loop waits for
	// one.
	requests chan struct{}
	out      *mcpconn.WriteQueue
}

// handle handles one message from the client. Notifications are handled
// in order on the read loop (notifications/initialized must come before the
// requests that follow it); requests on their own goroutines.
func (ss *stdioServer) handle(ctx context.Context, line []byte, wg *sync.WaitGroup) {
	var head struct {
		ID     json.RawMessage          `json:"id"`
		Method string                   `json:"method"`
		Result json.RawMessage          `json:"result"`
		Error  *mcp.JSONRPCErrorDetails `json:"error"`
	}
	switch err := json.Unmarshal(line, &head); {
	case err != nil:
		ss.answer(ctx, nil, line) // HandleMessage answers the parse error
		return
	case head.Method == "" && (head.Result != nil || head.Error != nil):
		ss.sess.answered(head.ID, head.Result, head.Error)
		return
	case len(head.ID) == 0 || string(head.ID) == "null":
		ss.answer(ctx, nil, line) // a notification
		return
	}
	var id any
	_ = json.Unmarshal(head.ID, &id)
	select {
	case ss.requests <- struct{}{}:
	default:
		ss.write(ctx, errorResponse(id, errBusy, fmt.Sprintf("composition: too many requests in flight (%d); send it again once some are answered", stdioRequests)))
		return
	}
	wg.Go(func() {
		defer func() { <-ss.requests }()
		if head.Method == string(mcp.MethodToolsCall) {
			select {
			case ss.calls <- struct{}{}:
				defer func() { <-ss.calls }()
			case <-ctx.Done():
				return
			}
		}
		ss.answer(ctx, id, line)
	})
}

// answer runs HandleMessage on line and writes its response, if any. A
// panicking handler is answered with an internal error carrying the
// request's id (none for a notification).
func (ss *stdioServer) answer(ctx context.Context, id any, line []byte) {
	var resp mcp.JSONRPCMessage
	func() {
		defer func() {
			if p := recover(); p != nil && id != nil {
				resp = errorResponse(id, mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", p))
			}
		}()
		// A forwarded call's JSON-RPC error keeps the downstream's code
		// (see Forwarding): its handler records it in the slot.
		slot := &rpcErrorSlot{}
		resp = forwardedErrorResponse(ss.srv.HandleMessage(context.WithValue(ctx, rpcErrorKey{}, slot), line), slot)
	}()
	if resp != nil {
		ss.write(ctx, resp)
	}
}

// errorResponse is a JSON-RPC error response.
func errorResponse(id any, code int, message string) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, message, nil)}
}

// write writes msg and a newline. A tools/call result is written by
// callResultPieces; anything else is json.Marshal'ed (as mcp-go's
// StdioServer does). A response that cannot be encoded is answered with an
// internal error instead (mcp-go's would write nothing, and the request
// would wait forever).
func (ss *stdioServer) write(ctx context.Context, msg mcp.JSONRPCMessage) {
	if resp, ok := msg.(mcp.JSONRPCResponse); ok {
		if r := callToolResult(resp.Result); r != nil {
			pieces, err := callResultPieces(resp.ID, r)
			if err == nil {
				_ = ss.writePieces(ctx, pieces...)
				return
			}
			msg = errorResponse(resp.ID.Value(), mcp.INTERNAL_ERROR, "composition: encoding the tool result: "+err.Error())
		}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		resp, ok := msg.(mcp.JSONRPCResponse)
		if !ok {
			return // a notification that does not encode is dropped
		}
		if b, err = json.Marshal(errorResponse(resp.ID.Value(), mcp.INTERNAL_ERROR, "composition: encoding the response: "+err.Error())); err != nil {
			return
		}
	}
	_ = ss.writePieces(ctx, b)
}

// writePieces queues pieces and a newline as one line, waiting for room
// in the write queue at most until ctx ends (a client that stops reading
// holds no caller past its context). After a failed write nothing more is
// written (the client has gone): it returns that write's error.
func (ss *stdioServer) writePieces(ctx context.Context, pieces ...[]byte) error {
	return ss.out.Send(ctx, append(pieces, []byte{'\n'})...)
}

// callToolResult returns the tools/call result a response carries, or nil.
func callToolResult(result any) *mcp.CallToolResult {
	switch r := result.(type) {
	case *mcp.CallToolResult:
		return r
	case mcp.CallToolResult:
		return &r
	}
	return nil
}

// callResultPieces returns the JSON-RPC response carrying r, in pieces to
// be written one after another: the same members as json.Marshal of
// mcp-go's response (CallToolResult.MarshalJSON, whose keys come out
// sorted), in the same order, but the content blocks that are raw bytes
// (rawContent) and RawStructuredContent are pieces of their own, not
// copied. Everything else (the id, _meta, resultType, isError, other
// blocks) is encoded by encoding/json and mcp-go as before.
//
// Writing the envelope {"jsonrpc":"2.0","id":…,"result":{…}} around the
// pieces is the least that avoids the copies: encoding/json buffers and
// compacts whatever a MarshalJSON method returns, so no value handed to
// mcp-go or encoding/json can reach the wire without being copied, and
// mcp-go takes no pre-encoded response.
func callResultPieces(id mcp.RequestId, r *mcp.CallToolResult) ([][]byte, error) {
	rest := *r
	rest.Content = nil
	var structured []byte
	if len(r.RawStructuredContent) > 0 {
		raw, err := wireJSON(r.RawStructuredContent, false)
		if err != nil {
			return nil, fmt.Errorf("structuredContent: %w", err)
		}
		structured = raw
		rest.RawStructuredContent, rest.StructuredContent = nil, nil
	}
	restJSON, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	members, err := rawjson.Members(restJSON)
	if err != nil {
		return nil, err
	}
	if structured != nil {
		members = append(members, rawjson.Member{Key: "structuredContent"})
		slices.SortStableFunc(members, func(a, b rawjson.Member) int { return strings.Compare(a.Key, b.Key) })
	}
	idJSON, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	pieces := [][]byte{[]byte(`{"jsonrpc":"2.0","id":`), idJSON, []byte(`,"result":{`)}
	for i, m := range members {
		head := rawjson.Key(m.Key)
		if i > 0 {
			head = append([]byte{','}, head...)
		}
		pieces = append(pieces, append(head, ':'))
		switch m.Key {
		case "content":
			pieces = append(pieces, []byte{'['})
			for j, c := range r.Content {
				if j > 0 {
					pieces = append(pieces, []byte{','})
				}
				b, err := blockJSON(c)
				if err != nil {
					return nil, fmt.Errorf("content block %d: %w", j, err)
				}
				pieces = append(pieces, b)
			}
			pieces = append(pieces, []byte{']'})
		case "structuredContent":
			if structured != nil {
				pieces = append(pieces, structured)
				continue
			}
			pieces = append(pieces, m.Value)
		default:
			pieces = append(pieces, m.Value)
		}
	}
	return append(pieces, []byte(`}}`)), nil
}

// blockJSON is one content block as written: a rawContent's bytes as they
// are (plainResult made it of bytes json.Valid accepted, so they are not
// scanned again), anything else through encoding/json.
func blockJSON(c mcp.Content) ([]byte, error) {
	if rc, ok := c.(rawContent); ok {
		return wireJSON(rc.raw, true)
	}
	return json.Marshal(c)
}

// wireJSON returns raw, which is written inside one line: raw itself when
// it has no line break (always, for bytes a stdio session received), else
// compacted (a copy: line breaks between tokens, as a pretty-printing HTTP
// server sends). It fails when raw is not JSON (checked unless valid says
// it was).
func wireJSON(raw []byte, valid bool) ([]byte, error) {
	if bytes.IndexAny(raw, "\r\n") >= 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if !valid && !json.Valid(raw) {
		return nil, errors.New("not valid JSON")
	}
	return raw, nil
}

// stdioSession is the mcp-go client session of one ServeStdio.
type stdioSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	send          func(context.Context, []byte) error // queues one line to the client

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan clientAnswer // server-to-client requests by id

	initialized  atomic.Bool
	logLevel     atomic.Value // mcp.LoggingLevel
	clientInfo   atomic.Value // mcp.Implementation
	capabilities atomic.Value // mcp.ClientCapabilities
	version      atomic.Value // string
}

// SessionID identifies the session to mcp-go (unique per ServeStdio).
func (s *stdioSession) SessionID() string { return s.id }

// NotificationChannel carries the server's notifications to the client.
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

// Initialize marks the session initialized (mcp-go calls it on initialize).
func (s *stdioSession) Initialize() { s.initialized.Store(true) }

// Initialized reports whether initialize has been handled.
func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

// SetLogLevel records the client's logging/setLevel.
func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }

// GetLogLevel is the client's log level (error until it sets one, as
// mcp-go's stdio session).
func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

// GetClientInfo is the clientInfo of the client's initialize.
func (s *stdioSession) GetClientInfo() mcp.Implementation {
	v, _ := s.clientInfo.Load().(mcp.Implementation)
	return v
}

// SetClientInfo records the client's clientInfo.
func (s *stdioSession) SetClientInfo(info mcp.Implementation) { s.clientInfo.Store(info) }

// GetClientCapabilities is the capabilities of the client's initialize.
func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	v, _ := s.capabilities.Load().(mcp.ClientCapabilities)
	return v
}

// SetClientCapabilities records the client's capabilities.
func (s *stdioSession) SetClientCapabilities(c mcp.ClientCapabilities) { s.capabilities.Store(c) }

// ProtocolVersion is the version negotiated by initialize ("" before).
func (s *stdioSession) ProtocolVersion() string {
	v, _ := s.version.Load().(string)
	return v
}

// SetProtocolVersion records the negotiated version (mcp-go calls it).
func (s *stdioSession) SetProtocolVersion(v string) { s.version.Store(v) }

var (
	_ server.SessionWithLogging         = (*stdioSession)(nil)
	_ server.SessionWithClientInfo      = (*stdioSession)(nil)
	_ server.SessionWithProtocolVersion = (*stdioSession)(nil)
)

// clientAnswer is the client's response to a server-to-client request.
type clientAnswer struct {
	result json.RawMessage
	err    *mcp.JSONRPCErrorDetails
}

// answered hands the client's response with the given id to the request
// waiting for it; a response nothing waits for is dropped.
func (s *stdioSession) answered(rawID json.RawMessage, result json.RawMessage, rpcErr *mcp.JSONRPCErrorDetails) {
	var id int64
	if json.Unmarshal(rawID, &id) != nil {
		return
	}
	s.mu.Lock()
	ch := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- clientAnswer{result: result, err: rpcErr} // buffered 1, sent once
	}
}

// request sends a request to the client and decodes its result into out,
// waiting for the answer or for ctx (which ends with the ServeStdio).
func (s *stdioSession) request(ctx context.Context, method mcp.MCPMethod, params, out any) error {
	id := s.nextID.Add(1)
	ch := make(chan clientAnswer, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, id, string(method), params})
	if err != nil {
		return fmt.Errorf("composition: encoding the %s request: %w", method, err)
	}
	if err := s.send(ctx, b); err != nil {
		return fmt.Errorf("composition: sending the %s request to the client: %w", method, err)
	}
	select {
	case a := <-ch:
		if a.err != nil {
			return fmt.Errorf("composition: the client answered %s with error %d %q", method, a.err.Code, a.err.Message)
		}
		if err := json.Unmarshal(a.result, out); err != nil {
			return fmt.Errorf("composition: the client's answer to %s: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RequestSampling sends sampling/createMessage to the client and returns
// its answer.
func (s *stdioSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := s.request(ctx, mcp.MethodSamplingCreateMessage, req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		// mcp-go's error quotes the client's content type as it is.
		return nil, textsafe.Error(fmt.Errorf("composition: the client's answer to %s: %w", mcp.MethodSamplingCreateMessage, err))
	}
	res.Content = content
	return &res, nil
}

// RequestElicitation sends elicitation/create to the client and returns
// its answer.
func (s *stdioSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := s.request(ctx, mcp.MethodElicitationCreate, req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots sends roots/list to the client and returns its answer.
func (s *stdioSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := s.request(ctx, mcp.MethodListRoots, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

var (
	_ server.SessionWithSampling    = (*stdioSession)(nil)
	_ server.SessionWithElicitation = (*stdioSession)(nil)
	_ server.SessionWithRoots       = (*stdioSession)(nil)
)
