package composition

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// ErrSessionLost is matched (errors.Is) by the error of a call that failed
// because the connection to the server is gone: a stdio server process that
// exited, an HTTP server that refuses or resets connections or answers
// HTTP 404 for the session id (the MCP specification's Streamable HTTP
// session management: the client must start a new session), or an HTTP+SSE
// event stream that ended. The error is a *[SessionLostError], whose Sent
// field says whether the call may have reached the server. A lost session
// stays lost: connect again (a [Registry] does so by itself).
var ErrSessionLost = mcpconn.ErrSessionLost

// RPCError is in the chain of a call's error (errors.As) when the server
// answered the request with a JSON-RPC error: its Code and Data as sent,
// and Message, the server's text, not escaped (the error's own text is
// escaped). Telemetry reads the code (error.type, rpc.response.status_code
// of the MCP semantic conventions) from it.
type RPCError = mcpconn.RPCError

// ErrSessionClosed is what [Session.Err] returns after [Session.Close].
var ErrSessionClosed = mcpconn.ErrSessionClosed

// Option configures [Connect]. Options that do not apply to the transport
// (WithEnv on HTTP, WithHeader on stdio) are ignored.
type Option struct {
	conn  []mcpconn.Option // options of the connection
	apply func(*config)    // an option of the session, or nil
}

// connOption is the composition Option of a connection option.
func connOption(o mcpconn.Option) Option { return Option{conn: []mcpconn.Option{o}} }

// config is what the session keeps of its options; the connection's
// options go to mcpconn.Dial.
type config struct {
	// validateArgs and validateResults switch on the checks of validation.go.
	validateArgs, validateResults bool
	// digest is the check of WithDigestCheck (digest.go).
	digest digestCheck
	// observe holds WithLogger and WithInterceptor (observe.go); backoff
	// holds WithBackoff (registry.go).
	observe observeConfig
	backoff backoff
	// pinRecheck is WithPinRecheck's interval (pin.go); 0: none.
	pinRecheck time.Duration
	// warn is WithWarnings's callback, for a session over a [ClientConn]
	// ([NewSession]); Connect passes it to mcpconn instead.
	warn func(string)
}

// newConfig splits opts into the session's config and the connection's
// options.
func newConfig(opts []Option) (config, []mcpconn.Option) {
	var c config
	var conn []mcpconn.Option
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&c)
		}
		conn = append(conn, o.conn...)
	}
	return c, conn
}

// Session is a connection to one MCP server, made by [Connect] (through
// mcp-go), or by an SDK adapter over another SDK's session ([NewSession];
// composition/gosdk for the official Go SDK). Its methods may be called
// from several goroutines at once. Close it when done.
type Session struct {
	c conn
	// validateArgs and validateResults are the validation options.
	validateArgs, validateResults bool
	// observe holds the logger and interceptors (observe.go).
	observe observeConfig
	// pins are the per-tool digests (pin.go); nil when no tool is pinned.
	pins *pinSet
	// peer is Call.Peer, computed when the session is made (peerOf).
	peer Peer
}

// Connect starts (stdio) or reaches (HTTP) the server and performs the MCP
// handshake through mcp-go's client: server/discover for 2026-07-28 servers,
// else initialize/initialized (see [WithProtocolVersion]).
//
// ctx bounds the handshake only: when it ends first, Connect stops the server
// process and returns promptly. The session itself outlives ctx. A server
// that ignores the server/discover probe costs up to [WithDiscoverTimeout]
// (default five seconds) before the initialize fallback, unless ctx ends
// sooner.
//
// Older servers are handled as the MCP specification says, each step
// reported as a warning (see [WithWarnings]): a stdio server that exits (or
// stays silent and then exits) when probed with server/discover is started
// again and asked for initialize at the newest version before 2026-07-28;
// an HTTP server whose initialize POST fails with HTTP 400, 404 or 405 is
// reached over the legacy HTTP+SSE transport (see [HTTP]).
//
// Every failure is a *[ConnectError]. For stdio servers its message says
// whether the process could not be started, exited (with its exit status),
// or wrote output that is not JSON-RPC, and keeps the end of its stderr in
// the error's Stderr (out of the message: see [StderrTail]);
// for HTTP servers it gives the HTTP status of a failed answer.
func Connect(ctx context.Context, t Transport, opts ...Option) (*Session, error) {
	cfg, connOpts := newConfig(opts)
	start := time.Now()
	c, err := mcpconn.Dial(ctx, t, connOpts...)
	if err != nil {
		return nil, err
	}
	return newSession(ctx, c, &cfg, start, time.Since(start))
}

// newSession is the Session over c with the session options of cfg, once
// the digest check of WithDigestCheck (digest.go) has passed. start is when
// the session began (before its handshake, for Connect), handshake how long
// the handshake took (0 when unknown): WithEvents's EventSessionStart
// reports it, and EventSessionEnd the life from start.
func newSession(ctx context.Context, c conn, cfg *config, start time.Time, handshake time.Duration) (*Session, error) {
	s := &Session{c: c, validateArgs: cfg.validateArgs, validateResults: cfg.validateResults, observe: cfg.observe, peer: peerOf(c)}
	s, err := s.checkDigest(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if s.observe.events != nil {
		s.reportLife(context.WithoutCancel(ctx), start, handshake)
	}
	return s, nil
}

// ClientConn is a connection to one MCP server made through another MCP
// SDK than mcp-go, for SDK adapters such as composition/gosdk: [NewSession]
// makes a [Session] of it, and the session's calls then go through the
// same pipeline as over [Connect] (argument validation, pinning,
// interceptors, envelope unwrapping by ProtocolVersion, decoding). It is
// not meant for application code, which uses [Connect] or an adapter.
//
// Its methods may be called from several goroutines at once. Errors that
// quote the server (JSON-RPC error messages) may hold its text raw: the
// Session escapes them. A request that fails because the connection is gone
// returns an error matching [ErrSessionLost], best a *[SessionLostError].
type ClientConn interface {
	// CallToolRaw sends tools/call for the tool call.Name with call.Args, a
	// JSON object sent as is, and call.Meta's entries (when not empty) in
	// the request's params._meta next to the reserved ones the SDK adds;
	// it sets *call.ID (when not nil) to the request's JSON-RPC id, once
	// known, before it returns. It returns the result object exactly as
	// the server sent it. isError: true is a result, not an error; a
	// JSON-RPC error response is an error with a *[RPCError] in its chain.
	CallToolRaw(ctx context.Context, call RawCall) (json.RawMessage, error)
	// ListToolsRaw lists every tool of the server (all pages, in the
	// server's order), each tool object exactly as sent: pinning digests
	// the RFC 8785 canonical form of these bytes.
	ListToolsRaw(ctx context.Context) ([]json.RawMessage, error)
	// OnToolsListChanged has changed called (from any goroutine) whenever
	// the server sends notifications/tools/list_changed, until life ends;
	// pinning re-checks the tools then. ended, if the notifications stop
	// while life has not ended, says why (a warning of the session). An
	// error means the notifications cannot be received at all: the pinned
	// tools are then checked only when the session starts and by
	// [WithPinRecheck].
	OnToolsListChanged(life context.Context, changed func(), ended func(error)) error
	// ProtocolVersion is the negotiated MCP protocol version, such as
	// "2025-06-18" or "2026-07-28"; it decides the envelope rules.
	ProtocolVersion() string
	// Server names the server in messages (no secrets in it).
	Server() string
	// Transport names the transport, such as [TransportStdio], or the SDK
	// ([Session.Transport]).
	Transport() string
	// PeerInfo names the transport the connection really runs over
	// ([TransportStdio], [TransportStreamableHTTP], [TransportSSE],
	// [TransportInProcess]; "" when unknown) and, over HTTP, the host and
	// port of the server's URL (the scheme's default port when the URL
	// names none; never user information); "" and 0 otherwise. It is
	// [Call.Peer]'s.
	PeerInfo() (transport, host string, port int)
	// SessionID is the MCP session id (Streamable HTTP's Mcp-Session-Id);
	// "" when the session has none.
	SessionID() string
	// ServerInfo and Capabilities are the server's Implementation and
	// capabilities objects (nil when unknown); Instructions is its
	// instructions text.
	ServerInfo() json.RawMessage
	Capabilities() json.RawMessage
	Instructions() string
	// Done is closed when the connection is lost or closed; Err then says
	// which (an error matching [ErrSessionLost], or [ErrSessionClosed]).
	Done() <-chan struct{}
	Err() error
	// Close ends the connection; calling it again returns the first
	// result.
	Close() error
}

// NewSession makes a [Session] of a connection made through another MCP
// SDK; it is for SDK adapters (composition/gosdk's NewSession calls it),
// not for application code. The Session owns c: [Session.Close] closes it.
//
// The options of the session apply: [WithArgsValidation],
// [WithResultValidation], [WithInterceptor], [WithLogger], [WithEvents]
// (EventSessionStart without a duration: the SDK made the handshake),
// [WithWarnings], [WithDigestCheck], [WithPins] and [WithPinRecheck] (the digest
// checks run here, as in Connect: under [DigestFail] a server whose tools
// changed makes NewSession close c and fail). The options of a transport
// or handshake ([WithEnv], [WithHeader], [WithProtocolVersion],
// [WithMaxPages], [WithMaxResponseBytes], …) are the SDK's business and are
// ignored.
func NewSession(ctx context.Context, c ClientConn, opts ...Option) (*Session, error) {
	cfg, _ := newConfig(opts)
	return newSession(ctx, &sdkConn{ClientConn: c, warn: cfg.warn}, &cfg, time.Now(), 0)
}

// RawCall is one tools/call request for [ClientConn.CallToolRaw]: a value,
// so that passing it allocates nothing.
type RawCall = mcpconn.RawCall

// peerOf is the Peer of a session over c.
func peerOf(c conn) Peer {
	transport, host, port := c.PeerInfo()
	return Peer{Transport: transport, ProtocolVersion: c.ProtocolVersion(), SessionID: c.SessionID(), Address: host, Port: port}
}

// callPeer is Call.Peer: the session's peer, whose transport and address
// an SDK adapter may learn only once a request has passed (composition/gosdk
// without its Transport wrapper bound yet); those are asked again until
// known.
func (s *Session) callPeer() Peer {
	p := s.peer
	if p.Transport == "" {
		p.Transport, p.Address, p.Port = s.c.PeerInfo()
		p.SessionID = s.c.SessionID()
	}
	return p
}

// reportLife reports EventSessionStart now and, from a goroutine of its
// own, EventSessionEnd once the session is closed or lost (WithEvents
// only), with ctx.
func (s *Session) reportLife(ctx context.Context, start time.Time, handshake time.Duration) {
	f, server := s.observe.events, s.observe.name(s.c.Server())
	f(ctx, Event{Kind: EventSessionStart, Server: server, Peer: s.peer, Duration: handshake})
	go func() {
		<-s.c.Done()
		err := s.c.Err()
		if errors.Is(err, ErrSessionClosed) {
			err = nil
		}
		f(ctx, Event{Kind: EventSessionEnd, Server: server, Peer: s.callPeer(), Duration: time.Since(start), Err: err})
	}()
}

// conn is what a Session needs of its connection: a *mcpconn.Conn, or an
// SDK adapter's ClientConn in an sdkConn.
type conn interface {
	ClientConn
	// Warn records a warning of the session (Session.Warnings) and passes
	// it to WithWarnings's callback.
	Warn(msg string)
	Warnings() []string
	// StderrTail is the end of a stdio server's stderr, "" when none.
	StderrTail() string
}

// sdkConn is a ClientConn with the warnings of its Session.
type sdkConn struct {
	ClientConn
	warn     func(string) // WithWarnings's callback, or nil
	mu       sync.Mutex
	warnings []string
}

// Warn records msg and passes it to the WithWarnings callback.
func (c *sdkConn) Warn(msg string) {
	c.mu.Lock()
	c.warnings = append(c.warnings, msg)
	c.mu.Unlock()
	if c.warn != nil {
		c.warn(msg)
	}
}

// Warnings returns the warnings recorded so far, nil when none.
func (c *sdkConn) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.warnings...)
}

// StderrTail is "": the SDK runs the server process, if any.
func (c *sdkConn) StderrTail() string { return "" }

// ProtocolVersion is the negotiated MCP protocol version, such as
// "2025-11-25" or "2026-07-28".
func (s *Session) ProtocolVersion() string { return s.c.ProtocolVersion() }

// Transport is [TransportStdio], [TransportStreamableHTTP], [TransportSSE]
// (also for an [HTTP] server reached through the HTTP+SSE fallback) or
// [TransportInProcess]; for a session over another SDK ([NewSession]) it
// is what the adapter names, such as "go-sdk" (composition/gosdk).
func (s *Session) Transport() string { return s.c.Transport() }

// ServerInfo is the server's Implementation object ({"name", "version", …})
// exactly as it sent it: initialize's serverInfo, or on 2026-07-28 the
// "io.modelcontextprotocol/serverInfo" entry of server/discover's _meta. Nil
// when the server sent none. The caller must not modify it.
func (s *Session) ServerInfo() json.RawMessage { return s.c.ServerInfo() }

// Capabilities is the server's capabilities object exactly as it sent it
// (from initialize, or server/discover on 2026-07-28). The caller must not
// modify it.
func (s *Session) Capabilities() json.RawMessage { return s.c.Capabilities() }

// Instructions is the server's instructions text, "" when it sent none.
func (s *Session) Instructions() string { return s.c.Instructions() }

// Warnings lists the warnings of this session (the same messages as
// [WithWarnings] receives), in order; nil when there were none.
func (s *Session) Warnings() []string { return s.c.Warnings() }

// Done is closed when the session is known to be lost (see
// [ErrSessionLost]) or has been closed.
func (s *Session) Done() <-chan struct{} { return s.c.Done() }

// Err is nil while the session is usable; afterwards it says why not: an
// error matching [ErrSessionLost], or [ErrSessionClosed].
func (s *Session) Err() error { return s.c.Err() }

// Close ends the session: for Streamable HTTP it ends a legacy protocol
// session with DELETE; for HTTP+SSE it closes the event stream; for stdio it
// closes the server's stdin, waits up to two seconds for it to exit, then
// sends SIGTERM and finally SIGKILL to its process group (see [Stdio]). It
// returns an error only when the process could not be stopped. Calling
// Close again returns the first result.
func (s *Session) Close() error { return s.c.Close() }

// ListToolsRaw lists every tool of the server, following nextCursor page by
// page, and returns each tool object exactly as the server sent it (same
// bytes, every field, schemas untouched), in the server's order.
//
// It fails, naming the server, the page and its cursor, when a request
// fails, a page is not an object with a "tools" array, a nextCursor is not a
// string, the server repeats a cursor it already gave, or there are more
// than [DefaultMaxPages] pages.
func (s *Session) ListToolsRaw(ctx context.Context) ([]json.RawMessage, error) {
	tools, err := s.c.ListToolsRaw(ctx)
	return tools, textsafe.Error(err) // a JSON-RPC error's message is the server's text
}
