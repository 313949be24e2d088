package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// How Connect reaches a server, attempt by attempt.
//
// One attempt (dial) starts a transport and runs mcp-go's handshake: unless a
// version before 2026-07-28 is pinned, mcp-go probes with server/discover
// (bounded by the discover timeout) and, when the probe fails with anything
// but a 2026-07-28 error, falls back to initialize on the same connection.
// rawTransport notes what became of each handshake request (answered, or
// failed without an answer), and the HTTP round tripper the status of a
// failed initialize POST. From those notes connect decides on a second
// attempt:
//
//   - stdio: when the probe went unanswered (the process exited on it, or it
//     stayed silent past the discover timeout) and the initialize that mcp-go
//     sent next went unanswered too, the process is started again and asked
//     for initialize at the newest version before 2026-07-28, with no probe.
//     A server that ignored the probe but answered initialize needs no
//     second attempt; it is connected and warned about.
//   - Streamable HTTP: when the initialize POST failed with HTTP 400, 404 or
//     405, the URL is tried as the legacy HTTP+SSE transport (sse.go), as the
//     MCP specification's backwards-compatibility section prescribes.
//
// Each such step is reported to the WithWarnings callback and kept in
// Session.Warnings.

// DefaultDiscoverTimeout: see composition.DefaultDiscoverTimeout, which documents it for users.
const DefaultDiscoverTimeout = 5 * time.Second

// connConfig holds the options of connect.go, sse.go and oauth.go.
type connConfig struct {
	// discoverTimeout: 0 means DefaultDiscoverTimeout, < 0 no bound.
	discoverTimeout time.Duration
	warn            func(string)
	auth            authConfig
}

// probeTimeout is the bound on the server/discover probe, as mcp-go's
// client.WithDiscoverTimeout takes it (a negative value: none).
func (c *connConfig) probeTimeout() time.Duration {
	if c.discoverTimeout == 0 {
		return DefaultDiscoverTimeout
	}
	return c.discoverTimeout
}

// WithDiscoverTimeout: see composition.WithDiscoverTimeout, which documents it for users.
func WithDiscoverTimeout(d time.Duration) Option {
	return Option{func(c *config) { c.conn.discoverTimeout = d }}
}

// WithWarnings: see composition.WithWarnings, which documents it for users.
func WithWarnings(warn func(msg string)) Option {
	return Option{func(c *config) { c.conn.warn = warn }}
}

// Warnings returns the warnings of [Connect] for this session, in order (see
// [WithWarnings]); nil when the connection needed no workaround.
func (s *Conn) Warnings() []string {
	s.conn.mu.Lock()
	defer s.conn.mu.Unlock()
	return append([]string(nil), s.conn.warnings...)
}

// connState is the per-session state of connect.go and sse.go.
type connState struct {
	warnings     []string
	probeTimeout time.Duration

	// For HTTP+SSE: the error with which the event stream ended, if it has.
	mu         sync.Mutex
	streamLost error
}

// lost records that the HTTP+SSE event stream ended with err.
func (c *connState) lost(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streamLost == nil {
		if err == nil {
			err = errors.New("closed")
		}
		c.streamLost = err
	}
}

// lostErr returns how the HTTP+SSE event stream ended, or nil.
func (c *connState) lostErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streamLost
}

// outcomeKey is the context key of a *handshakeLog.
type outcomeKey struct{}

// handshakeLog notes what became of the handshake requests of one attempt.
type handshakeLog struct {
	mu sync.Mutex
	m  map[string]outcome
}

// outcome is what became of the last request of one method.
type outcome struct {
	answered bool  // a response arrived (a result or a JSON-RPC error)
	err      error // the transport's error when none did
}

func withHandshakeLog(ctx context.Context, l *handshakeLog) context.Context {
	return context.WithValue(ctx, outcomeKey{}, l)
}

// noteOutcome records, for the handshake log in ctx if any, whether a
// request of method was answered.
func noteOutcome(ctx context.Context, method string, resp *transport.JSONRPCResponse, err error) {
	l, ok := ctx.Value(outcomeKey{}).(*handshakeLog)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]outcome{}
	}
	l.m[method] = outcome{answered: err == nil && resp != nil, err: err}
}

// get returns the outcome of method and whether such a request was sent.
func (l *handshakeLog) get(method string) (outcome, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o, ok := l.m[method]
	return o, ok
}

// dialReport is what one attempt learned about the server.
type dialReport struct {
	probed         bool   // a server/discover probe was sent
	probeAnswered  bool   // it was answered (with a result or an error)
	probeTimedOut  bool   // it went unanswered until the discover timeout
	initSent       bool   // an initialize request was sent
	initAnswered   bool   // it was answered
	initHTTPStatus int    // the HTTP status of a failed initialize POST, or 0
	exited         string // how a stdio process that exited by itself ended
}

// connect makes the attempts described at the top of this file. cfg has been
// checked by Connect.
func connect(ctx context.Context, t Transport, cfg *config) (*Conn, error) {
	server := t.String()
	var auth *authState
	if t.kind == TransportStreamableHTTP || t.kind == TransportSSE {
		if u, err := url.Parse(t.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &ConnectError{Server: server, Stage: "config", Err: fmt.Errorf("not an http or https URL: %q", server)}
		}
		var err error
		if auth, err = newAuthState(&cfg.conn.auth, t.url); err != nil {
			return nil, &ConnectError{Server: server, Stage: "config", Err: err}
		}
		if auth != nil {
			// Fetch the first access token before the handshake, so that a
			// bad credential fails once, clearly, at stage "auth".
			if err := auth.prime(ctx); err != nil {
				return nil, &ConnectError{Server: server, Stage: "auth", Err: err}
			}
		}
	}
	var warnings []string
	warn := func(msg string) {
		warnings = append(warnings, msg)
		if cfg.conn.warn != nil {
			cfg.conn.warn(msg)
		}
	}
	done := func(s *Conn) (*Conn, error) {
		s.conn.warnings = warnings
		s.watch()
		return s, nil
	}

	switch t.kind {
	case TransportStdio:
		s, rep, err := dial(ctx, t, cfg, nil, TransportStdio, cfg.protocolVersion)
		if err == nil {
			if rep.probeTimedOut {
				warn(silentProbeWarning(server, cfg, s.version))
			}
			return done(s)
		}
		if !rep.probed || rep.probeAnswered || !rep.initSent || rep.initAnswered || ctx.Err() != nil {
			return nil, err
		}
		what := "did not answer the server/discover probe"
		switch {
		case rep.exited != "" && rep.probeTimedOut:
			what = fmt.Sprintf("did not answer the server/discover probe within %s, then exited (%s)", cfg.conn.probeTimeout(), rep.exited)
		case rep.exited != "":
			what = fmt.Sprintf("exited (%s) when probed with server/discover", rep.exited)
		case rep.probeTimedOut:
			what = fmt.Sprintf("did not answer the server/discover probe within %s, nor the initialize that followed", cfg.conn.probeTimeout())
		}
		s, rep2, err2 := dial(ctx, t, cfg, nil, TransportStdio, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		if err2 != nil {
			if rep.exited != "" && rep2.exited != "" && !rep2.initAnswered {
				return nil, err // it exits whatever it is asked: a start-up failure, not the probe's
			}
			return nil, retryFailed(err2, fmt.Sprintf("retried with initialize at %s after the server %s", mcp.LATEST_LEGACY_PROTOCOL_VERSION, what))
		}
		warn(fmt.Sprintf("server %s %s; started it again with initialize at protocol version %s, the newest before %s",
			server, what, mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.ProtocolVersion20260728))
		return done(s)

	case TransportStreamableHTTP:
		s, rep, err := dial(ctx, t, cfg, auth, TransportStreamableHTTP, cfg.protocolVersion)
		if err == nil {
			if rep.probeTimedOut {
				warn(silentProbeWarning(server, cfg, s.version))
			}
			return done(s)
		}
		st := rep.initHTTPStatus
		if (st != http.StatusBadRequest && st != http.StatusNotFound && st != http.StatusMethodNotAllowed) || ctx.Err() != nil {
			return nil, err
		}
		s, _, err2 := dial(ctx, t, cfg, auth, TransportSSE, sseVersion(cfg.protocolVersion))
		if err2 != nil {
			return nil, bothFailed(err, err2, st)
		}
		warn(fmt.Sprintf("server %s answered the initialize POST with HTTP %d %s, so it was reached over the legacy HTTP+SSE transport instead of Streamable HTTP (protocol version %s)",
			server, st, http.StatusText(st), s.version))
		return done(s)

	case TransportSSE:
		s, _, err := dial(ctx, t, cfg, auth, TransportSSE, sseVersion(cfg.protocolVersion))
		if err != nil {
			return nil, err
		}
		return done(s)

	case TransportInProcess:
		s, _, err := dial(ctx, t, cfg, nil, TransportInProcess, cfg.protocolVersion)
		if err != nil {
			return nil, err
		}
		return done(s)
	}
	return nil, &ConnectError{Server: server, Stage: "config", Err: errors.New("no transport: use composition.Stdio, composition.HTTP, composition.SSE or composition.InProcess")}
}

// silentProbeWarning says that the server ignored server/discover.
func silentProbeWarning(server string, cfg *config, version string) string {
	return fmt.Sprintf("server %s did not answer the server/discover probe within %s; it was taken for a server older than %s and connected with initialize (protocol version %s); pinning a protocol version skips the probe",
		server, cfg.conn.probeTimeout(), mcp.ProtocolVersion20260728, version)
}

// dial makes one attempt: it starts the transport of the given kind and runs
// the handshake, asking for version ("" for the newest). Every error is a
// *ConnectError.
func dial(ctx context.Context, t Transport, cfg *config, auth *authState, kind, version string) (*Conn, *dialReport, error) {
	s := newSession(t.String(), kind, cfg)
	s.conn.probeTimeout = cfg.conn.probeTimeout()
	rep := &dialReport{}
	var inner transport.Interface
	switch kind {
	case TransportStdio:
		proc, tr, err := startStdio(t.command, t.args, cfg)
		if err != nil {
			return nil, rep, &ConnectError{Server: s.server, Stage: "start", Err: fmt.Errorf("starting the server process: %w", err)}
		}
		// A limit, a message that cannot be parsed or a stalled stdin
		// leaves the stream out of step: the session is lost and the
		// process group ended.
		tr.lost = func(err error) {
			s.markLost(err, false)
			go func() { _ = proc.stop(false) }()
		}
		s.proc, inner = proc, tr
	case TransportStreamableHTTP, TransportSSE:
		u, err := url.Parse(t.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, rep, &ConnectError{Server: s.server, Stage: "config", Err: fmt.Errorf("not an http or https URL: %q", s.server)}
		}
		s.host, s.port = peerAddress(u)
		s.http = newHTTPRecorder()
		s.http.secrets = s.secrets
		s.http.maxResponseBytes = cfg.maxResponseBytes
		s.auth = auth
		var rt http.RoundTripper = s.http
		if auth != nil {
			s.http.unauthorized = auth.invalidate
			if auth.login != nil {
				rt = auth.login.wrap(s.http) // authcode.go
			}
		}
		if kind == TransportSSE {
			inner, err = newSSETransport(s, t.url, cfg, auth, rt)
		} else {
			opts := []transport.StreamableHTTPCOption{
				transport.WithHTTPHeaders(cfg.headers),
				transport.WithHTTPBasicClient(newHTTPClient(rt)),
				// mcp-go logs stream errors (with server text in them) to
				// slog.Default; what matters reaches the caller as errors.
				transport.WithHTTPLogger(slog.New(slog.DiscardHandler)),
			}
			if auth != nil && auth.login == nil {
				opts = append(opts, transport.WithHTTPOAuth(auth.oauthConfig()))
			}
			if v := cfg.protocolVersion; cfg.toolListStream && v != "" && v < mcp.ProtocolVersion20260728 {
				opts = append(opts, transport.WithContinuousListening()) // WithToolListStream
			}
			inner, err = transport.NewStreamableHTTP(t.url, opts...)
		}
		if err != nil {
			s.http.close()
			return nil, rep, &ConnectError{Server: s.server, Stage: "config", Err: redactErr(err, t.url)}
		}
	case TransportInProcess:
		if t.inproc == nil {
			return nil, rep, &ConnectError{Server: s.server, Stage: "config", Err: errors.New("no server: composition.InProcess was given nil")}
		}
		inner = inProcessTransport{transport.NewInProcessTransport(t.inproc)}
	default:
		return nil, rep, &ConnectError{Server: s.server, Stage: "config", Err: errors.New("no transport: use composition.Stdio, composition.HTTP, composition.SSE or composition.InProcess")}
	}

	copts := []client.ClientOption{client.WithDiscoverTimeout(cfg.conn.probeTimeout())}
	if version != "" {
		copts = append(copts, client.WithProtocolVersion(version))
	}
	raw := newRawTransport(inner)
	s.client = client.NewClient(raw, copts...)
	s.life, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if kind == TransportSSE {
		// mcp-go's SSE transport does not fail the requests in flight when
		// the stream ends: close it, so that they and later ones fail.
		s.client.OnConnectionLost(func(err error) {
			s.conn.lost(err)
			s.markLost(fmt.Errorf("the server's HTTP+SSE event stream has ended (%w)", tidy(err)), false)
			_ = inner.Close()
		})
	}

	if err := s.start(ctx); err != nil {
		stage := "start"
		if kind == TransportSSE {
			stage = "initialize" // the GET of the event stream is the handshake's first step
		}
		return nil, rep, s.failed(ctx, stage, err, t.url, rep)
	}

	log := &handshakeLog{}
	capt := newCapture(nil, string(mcp.MethodServerDiscover), string(mcp.MethodInitialize))
	hctx := withHandshakeLog(withCapture(ctx, capt), log)
	res, err := s.client.Initialize(hctx, mcp.InitializeRequest{
		Params: mcp.InitializeParams{
			ProtocolVersion: version,
			ClientInfo:      mcp.Implementation{Name: cfg.clientName, Version: cfg.clientVersion},
		},
	})
	if o, ok := log.get(string(mcp.MethodServerDiscover)); ok {
		rep.probed, rep.probeAnswered = true, o.answered
		rep.probeTimedOut = !o.answered && errors.Is(o.err, context.DeadlineExceeded) && ctx.Err() == nil
	}
	if o, ok := log.get(string(mcp.MethodInitialize)); ok {
		rep.initSent, rep.initAnswered = true, o.answered
	}
	if s.http != nil {
		rep.initHTTPStatus = s.http.failedStatus(string(mcp.MethodInitialize))
	}
	if err != nil {
		return nil, rep, s.failed(ctx, "initialize", err, t.url, rep)
	}
	s.version = s.client.ProtocolVersion()
	if s.version == "" {
		s.version = res.ProtocolVersion
	}
	s.fillServerFacts(capt, res)
	return s, rep, nil
}

// start starts the mcp-go client. The transport lives as long as the session
// (s.life), but the start must not outlast ctx: mcp-go's SSE transport waits
// for the "endpoint" event on the session's context, so the transport is
// closed when ctx ends first.
func (s *Conn) start(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = s.client.Close() })
	err := s.client.Start(s.life)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	return err
}

// failed ends a failed attempt through abort, noting first whether a stdio
// process exited by itself and adding what the handshake log shows.
func (s *Conn) failed(ctx context.Context, stage string, err error, rawURL string, rep *dialReport) error {
	if s.proc != nil && s.proc.pipeClosed(err) && s.proc.hasExited(time.Second) {
		rep.exited = s.proc.exitDescription()
	}
	_, cerr := s.abort(ctx, stage, err, rawURL)
	var ce *ConnectError
	if !errors.As(cerr, &ce) {
		return cerr
	}
	if rep.probeTimedOut && !rep.initAnswered {
		ce.Err = &detailError{detail: "the server did not answer the server/discover probe within " + s.conn.probeTimeout.String(), err: ce.Err}
	}
	if s.auth != nil {
		ce.Err = s.auth.annotate(ce.Err)
	}
	return ce
}

// retryFailed adds to the error of a retry that it was one.
func retryFailed(err error, why string) error {
	var ce *ConnectError
	if errors.As(err, &ce) {
		ce.Err = &detailError{detail: why, err: ce.Err}
		return ce
	}
	return err
}

// bothFailed describes a Streamable HTTP attempt and the HTTP+SSE fallback
// that both failed.
func bothFailed(first, second error, status int) error {
	var ce1, ce2 *ConnectError
	if !errors.As(first, &ce1) || !errors.As(second, &ce2) {
		return errors.Join(first, second)
	}
	return &ConnectError{Server: ce1.Server, Stage: "initialize", Err: &fallbackError{streamable: ce1.Err, sse: ce2.Err, status: status}}
}

// fallbackError is the failure of both HTTP transports.
type fallbackError struct {
	streamable, sse error
	status          int
}

func (e *fallbackError) Error() string {
	return fmt.Sprintf("Streamable HTTP: %v; then, since the initialize POST got HTTP %d, the legacy HTTP+SSE transport (a GET for an event stream): %v",
		e.streamable, e.status, e.sse)
}

// Unwrap returns both errors, for errors.Is and errors.As.
func (e *fallbackError) Unwrap() []error { return []error{e.streamable, e.sse} }
