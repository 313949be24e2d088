package composition

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/redact"
)

// Call describes one tool call to an [Interceptor] and in log records.
type Call struct {
	// Server names the server: its id in a [Registry], else the command of
	// a stdio server or the URL of an HTTP server without user
	// information, query or fragment (as [Transport.String]).
	Server string
	// Tool is the tool's name as the server lists it.
	Tool string
	// Args are the arguments as the caller gave them (a generated Args
	// value, a map, a json.RawMessage, or nil), before encoding. An
	// interceptor may read them, or call next with other Args: those are
	// what is encoded and sent, since encoding is at the end of the chain.
	// mcpbind never logs them.
	Args any
	// Request is the tools/call request as it is sent: interceptors add
	// _meta entries to it (trace context) and, once next returns, read the
	// JSON-RPC id it was sent with. All the interceptors of one call share
	// it. Nil when the session has no interceptor.
	Request *Request
	// Peer describes the session the call goes over.
	Peer Peer
}

// Meta is the _meta object of a request's params (MCP specification,
// basic protocol, "_meta"), key by key as raw JSON. Its Get, Set and Keys
// methods make it an OpenTelemetry propagation.TextMapCarrier.
type Meta = bindimpl.Meta

// Request is the tools/call request of one call, shared by the call's
// interceptors ([Call.Request]).
type Request struct {
	// Meta is the request's params._meta: entries set before the end of
	// the chain are sent. Keys the protocol reserves
	// (io.modelcontextprotocol/…) are set by the session and not taken
	// from here.
	Meta Meta
	// ID is the JSON-RPC id the request was sent with, as text ("7");
	// "" until it is sent, when it was not sent, and when the SDK does not
	// show it (composition/gosdk shows it over its Transport wrapper only).
	ID string
}

// Peer describes a session's connection, in the terms of the OpenTelemetry
// MCP semantic conventions.
type Peer struct {
	// Transport is [TransportStdio], [TransportStreamableHTTP],
	// [TransportSSE] or [TransportInProcess]; "" when unknown.
	Transport string
	// ProtocolVersion is the negotiated MCP protocol version.
	ProtocolVersion string
	// SessionID is the MCP session id (Streamable HTTP's Mcp-Session-Id);
	// "" when the session has none (stdio, 2026-07-28's stateless HTTP).
	SessionID string
	// Address and Port are the host and port of an HTTP server's URL
	// (the scheme's default port when the URL names none); "" and 0 for
	// stdio and in-process sessions.
	Address string
	Port    int
}

// EventKind says what an [Event] reports.
type EventKind int

// The kinds of [Event].
const (
	// EventSessionStart: a session was made (Connect, NewSession, or a
	// registry's connect or reconnect), reported once its digest checks
	// passed; Event.Duration is the handshake's (Connect: from the start
	// of the process or the first request to the end of initialize or
	// server/discover; 0 for NewSession, whose handshake the SDK made
	// before).
	EventSessionStart EventKind = iota + 1
	// EventSessionEnd: a session was closed or lost, reported once, when
	// it is known (a lost HTTP session: at the request that found it
	// lost); Event.Duration is its life from the start of Connect (or
	// from NewSession), Event.Err why it ended: nil for Close, else the
	// loss (an error matching [ErrSessionLost]).
	EventSessionEnd
	// EventReconnect: a registry call waited for its server to be
	// reconnected after a lost session (one the call lost, or found
	// lost or reconnecting); Event.Duration is the wait,
	// Event.Err the reconnect's failure (or the call's ctx ending), if
	// any.
	EventReconnect
	// EventRetry: a registry call is sent again on a new session;
	// Event.MayHaveRun says whether the first attempt may have run.
	EventRetry
)

// Event is something that happened to a session or to a registry call,
// for [WithEvents]: telemetry (composition/otelmcp) turns session events
// into the session-duration histograms and registry events into span
// events of the call's span.
type Event struct {
	Kind EventKind
	// Server names the server as Call.Server does.
	Server string
	// Tool is the tool of a registry call's event; "" for session events.
	Tool string
	// Peer describes the session (for EventReconnect and EventRetry, the
	// new one, when there is one).
	Peer Peer
	// Duration is what the kind says; 0 when none.
	Duration time.Duration
	// Err is what the kind says; nil when none.
	Err error
	// MayHaveRun is EventRetry's: the first attempt may have run.
	MayHaveRun bool
}

// Invoker carries out a call: the next interceptor, or at the end of the
// chain the tools/call request itself (argument encoding, WithArgsValidation,
// the pin check, the request, isError). Its result and error are those of
// [Session.CallResult]; envelope unwrapping, WithResultValidation and
// decoding into the caller's value come after the chain, so an interceptor
// that replaces the result replaces what is decoded.
type Invoker func(ctx context.Context, call Call) (*Result, error)

// Interceptor wraps every tool call of a session, like a gRPC unary client
// interceptor: it may look at the call, change ctx (for a tracing span) or
// the call's Args, call next (or not), and look at or replace the result and
// error. It must be safe for concurrent use.
type Interceptor func(ctx context.Context, call Call, next Invoker) (*Result, error)

// observeConfig holds the options of this file; sessions keep a copy.
type observeConfig struct {
	logger       *slog.Logger
	interceptors []Interceptor
	// events is WithEvents's callback, or nil.
	events func(context.Context, Event)
	// server overrides the session's name in Call.Server and log records
	// (a Registry sets the server's id).
	server string
}

// WithLogger makes sessions and registries log to l: every connect and
// reconnect (server, transport, negotiated protocol version, duration,
// error), a lost session, and the start (Debug) and end (Debug, or Warn
// with the error) of every tool call with its server, tool and duration.
// Records never hold argument values or results; errors are those of the
// session, redacted of header values, environment values, tokens and URL
// credentials.
// Nil (the default) logs nothing.
func WithLogger(l *slog.Logger) Option {
	return Option{apply: func(c *config) { c.observe.logger = l }}
}

// WithInterceptor adds an interceptor to every tool call ([Session.Invoke],
// [Session.CallResult], generated clients, and calls through a [Registry],
// once per attempt when a registry retries). Interceptors run in
// the order given: the first one added is the outermost, and its next runs
// the second, as with grpc.WithChainUnaryInterceptor. The call records of
// [WithLogger] enclose the whole chain.
func WithInterceptor(i Interceptor) Option {
	return Option{apply: func(c *config) {
		if i != nil {
			c.observe.interceptors = append(append([]Interceptor(nil), c.observe.interceptors...), i)
		}
	}}
}

// WithEvents makes sessions and registries report their [Event]s to f: the
// start and end of every session, and the reconnects and retries of
// registry calls. f gets the context of the call for a call's events; for
// a session's, the context of its Connect or NewSession (a registry's own
// for its sessions) without its cancellation. It must be quick and safe for
// concurrent use. A session watches for its end from a goroutine of its
// own only with WithEvents. Given to [NewRegistry], it applies to every
// server's sessions and calls. Callbacks add up, as interceptors do: each
// event goes to every f given, in the order given (so a telemetry option
// and a program's own WithEvents both see it). Nil reports nothing; so
// does no WithEvents (the default).
func WithEvents(f func(ctx context.Context, e Event)) Option {
	return Option{apply: func(c *config) {
		if f == nil {
			return
		}
		prev := c.observe.events
		if prev == nil {
			c.observe.events = f
			return
		}
		c.observe.events = func(ctx context.Context, e Event) {
			prev(ctx, e)
			f(ctx, e)
		}
	}}
}

// withServerName sets Call.Server and the name in log records; a Registry
// passes the server's id.
func withServerName(name string) Option {
	return Option{apply: func(c *config) { c.observe.server = name }}
}

// intercept runs call through the session's interceptors to last, logging
// its start and end.
func (s *Session) intercept(ctx context.Context, call Call, last Invoker) (*Result, error) {
	call.Server = s.observe.name(s.c.Server())
	call.Peer = s.callPeer()
	if len(s.observe.interceptors) > 0 {
		// Only then: a call without interceptors allocates nothing more.
		call.Request = &Request{Meta: Meta{}}
	}
	inv := last
	for i := len(s.observe.interceptors) - 1; i >= 0; i-- {
		ic, next := s.observe.interceptors[i], inv
		inv = func(ctx context.Context, c Call) (*Result, error) { return ic(ctx, c, next) }
	}
	l := s.observe.logger
	if l == nil {
		return inv(ctx, call)
	}
	start := time.Now()
	l.LogAttrs(ctx, slog.LevelDebug, "mcp call start", slog.String("server", call.Server), slog.String("tool", call.Tool))
	res, err := inv(ctx, call)
	attrs := []slog.Attr{slog.String("server", call.Server), slog.String("tool", call.Tool), slog.Duration("duration", time.Since(start))}
	if err != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "mcp call failed", append(attrs, slog.String("error", redact.Text(err.Error(), nil)))...)
	} else {
		l.LogAttrs(ctx, slog.LevelDebug, "mcp call end", attrs...)
	}
	return res, err
}

// name is the server's name for calls and logs.
func (o *observeConfig) name(fallback string) string {
	if o.server != "" {
		return o.server
	}
	return fallback
}

// warnLogged records msg as a warning of the session (Warnings,
// WithWarnings) and logs it at Warn level when there is a logger: the
// digest checks report changed tool definitions through it.
func (s *Session) warnLogged(msg string) {
	s.c.Warn(msg)
	if l := s.observe.logger; l != nil {
		l.LogAttrs(context.Background(), slog.LevelWarn, "mcp warning", slog.String("server", s.observe.name(s.c.Server())), slog.String("detail", msg))
	}
}
