package composition

import (
	"io"
	"strings"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// Transport names, as returned by [Session.Transport] and recorded in a
// bundle's "transport" field.
const (
	// TransportStdio is a server run as a child process, speaking
	// newline-delimited JSON-RPC on its stdin and stdout.
	TransportStdio = "stdio"
	// TransportStreamableHTTP is the Streamable HTTP transport (MCP
	// 2025-03-26 and later).
	TransportStreamableHTTP = "streamable-http"
	// TransportSSE is the legacy HTTP+SSE transport of MCP 2024-11-05: a GET
	// opens a Server-Sent Events stream whose first event, "endpoint", names
	// the URL that requests are POSTed to; answers arrive on the stream.
	TransportSSE = "sse"
)

// Transport says how to reach a server. Make one with [Stdio], [HTTP] or
// [SSE]; the zero value is not usable and makes [Connect] fail.
type Transport struct {
	kind    string
	command string
	args    []string
	url     string
}

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
	return Transport{kind: TransportStdio, command: command, args: append([]string(nil), args...)}
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
	return Transport{kind: TransportStreamableHTTP, url: url}
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
	return Transport{kind: TransportSSE, url: url}
}

// String names the server for messages: the command of a stdio server (not
// its arguments, which may carry secrets), or the URL of an HTTP server
// without its user information, query and fragment.
func (t Transport) String() string {
	switch t.kind {
	case TransportStdio:
		return t.command
	case TransportStreamableHTTP, TransportSSE:
		return redactURL(t.url)
	default:
		return "<no transport>"
	}
}

// redactURL drops what may carry credentials from a URL: user information,
// the query and the fragment.
func redactURL(raw string) string { return redact.URL(raw) }

// secrets lists the values of cfg that must never appear in a message:
// header values (the Authorization header among them), the bearer token,
// the OAuth client secret and the values of WithEnv. Every message that
// quotes server output is redacted of them before it is cut
// (internal/redact).
func (c *config) secrets() []string {
	var out []string
	for _, v := range c.headers {
		out = append(out, v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			out = append(out, tok) // "Bearer <token>": the token alone too
		}
	}
	if c.conn.auth.bearer != "" {
		out = append(out, c.conn.auth.bearer)
	}
	if c.conn.auth.cc != nil && c.conn.auth.cc.ClientSecret != "" {
		out = append(out, c.conn.auth.cc.ClientSecret)
	}
	for _, kv := range c.env {
		if _, v, ok := strings.Cut(kv, "="); ok {
			out = append(out, v)
		}
	}
	return out
}

// Option configures [Connect]. Options that do not apply to the transport
// (WithEnv on HTTP, WithHeader on stdio) are ignored.
type Option struct {
	apply func(*config)
}

// DefaultMaxPages is how many tools/list pages [Session.ListToolsRaw] follows
// before giving up, unless [WithMaxPages] says otherwise.
const DefaultMaxPages = 1000

// stderrTailSize is how much of a stdio server's most recent stderr output
// is kept for connect errors.
const stderrTailSize = 4 << 10

type config struct {
	env             []string
	dir             string
	headers         map[string]string
	protocolVersion string
	clientName      string
	clientVersion   string
	stderr          io.Writer
	maxPages        int
	// maxResponseBytes bounds one server message (limits.go).
	maxResponseBytes int64
	// validateArgs and validateResults switch on the checks of validation.go.
	validateArgs, validateResults bool
	// conn holds the options of connect.go, sse.go and oauth.go.
	conn connConfig
	// digest is the check of WithDigestCheck (digest.go).
	digest digestCheck
	// observe holds WithLogger and WithInterceptor (observe.go); backoff
	// holds WithBackoff (registry.go).
	observe observeConfig
	backoff backoff
}

func newConfig(opts []Option) config {
	c := config{
		clientName:       "mcpbind",
		clientVersion:    moduleVersion(),
		maxPages:         DefaultMaxPages,
		maxResponseBytes: DefaultMaxResponseBytes,
	}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&c)
		}
	}
	return c
}

// WithEnv adds environment variables, each "KEY=VALUE", to a stdio server's
// environment (which otherwise is this process's). Later values win.
func WithEnv(kv ...string) Option {
	kv = append([]string(nil), kv...)
	return Option{func(c *config) { c.env = append(c.env, kv...) }}
}

// WithDir sets a stdio server's working directory.
func WithDir(dir string) Option {
	return Option{func(c *config) { c.dir = dir }}
}

// WithHeader adds an HTTP header to every request to an HTTP server
// (Streamable HTTP or HTTP+SSE), for example "X-Api-Key". A later value for
// the same key replaces an earlier one. An Authorization header given here is
// replaced by [WithBearerToken] or [WithOAuthClientCredentials]. Header
// values never appear in errors.
func WithHeader(key, value string) Option {
	return Option{func(c *config) {
		if c.headers == nil {
			c.headers = map[string]string{}
		}
		for k := range c.headers {
			if strings.EqualFold(k, key) {
				delete(c.headers, k)
			}
		}
		c.headers[key] = value
	}}
}

// WithProtocolVersion pins the MCP protocol version. A version before
// [ModernProtocolVersion] (such as "2025-06-18") connects with the initialize
// handshake at that version, never probing server/discover. "" (the default)
// asks for the newest version: mcp-go probes with server/discover at
// 2026-07-28 and falls back to initialize at 2025-11-25 when the server
// predates it. The server may still answer with another version; see
// [Session.ProtocolVersion].
func WithProtocolVersion(v string) Option {
	return Option{func(c *config) { c.protocolVersion = v }}
}

// WithClientInfo sets the clientInfo sent to the server (default name
// "mcpbind" and this module's version).
func WithClientInfo(name, version string) Option {
	return Option{func(c *config) { c.clientName, c.clientVersion = name, version }}
}

// WithStderr copies a stdio server's stderr to w (by default it is
// discarded). w is written from one goroutine; a w that blocks holds up the
// server once the pipe fills. Whatever w is, the last 4 KiB are kept for
// [ConnectError].
func WithStderr(w io.Writer) Option {
	return Option{func(c *config) { c.stderr = w }}
}

// WithMaxPages bounds how many tools/list pages [Session.ListToolsRaw]
// follows (default [DefaultMaxPages]); n <= 0 restores the default.
func WithMaxPages(n int) Option {
	return Option{func(c *config) {
		if n <= 0 {
			n = DefaultMaxPages
		}
		c.maxPages = n
	}}
}
