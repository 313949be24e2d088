package composition

import (
	"io"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// Transport names, as returned by [Session.Transport] and recorded in a
// bundle's "transport" field.
const (
	// TransportStdio is a server run as a child process, speaking
	// newline-delimited JSON-RPC on its stdin and stdout.
	TransportStdio = mcpconn.TransportStdio
	// TransportStreamableHTTP is the Streamable HTTP transport (MCP
	// 2025-03-26 and later).
	TransportStreamableHTTP = mcpconn.TransportStreamableHTTP
	// TransportSSE is the legacy HTTP+SSE transport of MCP 2024-11-05: a GET
	// opens a Server-Sent Events stream whose first event, "endpoint", names
	// the URL that requests are POSTed to; answers arrive on the stream.
	TransportSSE = mcpconn.TransportSSE
	// TransportInProcess is a server in the same process ([InProcess]).
	TransportInProcess = mcpconn.TransportInProcess
)

// Transport says how to reach a server. Make one with [Stdio], [HTTP], [SSE]
// or [InProcess]; the zero value is not usable and makes [Connect] fail.
// Its String method names the server for messages: the command of a stdio
// server (not its arguments, which may carry secrets), or the URL of an HTTP
// server without its user information, query and fragment.
type Transport = mcpconn.Transport

// Stdio is a server started as a child process: command (looked up in PATH
// when it has no path separator) with args. The process inherits this
// process's environment plus [WithEnv], and its working directory is
// [WithDir] or this process's. On Unix it runs in a process group of its
// own, so that a server started through a launcher (`bash -c`, npx, uvx)
// is ended whole. [Session.Close] closes its stdin, then signals the group
// (SIGTERM, then SIGKILL) if the server does not exit within two seconds;
// processes of the group that outlive the server get SIGTERM and, two
// seconds later, SIGKILL. A failed [Connect] kills the group at once.
func Stdio(command string, args ...string) Transport {
	return mcpconn.Stdio(command, args...)
}

// HTTP is a server reached over the Streamable HTTP transport at url, the
// server's MCP endpoint (for example "http://127.0.0.1:8080/mcp"). Headers
// are given with [WithHeader], credentials with [WithBearerToken] or
// [WithOAuthClientCredentials].
//
// A server that predates Streamable HTTP is reached as the MCP
// specification's backwards-compatibility section for Streamable HTTP
// clients says: when the initialize POST to url fails with HTTP 400, 404 or
// 405, [Connect] issues a GET to url expecting an SSE stream that starts with
// an "endpoint" event, and goes on over the legacy HTTP+SSE transport (see
// [SSE]). [Session.Transport] is then [TransportSSE], and a warning says so
// (see [WithWarnings]). When the GET fails too, the *[ConnectError]
// describes both attempts.
func HTTP(url string) Transport {
	return mcpconn.HTTP(url)
}

// SSE is a server reached over the legacy HTTP+SSE transport (MCP
// 2024-11-05) at url, the URL of its event stream (for example
// "http://127.0.0.1:8080/sse"): a GET there must answer with Content-Type
// text/event-stream and an "endpoint" event naming, on the same origin, the
// URL that requests are POSTed to. Such a session always uses the initialize
// handshake, at the newest version before 2026-07-28 unless
// [WithProtocolVersion] pins an older one, since the stateless 2026-07-28
// protocol has no binding for this transport. It takes the options of
// [HTTP]. If the server closes the event stream, the session ends: calls in
// flight and later calls fail.
func SSE(url string) Transport {
	return mcpconn.SSE(url)
}

// InProcess is the mcp-go server s in this process, reached through mcp-go's
// in-process transport: no process, socket or pipe, but every message is
// still marshalled to JSON and handled by s as if it had come over a wire, so
// version negotiation (server/discover at 2026-07-28, initialize for a
// pinned older version) and the envelope rules behave as over stdio. Use it
// for tests and typed fakes: register a generated server stub's Handler on
// s and connect the generated client to it. A call whose context expires or
// is cancelled fails with the context's error (errors.Is(err,
// context.DeadlineExceeded) or context.Canceled) as soon as it ends, as over
// stdio and HTTP, even if the handler answers with an error result or does
// not return. [Session.Close] ends the in-process session; s itself is not
// stopped.
func InProcess(s *server.MCPServer) Transport {
	return mcpconn.InProcess(s)
}

// ConnectError is returned by [Connect] when the server could not be reached
// or did not complete the handshake.
//
// Its fields:
//
//	type ConnectError struct {
//		// Server names the server: the command of a stdio server, or the URL of
//		// an HTTP server without user information, query or fragment. Never
//		// headers, environment values or arguments.
//		Server string
//		// Stage is where it failed: "config" (the Transport or an Option is
//		// unusable), "start" (the process could not be started), "auth" (no
//		// access token could be obtained for [WithOAuthClientCredentials]; a
//		// *[TokenError] is in the chain), or "initialize" (the event stream of
//		// an HTTP+SSE server, or the server/discover or initialize handshake,
//		// failed).
//		Stage string
//		// Err says what went wrong. It wraps the underlying error, so
//		// errors.Is(err, context.DeadlineExceeded) and errors.Is(err,
//		// exec.ErrNotFound) work through a *ConnectError.
//		Err error
//		// Stderr is the end (at most 4 KiB) of what a stdio server wrote to
//		// stderr before the failure; "" for HTTP servers. Error leaves it
//		// out (see StderrTail).
//		Stderr string
//	}
type ConnectError = mcpconn.ConnectError

// StderrTail returns the end (at most 4 KiB) of a stdio server's stderr
// that err carries: the Stderr of a *[ConnectError], or what a server whose
// process exited wrote before a call's *[SessionLostError]; redacted of the
// values given to [WithEnv] and the like; "" when there is none.
//
// No error message holds it: it is the server's text, and a crashing child
// may print what it inherited (AWS_SECRET_ACCESS_KEY=…, tokens) that no
// configured value masks. Show it to the operator (a [Registry] logs it at
// level Debug as "mcp server stderr"), never to a composing server's
// clients, and escape it for a terminal (the CLI prints it so).
func StderrTail(err error) string { return mcpconn.StderrTail(err) }

// LimitError is the error of a server message that exceeded a limit: more
// than [WithMaxResponseBytes] bytes, or arrays and objects nested deeper
// than [MaxResponseDepth]. Over stdio the session is then lost (the stream
// is out of step): its process group is ended, [Session.Done] is closed, and
// the request fails with a *[SessionLostError] holding the *LimitError (a
// [Registry] reconnects). Over HTTP only that request fails.
//
// Its fields:
//
//	type LimitError struct {
//		// Depth is true for the nesting limit, false for the size limit.
//		Depth bool
//		// Limit is the limit exceeded: bytes, or levels of nesting.
//		Limit int64
//	}
type LimitError = mcpconn.LimitError

// TokenError is a failure to obtain an access token with
// [WithOAuthClientCredentials]: the token request failed, or the metadata
// that names the token endpoint could not be read. It is found with
// errors.As in the *[ConnectError] of [Connect] (stage "auth") or in the
// error of a call that needed a new token. It never holds the client secret
// or a token.
//
// Its fields:
//
//	type TokenError struct {
//		// What was asked: "token endpoint", "authorization server metadata" or
//		// "protected resource metadata".
//		What string
//		// URL is where, without user information, query and fragment.
//		URL string
//		// StatusCode is the HTTP status of the failed answer; 0 when there was
//		// none (the request failed, or the answer was unusable).
//		StatusCode int
//		// Code and Description are the "error" and "error_description" of an
//		// RFC 6749 §5.2 error answer, when the server sent one.
//		Code, Description string
//		// Err is the underlying error, when there is one beyond the answer.
//		Err error
//	}
type TokenError = mcpconn.TokenError

// RedirectError is the error of a request that an HTTP server redirected to
// another origin (scheme, host or port), which [Connect] and calls refuse to
// follow because requests carry credentials. It is in the chain of the
// *[ConnectError] or call error. Its URLs are given without user
// information, query or fragment.
//
// Its fields:
//
//	type RedirectError struct {
//		// Method is the HTTP method of the redirected request, such as "POST".
//		Method string
//		// From is the URL that was redirected; To the URL it redirected to.
//		From, To string
//		// Status is the HTTP status of the redirect, such as 307.
//		Status int
//	}
type RedirectError = mcpconn.RedirectError

// OAuthClientCredentials configures the OAuth 2.0 client-credentials grant
// (RFC 6749 §4.4) for [WithOAuthClientCredentials]: the client authenticates
// to the authorization server's token endpoint with its ID and secret and
// gets an access token for the MCP server.
//
// Its fields:
//
//	type OAuthClientCredentials struct {
//		// TokenURL is the token endpoint. At most one of TokenURL and Issuer may
//		// be set; with neither, the authorization server is discovered from the
//		// MCP server's protected resource metadata (RFC 9728: the JSON document
//		// at /.well-known/oauth-protected-resource followed by the MCP URL's
//		// path, then at /.well-known/oauth-protected-resource), whose first
//		// authorization_servers entry is taken as the issuer.
//		TokenURL string
//		// Issuer is the authorization server's issuer URL. Its metadata is read
//		// from the well-known locations of RFC 8414 and OpenID Connect Discovery
//		// (as the MCP authorization specification lists them), must name the
//		// same issuer, and gives the token endpoint and the client
//		// authentication methods it supports.
//		Issuer string
//		// ClientID and ClientSecret identify the client; both are required. The
//		// secret is sent with HTTP Basic authentication or in the request body,
//		// as the server's metadata says (when unknown: Basic first, then the
//		// body). It never appears in errors or warnings.
//		ClientID, ClientSecret string
//		// PrivateKeyPEM, instead of ClientSecret, authenticates the client with
//		// private_key_jwt (RFC 7523 §2.2, the SEP-1046 extension): a PEM
//		// private key (PKCS #8, or SEC 1 EC / PKCS #1 RSA) that signs a short-lived
//		// JWT assertion per token request (ES256, ES384 or ES512 for ECDSA keys
//		// by curve, RS256 for RSA, EdDSA for Ed25519), whose audience is the
//		// authorization server's issuer (its token URL when only that is
//		// known). It never appears in errors or warnings.
//		PrivateKeyPEM string
//		// Scopes are the scopes asked for ("scope" parameter); none: the
//		// server's default.
//		Scopes []string
//		// Resource is the RFC 8707 "resource" parameter that the MCP
//		// authorization specification requires with token requests: the
//		// protected resource metadata's "resource", else the MCP server's URL
//		// without user information, query and fragment, when empty.
//		Resource string
//	}
type OAuthClientCredentials = mcpconn.OAuthClientCredentials

// SessionLostError is the error of a request made on a lost session. It matches
// [ErrSessionLost]. Besides a server that went away, a stdio session is lost
// (and its process group ended) when the server sends a message over a limit
// (*[LimitError]) or one that is not JSON-RPC (a line that starts with '{' or
// '[' but does not parse; other lines are skipped), or stops reading its
// stdin: a write to it that makes no progress for 30 seconds.
//
// Its fields:
//
//	type SessionLostError struct {
//		// Server names the server as Transport.String does.
//		Server string
//		// Sent reports whether the request may have reached the server: false
//		// when the session was known to be lost before it was sent, or the
//		// server refused the connection or did not know the session (HTTP 404),
//		// so it certainly did not run; true when the connection broke while the
//		// request was in flight, so it may or may not have run.
//		Sent bool
//		// Err is why the session is lost.
//		Err error
//	}
type SessionLostError = mcpconn.LostError

// DefaultDiscoverTimeout is how long [Connect] waits for the answer to its
// server/discover probe (protocol 2026-07-28) before it takes the server for
// an older one and sends initialize, unless [WithDiscoverTimeout] says
// otherwise.
const DefaultDiscoverTimeout = mcpconn.DefaultDiscoverTimeout

// DefaultMaxResponseBytes is the largest message [Connect] accepts from a
// server unless [WithMaxResponseBytes] says otherwise: 32 MiB, far above a
// tools/list page of hundreds of tools (github-mcp-server's is about
// 150 KB) and room for large tool results such as images in base64.
//
// Memory: a stdio session reads one message at a time, so at most one
// message is being read per session (twice its size while its line is
// joined); a result a [Session] returns is held once (its blocks' Raw,
// StructuredContent and Meta are slices of the bytes received) plus the
// decoded Text of its text blocks. [Serve] forwards a [*Result] as those
// bytes; mcp-go's server then encodes the answer with its own copies. To
// bound large results read at once by several sessions, see
// [ResultBudget].
const DefaultMaxResponseBytes = mcpconn.DefaultMaxResponseBytes

// DefaultMaxPages is how many tools/list pages [Session.ListToolsRaw] follows
// before giving up (composition/gosdk's sessions follow as many).
const DefaultMaxPages = mcpconn.DefaultMaxPages

// MaxResponseDepth is the deepest nesting of arrays and objects a message
// may have: encoding/json, which mcp-go decodes messages with, refuses
// deeper values ("exceeded max depth"), so a deeper message fails at once
// with a *LimitError instead of being skipped.
const MaxResponseDepth = mcpconn.MaxResponseDepth

// WithEnv adds environment variables, each "KEY=VALUE", to a stdio server's
// environment (which otherwise is this process's). Later values win.
func WithEnv(kv ...string) Option {
	return connOption(mcpconn.WithEnv(kv...))
}

// WithDir sets a stdio server's working directory.
func WithDir(dir string) Option {
	return connOption(mcpconn.WithDir(dir))
}

// WithHeader adds an HTTP header to every request to an HTTP server
// (Streamable HTTP or HTTP+SSE), for example "X-Api-Key". A later value for
// the same key replaces an earlier one. An Authorization header given here is
// replaced by [WithBearerToken] or [WithOAuthClientCredentials]. Header
// values never appear in errors.
func WithHeader(key, value string) Option {
	return connOption(mcpconn.WithHeader(key, value))
}

// WithProtocolVersion pins the MCP protocol version. A version before
// [mcp.ProtocolVersion20260728] (such as "2025-06-18") connects with the initialize
// handshake at that version, never probing server/discover. "" (the default)
// asks for the newest version: mcp-go probes with server/discover at
// 2026-07-28 and falls back to initialize at 2025-11-25 when the server
// predates it. The server may still answer with another version; see
// [Session.ProtocolVersion].
func WithProtocolVersion(v string) Option {
	return connOption(mcpconn.WithProtocolVersion(v))
}

// WithStderr copies a stdio server's stderr to w (by default it is
// discarded). w is written from one goroutine; a w that blocks holds up the
// server once the pipe fills. Whatever w is, the last 4 KiB are kept for
// [ConnectError].
func WithStderr(w io.Writer) Option {
	return connOption(mcpconn.WithStderr(w))
}

// WithDiscoverTimeout bounds how long [Connect] waits for the answer to its
// server/discover probe before it takes the server for one older than
// 2026-07-28 and sends initialize instead (default
// [DefaultDiscoverTimeout]; d < 0: no bound, so a server that never answers
// holds Connect until its context ends). Servers that predate server/discover
// usually answer it at once with "method not found"; the bound is for those
// that stay silent. A stdio server that ignores the probe and then answers
// initialize is connected with a warning (see [WithWarnings]); one that exits
// on it is started again at the newest version before 2026-07-28.
func WithDiscoverTimeout(d time.Duration) Option {
	return connOption(mcpconn.WithDiscoverTimeout(d))
}

// WithWarnings has [Connect] call warn with each warning, a one-line message
// without a trailing newline, from the goroutine that called Connect. A
// warning says that Connect had to work around the server and how:
//
//   - a server that did not answer the server/discover probe within the
//     discover timeout (see [WithDiscoverTimeout]) and was connected with
//     initialize instead;
//   - a stdio server that exited (or stayed silent and then exited) when
//     probed with server/discover, and was started again at the newest
//     protocol version before 2026-07-28;
//   - an HTTP server whose initialize POST failed with HTTP 400, 404 or 405
//     and that was reached over the legacy HTTP+SSE transport instead.
//
// Warnings never contain header values, tokens or secrets. Without this
// option they are only kept in [Session.Warnings]. A stdio server that exits
// again when retried is not warned about: its start-up failure is Connect's
// error.
func WithWarnings(warn func(msg string)) Option {
	o := connOption(mcpconn.WithWarnings(warn))
	o.apply = func(c *config) { c.warn = warn } // for NewSession
	return o
}

// WithMaxResponseBytes bounds the size of each message a server sends (a
// tools/list page, a tool result), in bytes; n <= 0 restores
// [DefaultMaxResponseBytes]. A larger message fails the request at once
// with an error holding a *[LimitError]; over stdio it also loses the
// session (see [LimitError]).
func WithMaxResponseBytes(n int64) Option {
	return connOption(mcpconn.WithMaxResponseBytes(n))
}

// ResultBudget bounds the memory of large results read at once by the
// stdio sessions that share it: give the same budget to every server of a
// [Registry] with [NewRegistry](WithResultBudget(b)) (or to several
// [Connect]s) and the bytes of large messages being read and joined at the
// same time, over all those sessions, stay within its capacity.
//
// How: a stdio session reads one message at a time, so one session never
// assembles two results at once. A message longer than 64 KiB reserves the
// session's largest message ([WithMaxResponseBytes], at most the budget's
// capacity) before more of it is read, waiting while the budget is full
// (the server's writes wait meanwhile: its pipe fills); once the message is
// complete the reservation shrinks to its size and is released when the
// result has been handed to its caller (what the caller keeps afterwards is
// the caller's). Reserving the largest message at once, not its bytes as
// they arrive, keeps two sessions from each holding half of the budget and
// waiting for the other. So with the default 32 MiB limit a budget of
// 64 MiB lets two large results be read at once; small messages (up to
// 64 KiB) never wait. While a message is joined it takes twice its size
// (its 64 KiB fragments, then the joined line): the peak of reading is at
// most twice the budget, plus 64 KiB per session. HTTP sessions do not use
// the budget (a response body is read by net/http). Without a budget (the
// default) sessions read independently.
//
// On the serving side, [StreamableHTTPHandler] reserves a budget for the
// forwarded results it holds until their clients read them
// ([WithHeldBudget]); passing it the budget the sessions read with makes one
// bound for reading and holding (see WithHeldBudget for why that cannot
// deadlock).
type ResultBudget = mcpconn.ResultBudget

// NewResultBudget returns a budget of bytes bytes (bytes <= 0 means
// [DefaultMaxResponseBytes]); see [ResultBudget].
func NewResultBudget(bytes int64) *ResultBudget { return mcpconn.NewResultBudget(bytes) }

// WithResultBudget makes the session's reads of large messages reserve b
// (see [ResultBudget]); pass the same b to every session that shares it.
func WithResultBudget(b *ResultBudget) Option {
	return connOption(mcpconn.WithResultBudget(b))
}

// WithBearerToken sends "Authorization: Bearer <token>" with every request
// to an HTTP server (Streamable HTTP or HTTP+SSE), for a token obtained
// elsewhere (for example read from an environment variable). It replaces an
// Authorization header given with [WithHeader]; it cannot be combined with
// [WithOAuthClientCredentials]. An empty token, or one holding a line break,
// makes [Connect] fail at stage "config". The token never appears in errors
// or warnings. A server that refuses it answers HTTP 401, which Connect
// reports at stage "initialize".
func WithBearerToken(token string) Option {
	return connOption(mcpconn.WithBearerToken(token))
}

// WithOAuthClientCredentials authenticates to an HTTP server (Streamable
// HTTP or HTTP+SSE) with an access token obtained through the OAuth 2.0
// client-credentials grant, as cc describes. [Connect] fetches the first
// token before the handshake; later ones are fetched when the current one
// is about to expire (its expires_in) or after the MCP server answered 401 to
// it. Token endpoint, issuer and discovered endpoints must be https URLs,
// except on loopback addresses (127.0.0.0/8, ::1, localhost).
//
// Errors: an unusable cc (no client ID or secret, both TokenURL and Issuer,
// a URL that is not https) makes Connect fail at stage "config"; a failed
// discovery or token request at stage "auth", with a *[TokenError] in the
// chain. Neither the secret nor any token ever appears in an error, a warning
// or a log. It replaces an Authorization header given with [WithHeader] and
// cannot be combined with [WithBearerToken].
func WithOAuthClientCredentials(cc OAuthClientCredentials) Option {
	return connOption(mcpconn.WithOAuthClientCredentials(cc))
}
