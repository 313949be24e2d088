package composition

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// The server side's view of a request on mcp-go: the ServerCall a tools/call
// request makes, the chain that runs server interceptors around a plain
// mcp-go tool handler (ToolMiddleware, and Forwarding's tools), and the
// session events of ServerEvents.

// incoming is an mcp-go tools/call request as the [bindimpl.CallSource] of
// its [ServerCall]:
//
//   - Meta is params._meta (progressToken and the other members), each
//     value as mcp-go decoded it, encoded again (numbers as float64);
//   - ProtocolVersion is server.RequestProtocolVersion: the one a
//     2026-07-28 request declares, else the one its session negotiated;
//   - SessionID is the session id a client sees on the wire (wireSessionID):
//     Mcp-Session-Id over Streamable HTTP, the sessionId of the HTTP+SSE
//     endpoint; "" over stdio and in process, whose ids are mcp-go's own;
//   - RequestID is the JSON-RPC id, on servers with the hook that passes it
//     on ([Serve] with a [ServerInterceptor], or [ServerEvents], add it):
//     mcp-go gives a tool handler no other way to it;
//   - Transport follows the session's type: [TransportStdio] for
//     [ServeStdio] and [RunStdio] (and mcp-go's own stdio server),
//     [TransportStreamableHTTP], [TransportSSE], [TransportInProcess].
type incoming struct {
	tool string
	// meta is params._meta; id carries the JSON-RPC id (passRequestID).
	meta, id *mcp.Meta
}

// requestOf returns the incoming of req.
func requestOf(req *mcp.CallToolRequest) incoming {
	return incoming{tool: req.Params.Name, meta: req.Params.Meta, id: req.Request.Params.Meta}
}

// ServerCall returns the request's ServerCall; ctx is the handler's.
func (r incoming) ServerCall(ctx context.Context) ServerCall {
	call := ServerCall{Tool: r.tool, Meta: requestMeta(r.meta), ProtocolVersion: server.RequestProtocolVersion(ctx)}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		call.Transport = sessionTransport(s)
		call.SessionID = wireSessionID(s, call.Transport)
	}
	if r.id != nil {
		call.RequestID = mcpconn.IDText(r.id.ProgressToken)
	}
	return call
}

// incomingCtx is a tool handler's ctx carrying its request's incoming, for
// IncomingCall, in one allocation (the request is passed by value, so a
// pointer to it would copy it to the heap, and context.WithValue would
// allocate again).
type incomingCtx struct {
	context.Context
	incoming
}

// Value returns the request's CallSource (incomingCtx itself, whose
// ServerCall is incoming's) for IncomingCall's key, else what the parent
// holds.
func (c *incomingCtx) Value(key any) any {
	if bindimpl.IsIncomingKey(key) {
		return bindimpl.CallSource(c)
	}
	return c.Context.Value(key)
}

// requestMeta returns mcp-go's _meta key by key as JSON; nil when the
// request has none. A value that does not encode (mcp-go decoded it from
// JSON, so none) is left out.
func requestMeta(m *mcp.Meta) Meta {
	if m == nil {
		return nil
	}
	out := make(Meta, len(m.AdditionalFields)+1)
	if m.ProgressToken != nil {
		if b, err := json.Marshal(m.ProgressToken); err == nil {
			out["progressToken"] = b
		}
	}
	for k, v := range m.AdditionalFields {
		if b, err := json.Marshal(v); err == nil {
			out[k] = b
		}
	}
	return out
}

// sessionTransport names the transport of an mcp-go client session by its
// type; "" for a session type it does not know.
func sessionTransport(s server.ClientSession) string {
	switch s.(type) {
	case *stdioSession:
		return TransportStdio
	case *server.InProcessSession:
		return TransportInProcess
	}
	t := reflect.TypeOf(s)
	if t.Kind() != reflect.Pointer || t.Elem().PkgPath() != "github.com/mark3labs/mcp-go/server" {
		return ""
	}
	switch t.Elem().Name() { // mcp-go's unexported session types
	case "stdioSession":
		return TransportStdio
	case "streamableHttpSession":
		return TransportStreamableHTTP
	case "sseSession":
		return TransportSSE
	}
	return ""
}

// passRequestID is the hook (server.Hooks' BeforeCallTool) that hands the
// request's JSON-RPC id to the tool handler. mcp-go keeps the id from the
// handler, but runs this hook on the request before it copies it to the
// handler; the id rides in the request's embedded Request.Params.Meta,
// which CallToolRequest's own Params shadow (JSON never fills or sends it,
// and mcp-go never reads it). A second hook of the same kind leaves it.
func passRequestID(_ context.Context, id any, req *mcp.CallToolRequest) {
	if req.Request.Params.Meta == nil {
		req.Request.Params.Meta = &mcp.Meta{ProgressToken: id}
	}
}

// serverHooks returns s's hooks, giving s hooks first when it has none
// (keeping every hook the program set).
func serverHooks(s *server.MCPServer) *server.Hooks {
	h := s.GetHooks()
	if h == nil {
		h = &server.Hooks{}
		server.WithHooks(h)(s)
	}
	return h
}

// ServerEvents makes s report the start and end of each of its client
// sessions to f (EventSessionStart, and EventSessionEnd with the session's
// life in Duration, from mcp-go's registering of the session to its
// unregistering), through s's mcp-go hooks (server.Hooks'
// OnRegisterSession and OnUnregisterSession, added to those s has; s is
// given hooks when it has none). Event.Peer has the session's Transport
// and SessionID, and its ProtocolVersion once negotiated (so at the end,
// and at the start of a session that registers after initialize);
// Event.Server is "". Sessions are mcp-go's: a stdio or in-process
// connection is one; over Streamable HTTP, a session opened with
// initialize (registered then, unregistered at the client's DELETE or the
// server's close), while 2026-07-28 clients over HTTP, which mcp-go serves
// without a session, make no events. It also makes the JSON-RPC ids of tools/call
// requests known to [ToolMiddleware]'s interceptors (ServerCall.RequestID).
// f may be nil for that alone. Call it once per server, before it serves
// and after any server.WithHooks.
func ServerEvents(s *server.MCPServer, f func(ctx context.Context, e Event)) {
	h := serverHooks(s)
	h.AddBeforeCallTool(passRequestID)
	if f == nil {
		return
	}
	var mu sync.Mutex
	started := map[server.ClientSession]time.Time{}
	h.AddOnRegisterSession(func(ctx context.Context, sess server.ClientSession) {
		mu.Lock()
		started[sess] = time.Now()
		mu.Unlock()
		f(ctx, Event{Kind: EventSessionStart, Peer: sessionPeer(sess)})
	})
	h.AddOnUnregisterSession(func(ctx context.Context, sess server.ClientSession) {
		mu.Lock()
		t, ok := started[sess]
		delete(started, sess)
		mu.Unlock()
		if ok {
			f(ctx, Event{Kind: EventSessionEnd, Peer: sessionPeer(sess), Duration: time.Since(t)})
		}
	})
}

// wireSessionID is the id of session s when its client sees it on the wire
// (Streamable HTTP's Mcp-Session-Id, the HTTP+SSE endpoint's sessionId);
// "" for stdio and in-process sessions, whose ids mcp-go makes for its own
// bookkeeping (composition's stdio sessions are named by their address):
// as mcp.session.id they would be values no client ever saw.
func wireSessionID(s server.ClientSession, transport string) string {
	if transport != TransportStreamableHTTP && transport != TransportSSE {
		return ""
	}
	return s.SessionID()
}

// sessionPeer describes an mcp-go client session.
func sessionPeer(s server.ClientSession) Peer {
	p := Peer{Transport: sessionTransport(s)}
	p.SessionID = wireSessionID(s, p.Transport)
	if v, ok := s.(server.SessionWithProtocolVersion); ok {
		p.ProtocolVersion = v.ProtocolVersion()
	}
	return p
}

// ToolMiddleware runs interceptors around the tools a program adds to an
// mcp-go server itself (s.AddTool, with plain mcp-go handlers), as
// [WithServerInterceptor] does for the tools [Serve] adds: pass it to
// server.WithToolHandlerMiddleware. The interceptors see the same
// [ServerCall] (its RequestID once [ServerEvents] has been called on the
// server, or [Serve] given an interceptor: mcp-go shows the JSON-RPC id
// only to the hook they add) and the handler's ctx carries it
// ([IncomingCall], [RequestMeta]). The Answer they see is the handler's
// result (its content blocks, structuredContent, _meta and isError as
// JSON); unless an interceptor changes or replaces it, the handler's own
// result is sent, otherwise the Answer the interceptors return. A
// handler's error is the chain's error.
//
// It wraps every tool of the server, the ones [Serve] adds too: a call of
// one of those runs only the middleware's interceptors, not the ones
// given to Serve as well, so an interceptor passed to both runs once.
func ToolMiddleware(interceptors ...ServerInterceptor) server.ToolHandlerMiddleware {
	is := slices.DeleteFunc(slices.Clone(interceptors), func(i ServerInterceptor) bool { return i == nil })
	if len(is) == 0 {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return intercepted(is, next) }
}

// runKey is the context key of the *toolRun a chain of intercepted runs.
type runKey struct{}

// toolRun is one call an intercepted chain runs: the tools Serve adds
// find it (claim) and neither run their own interceptors nor have their
// answer converted back from mcp-go's result.
type toolRun struct {
	srv  *server.MCPServer
	name string
	args json.RawMessage
	// claimed is set by the handler the run reached.
	claimed atomic.Bool
	// answer is the answer of a Serve tool, set when answered.
	answer   bindimpl.Answer
	answered bool
	// result is the handler's mcp-go result and made the answer the
	// chain's end made of it (with its own copy of the block slice), set
	// when the chain reached the handler: the result is sent as it is
	// when the interceptors return made unchanged.
	result  *mcp.CallToolResult
	made    Answer
	reached bool
}

// claim returns the run in ctx whose call req is, marking it claimed; nil
// when there is none (no chain, or one of a call that made this one, in
// process: another server, tool or arguments).
func claim(ctx context.Context, req *mcp.CallToolRequest) *toolRun {
	run, _ := ctx.Value(runKey{}).(*toolRun)
	if run == nil || run.name != req.Params.Name || run.srv != server.ServerFromContext(ctx) || !sameRaw(run.args, req.Params.RawArguments) {
		return nil
	}
	if !run.claimed.CompareAndSwap(false, true) {
		return nil
	}
	return run
}

// sameAnswer reports whether a is b unchanged: the same flags and text,
// and the same bytes in memory for every block, structuredContent and
// _meta (not merely equal ones: an interceptor that rebuilt them changed
// the answer).
func sameAnswer(a, b Answer) bool {
	if a.IsError != b.IsError || a.Text != b.Text || !sameRaw(a.Structured, b.Structured) || !sameRaw(a.Meta, b.Meta) ||
		len(a.Blocks) != len(b.Blocks) || (a.Blocks == nil) != (b.Blocks == nil) {
		return false
	}
	for i := range a.Blocks {
		if !sameRaw(a.Blocks[i], b.Blocks[i]) {
			return false
		}
	}
	return true
}

// sameRaw reports whether x and y are the same bytes in memory (the
// request passed on, not a copy of it; an answer's part unchanged).
func sameRaw(x, y []byte) bool {
	if len(x) != len(y) || (x == nil) != (y == nil) {
		return false
	}
	return len(x) == 0 || &x[0] == &y[0]
}

// intercepted returns next run through is (not empty).
func intercepted(is []ServerInterceptor, next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if claim(ctx, &req) != nil {
			return next(ctx, req) // an outer chain runs the interceptors
		}
		run := &toolRun{srv: server.ServerFromContext(ctx), name: req.Params.Name, args: req.Params.RawArguments}
		call := requestOf(&req).ServerCall(ctx)
		call.Args = req.Params.RawArguments
		a, err := bindimpl.Intercept(context.WithValue(ctx, runKey{}, run), call, is, func(ctx context.Context, _ ServerCall) (Answer, error) {
			res, err := next(ctx, req)
			if err != nil {
				return Answer{}, err
			}
			a := run.answer
			if !run.answered {
				a = resultAnswer(res)
			}
			run.result, run.made, run.reached = res, a, true
			if a.Blocks != nil { // an interceptor replacing a block in a's array shows as a change
				run.made.Blocks = append(make([]json.RawMessage, 0, len(a.Blocks)), a.Blocks...)
			}
			return a, nil
		})
		if err != nil {
			return nil, err
		}
		if run.reached && sameAnswer(a, run.made) {
			return run.result, nil
		}
		res, err := answerResult(a)
		if err != nil || a.Blocks == nil {
			return res, err
		}
		return holdResult(ctx, req, res)
	}
}

// resultAnswer is an mcp-go tool result as an Answer: its content blocks,
// structuredContent and _meta as JSON. A part that does not encode is left
// out (mcp-go could not send it either). A nil result is an answer
// without content.
func resultAnswer(r *mcp.CallToolResult) Answer {
	if r == nil {
		return Answer{Blocks: []json.RawMessage{}}
	}
	a := Answer{Blocks: make([]json.RawMessage, 0, len(r.Content)), IsError: r.IsError}
	for _, c := range r.Content {
		if b, err := blockJSON(c); err == nil {
			a.Blocks = append(a.Blocks, b)
		}
	}
	switch {
	case r.RawStructuredContent != nil:
		a.Structured = r.RawStructuredContent
	case r.StructuredContent != nil:
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			a.Structured = b
		}
	}
	if r.Meta != nil {
		if b, err := json.Marshal(r.Meta); err == nil {
			a.Meta = b
		}
	}
	return a
}
