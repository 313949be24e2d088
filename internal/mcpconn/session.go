package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Session is a connection to one MCP server, made by [Connect]. Its methods
// may be called from several goroutines at once. Close it when done.
type Conn struct {
	client   *client.Client
	server   string // Transport.String(), for messages
	kind     string
	maxPages int
	// secrets are the configured values that messages must not show
	// (config.secrets).
	secrets []string

	proc *stdioProcess // stdio only
	http *httpRecorder // Streamable HTTP and HTTP+SSE only
	auth *authState    // HTTP with WithBearerToken or WithOAuthClientCredentials
	conn connState     // warnings and the HTTP+SSE stream (connect.go)

	// host and port are an HTTP server's, from its URL (peerAddress);
	// "" and 0 for stdio and in-process sessions.
	host string
	port int

	version      string
	serverInfo   json.RawMessage
	capabilities json.RawMessage
	instructions string

	// life is the context of server-to-client requests; Close cancels it.
	life   context.Context
	cancel context.CancelFunc

	closeOnce sync.Once
	closeErr  error

	// gone is closed when the session is lost or closed; goneErr (set
	// before) says why. See Done, Err and lost.go.
	gone chan struct{}
	// warn is the WithWarnings callback, for Warn.
	warn     func(string)
	goneOnce sync.Once
	goneErr  error
}

// ConnectError: see composition.ConnectError, which documents it for users.
type ConnectError struct {
	// Server names the server: the command of a stdio server, or the URL of
	// an HTTP server without user information, query or fragment. Never
	// headers, environment values or arguments.
	Server string
	// Stage is where it failed: "config" (the Transport or an Option is
	// unusable), "start" (the process could not be started), "auth" (no
	// access token could be obtained for [WithOAuthClientCredentials]; a
	// *[TokenError] is in the chain), or "initialize" (the event stream of
	// an HTTP+SSE server, or the server/discover or initialize handshake,
	// failed).
	Stage string
	// Err says what went wrong. It wraps the underlying error, so
	// errors.Is(err, context.DeadlineExceeded) and errors.Is(err,
	// exec.ErrNotFound) work through a *ConnectError.
	Err error
	// Stderr is the end (at most 4 KiB) of what a stdio server wrote to
	// stderr before the failure; "" for HTTP servers.
	Stderr string
}

// Error says which server failed, at which stage and why, on one line with
// peer text escaped (internal/textsafe). The server's stderr tail is not in
// it: it stays in Stderr (see StderrTail).
func (e *ConnectError) Error() string {
	return textsafe.Escape(fmt.Sprintf("composition: connecting to %s: %s: %v", e.Server, e.Stage, e.Err))
}

// Unwrap returns Err.
func (e *ConnectError) Unwrap() error { return e.Err }

// detailError prefixes an error with what was observed around it, and may
// carry a server's stderr tail (see StderrTail), which its message leaves
// out.
type detailError struct {
	detail string
	err    error
	stderr string
}

func (e *detailError) Error() string { return e.detail + ": " + e.err.Error() }

func (e *detailError) Unwrap() error { return e.err }

// tidy drops from an mcp-go error the layers that add no meaning: the
// "transport error: " of transport.Error and the one or two "failed to send
// request: " of its HTTP transports, and the `Post "URL": ` of a *url.Error
// (the server's URL is named by the caller). The message then says what
// happened ("dial tcp 127.0.0.1:1: connect: connection refused"); Unwrap
// keeps the original chain for errors.Is and errors.As.
func tidy(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := msg
	for {
		next := strings.TrimPrefix(strings.TrimPrefix(out, "transport error: "), "failed to send request: ")
		if next == out {
			break
		}
		out = next
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		out = strings.TrimPrefix(out, fmt.Sprintf("%s %q: ", ue.Op, ue.URL))
	}
	return redact.Wrap(err, out)
}

// scrub masks in err's message the configured secrets and the credentials
// of every URL (internal/redact); Unwrap keeps the original.
func scrub(err error, secrets []string) error {
	return redact.Error(err, secrets)
}

// Dial connects to the server as composition.Connect documents: the
// handshake of the negotiated era, the fallbacks for older servers, and a
// *ConnectError for every failure.
func Dial(ctx context.Context, t Transport, opts ...Option) (*Conn, error) {
	cfg := newConfig(opts)
	server := t.String()
	fail := func(stage string, err error) (*Conn, error) {
		return nil, &ConnectError{Server: server, Stage: stage, Err: err}
	}
	if v := cfg.protocolVersion; v != "" && !mcp.IsValidProtocolVersion(v) {
		return fail("config", fmt.Errorf("unknown protocol version %q (known: %s)", v, strings.Join(mcp.ValidProtocolVersions, ", ")))
	}
	if err := ctx.Err(); err != nil {
		return fail("start", err)
	}

	return connect(ctx, t, &cfg)
}

// newSession is a session not yet connected, with the options of cfg that
// the session keeps (connect.go fills in the rest).
func newSession(server, kind string, cfg *config) *Conn {
	return &Conn{server: server, kind: kind, maxPages: cfg.maxPages, secrets: cfg.secrets(), gone: make(chan struct{}), warn: cfg.conn.warn}
}

// abort stops a session whose connect failed and describes the failure.
func (s *Conn) abort(ctx context.Context, stage string, err error, rawURL string) (*Conn, error) {
	err = tidy(err)
	var notes []string
	if s.proc != nil {
		// A closed pipe means the process is exiting, so give it a moment
		// to be reaped for its exit status.
		wait := time.Duration(0)
		if s.proc.pipeClosed(err) {
			wait = time.Second
		}
		if s.proc.hasExited(wait) {
			notes = append(notes, "the server process exited ("+s.proc.exitDescription()+") before the handshake completed")
			// Let the transport read what the process wrote before it
			// exited, so that the note on junk output below is complete.
			select {
			case <-s.proc.watch.eof:
			case <-time.After(stdoutGrace):
			}
		}
		if junk := s.proc.watch.junkNote(); junk != "" {
			notes = append(notes, junk)
		}
	}
	if s.http != nil {
		if f := s.http.lastFailure(); f != "" {
			notes = append(notes, f)
		}
	}
	if ctx.Err() != nil {
		notes = append(notes, "no answer before the context ended")
	}
	err = s.withLimit(err)

	_ = s.client.Close()
	var stderr string
	if s.proc != nil {
		_ = s.proc.stop(false)
		stderr = s.proc.stderrTail()
	}
	if s.http != nil {
		s.http.close()
		err = redactErr(err, rawURL)
	}
	err = scrub(err, s.secrets)
	s.cancel()

	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		// mcp-go reports some context ends as its own errors; keep the
		// context's error reachable for errors.Is.
		err = fmt.Errorf("%w (%w)", err, ctxErr)
	}
	if len(notes) > 0 {
		err = &detailError{detail: strings.Join(notes, "; "), err: err}
	}
	return nil, &ConnectError{Server: s.server, Stage: stage, Err: err, Stderr: stderr}
}

// annotate adds to err what is known about a stdio server process that has
// gone away (its exit status and the end of its stderr), or about an
// HTTP+SSE event stream that has ended.
func (s *Conn) annotate(err error) error {
	err = scrub(tidy(err), s.secrets)
	if le := s.withLimit(err); le != err {
		return le
	}
	if lost := s.conn.lostErr(); lost != nil {
		return &detailError{detail: "the server's HTTP+SSE event stream has ended (" + lost.Error() + ")", err: err}
	}
	if s.auth != nil {
		return s.auth.annotate(err)
	}
	if s.proc == nil || s.gaveUp() || !s.proc.pipeClosed(err) || !s.proc.hasExited(time.Second) {
		return err
	}
	d := &detailError{detail: "the server process exited (" + s.proc.exitDescription() + ")", err: err}
	if tail := s.proc.stderrTail(); tail != "" {
		// stderrTail is redacted already, so cutting it cannot expose a
		// secret in part.
		d.stderr = redact.Tail(tail, nil, 1<<10, false)
	}
	return d
}

// fillServerFacts keeps serverInfo, capabilities and instructions as the
// server sent them: from the raw initialize result (legacy) or the raw
// server/discover result (2026-07-28, where serverInfo is in _meta under
// "io.modelcontextprotocol/serverInfo"). What the raw result lacks is taken
// from mcp-go's typed InitializeResult.
func (s *Conn) fillServerFacts(capt *capture, res *mcp.InitializeResult) {
	var raw json.RawMessage
	if mcp.IsModernProtocol(s.version) {
		raw = capt.result(string(mcp.MethodServerDiscover))
	} else {
		raw = capt.result(string(mcp.MethodInitialize))
	}
	var fields struct {
		Capabilities json.RawMessage            `json:"capabilities"`
		ServerInfo   json.RawMessage            `json:"serverInfo"`
		Instructions *string                    `json:"instructions"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(raw, &fields)
	s.capabilities = nonNull(fields.Capabilities)
	s.serverInfo = nonNull(fields.ServerInfo)
	if s.serverInfo == nil {
		s.serverInfo = nonNull(fields.Meta[mcp.MetaKeyServerInfo])
	}
	if fields.Instructions != nil {
		s.instructions = *fields.Instructions
	}
	if res == nil {
		return
	}
	if s.capabilities == nil {
		s.capabilities, _ = json.Marshal(res.Capabilities)
	}
	if s.serverInfo == nil && res.ServerInfo.Name != "" {
		s.serverInfo, _ = json.Marshal(res.ServerInfo)
	}
	if fields.Instructions == nil {
		s.instructions = res.Instructions
	}
}

func nonNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return r
}

// ProtocolVersion is the negotiated MCP protocol version, such as
// "2025-11-25" or "2026-07-28".
func (s *Conn) ProtocolVersion() string { return s.version }

// Transport is [TransportStdio], [TransportStreamableHTTP] or
// [TransportSSE] (also for an [HTTP] server reached through the HTTP+SSE
// fallback).
func (s *Conn) Transport() string { return s.kind }

// SessionID is the MCP session id mcp-go's transport holds (Streamable
// HTTP's Mcp-Session-Id on a legacy-era session); "" when there is none
// (stdio, in process, HTTP+SSE, 2026-07-28's stateless HTTP).
func (s *Conn) SessionID() string { return s.client.GetSessionId() }

// PeerInfo is the session's transport (as Transport) and, over HTTP, the
// host and port of the server's URL (the scheme's default port when the URL
// names none); "" and 0 for stdio and in-process sessions.
func (s *Conn) PeerInfo() (transport, host string, port int) { return s.kind, s.host, s.port }

// peerAddress is the host and port of u for PeerInfo: u's port, else the
// scheme's default (443 for https, 80 otherwise). User information, path
// and query are not part of it.
func peerAddress(u *url.URL) (string, int) {
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	return u.Hostname(), port
}

// PeerAddress is the host and port of the HTTP URL rawURL as PeerInfo
// gives them (for SDK adapters); "" and 0 when rawURL is not an http or
// https URL with a host.
func PeerAddress(rawURL string) (string, int) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", 0
	}
	return peerAddress(u)
}

// ServerInfo is the server's Implementation object ({"name", "version", …})
// exactly as it sent it: initialize's serverInfo, or on 2026-07-28 the
// "io.modelcontextprotocol/serverInfo" entry of server/discover's _meta. Nil
// when the server sent none. The caller must not modify it.
func (s *Conn) ServerInfo() json.RawMessage { return s.serverInfo }

// Capabilities is the server's capabilities object exactly as it sent it
// (from initialize, or server/discover on 2026-07-28). The caller must not
// modify it.
func (s *Conn) Capabilities() json.RawMessage { return s.capabilities }

// Instructions is the server's instructions text, "" when it sent none.
func (s *Conn) Instructions() string { return s.instructions }

// Close ends the session: for Streamable HTTP it ends a legacy protocol
// session with DELETE; for HTTP+SSE it closes the event stream; for stdio it closes the server's stdin, waits up to two seconds for
// it to exit, then sends SIGTERM and finally SIGKILL to its process group
// (see [Stdio]). It returns an error
// only when the process could not be stopped. Calling Close again returns the
// first result.
func (s *Conn) Close() error {
	s.closeOnce.Do(func() {
		s.markGone(ErrSessionClosed)
		_ = s.client.Close()
		if s.proc != nil {
			s.closeErr = s.proc.stop(true)
		}
		if s.http != nil {
			s.http.close()
		}
		s.cancel()
	})
	return s.closeErr
}

// moduleVersion is this module's version for clientInfo, or "devel".
func moduleVersion() string {
	const path = "github.com/mcpbind/mcpbind"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == path && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == path && d.Version != "" {
				return d.Version
			}
		}
	}
	return "devel"
}
