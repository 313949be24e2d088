// Package mcpconn connects to MCP servers: it starts stdio servers as child
// processes (in a process group of their own), reaches Streamable HTTP and
// legacy HTTP+SSE servers (with the fallback between them, OAuth client
// credentials, same-origin redirects and per-message size limits) and
// servers in the same process, performs the handshake of the negotiated
// protocol era through mcp-go's client, and keeps the raw JSON of what the
// server sent (tools/list pages, tools/call results).
//
// It is the connection machinery behind the public runtime in package
// composition (which documents every option for users) and behind export.
// Nothing here decodes tool results or knows about generated code.
package mcpconn

import (
	"github.com/mark3labs/mcp-go/server"
	"io"
	"strings"
	"time"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// Transport names, as returned by [Conn.Transport] and recorded in a
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
	// TransportInProcess is a server in the same process, reached through
	// mcp-go's in-process transport: every message is marshalled to JSON and
	// handled by the server as if it had arrived over a wire.
	TransportInProcess = "in-process"
)

// Transport says how to reach a server. Make one with [Stdio], [HTTP] or
// [SSE]; the zero value is not usable and makes [Connect] fail.
type Transport struct {
	kind    string
	command string
	args    []string
	url     string
	inproc  *server.MCPServer
}

// Stdio: see composition.Stdio, which documents it for users.
func Stdio(command string, args ...string) Transport {
	return Transport{kind: TransportStdio, command: command, args: append([]string(nil), args...)}
}

// HTTP: see composition.HTTP, which documents it for users.
func HTTP(url string) Transport {
	return Transport{kind: TransportStreamableHTTP, url: url}
}

// SSE: see composition.SSE, which documents it for users.
func SSE(url string) Transport {
	return Transport{kind: TransportSSE, url: url}
}

// InProcess is the server s in this process (see [TransportInProcess]).
func InProcess(s *server.MCPServer) Transport {
	return Transport{kind: TransportInProcess, inproc: s}
}

// Kind is the transport's name: [TransportStdio], [TransportStreamableHTTP],
// [TransportSSE], [TransportInProcess], or "" for the zero Transport.
func (t Transport) Kind() string { return t.kind }

// String names the server for messages: the command of a stdio server (not
// its arguments, which may carry secrets), or the URL of an HTTP server
// without its user information, query and fragment.
func (t Transport) String() string {
	switch t.kind {
	case TransportStdio:
		return t.command
	case TransportStreamableHTTP, TransportSSE:
		return redactURL(t.url)
	case TransportInProcess:
		return "in-process server"
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

// DefaultMaxPages: see composition.DefaultMaxPages, which documents it for
// users; WithMaxPages changes it (tests only).
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
	// conn holds the options of connect.go, sse.go and oauth.go.
	conn connConfig
	// toolListStream: see WithToolListStream.
	toolListStream bool
	// stdinStall is how long a write to a stdio server's stdin may make no
	// progress (stdiotransport.go); only tests change it.
	stdinStall time.Duration
	// resultBudget, if set, bounds the bytes of large messages being read
	// at once by the stdio sessions that share it (budget.go).
	resultBudget *ResultBudget
}

func newConfig(opts []Option) config {
	c := config{
		clientName:       "mcpbind",
		clientVersion:    moduleVersion(),
		maxPages:         DefaultMaxPages,
		maxResponseBytes: DefaultMaxResponseBytes,
		stdinStall:       stdinStall,
	}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&c)
		}
	}
	return c
}

// WithEnv: see composition.WithEnv, which documents it for users.
func WithEnv(kv ...string) Option {
	kv = append([]string(nil), kv...)
	return Option{func(c *config) { c.env = append(c.env, kv...) }}
}

// WithDir: see composition.WithDir, which documents it for users.
func WithDir(dir string) Option {
	return Option{func(c *config) { c.dir = dir }}
}

// WithHeader: see composition.WithHeader, which documents it for users.
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

// WithProtocolVersion: see composition.WithProtocolVersion, which documents it for users.
func WithProtocolVersion(v string) Option {
	return Option{func(c *config) { c.protocolVersion = v }}
}

// WithToolListStream has a Streamable HTTP connection asked for a protocol
// version before 2026-07-28 (WithProtocolVersion) hold the standalone GET
// stream open, so that server notifications such as
// notifications/tools/list_changed arrive between requests; composition
// asks for it for sessions with pinned tools. From 2026-07-28 on that
// stream does not exist (subscriptions/listen replaces it, SEP-2575) and
// mcp-go keeps a transport that uses it on a legacy version, so a
// connection that negotiates its version does not use it.
func WithToolListStream() Option {
	return Option{func(c *config) { c.toolListStream = true }}
}

// WithClientInfo sets the clientInfo sent to the server (default name
// "mcpbind" and this module's version).
func WithClientInfo(name, version string) Option {
	return Option{func(c *config) { c.clientName, c.clientVersion = name, version }}
}

// WithStderr: see composition.WithStderr, which documents it for users.
func WithStderr(w io.Writer) Option {
	return Option{func(c *config) { c.stderr = w }}
}

// WithMaxPages bounds how many tools/list pages ListToolsRaw follows
// (default DefaultMaxPages); n <= 0 restores the default.
func WithMaxPages(n int) Option {
	return Option{func(c *config) {
		if n <= 0 {
			n = DefaultMaxPages
		}
		c.maxPages = n
	}}
}
