package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/export"
	"github.com/mcpbind/mcpbind/internal/protocol"
)

// defaultTimeout bounds connecting and listing tools unless --timeout says
// otherwise.
const defaultTimeout = 30 * time.Second

// serverFlags are the flags that say how to reach a live server and how to
// report on the connection, shared by export, call and check (login
// registers a few of them): read by (*cli).serverTarget and (*cli).connect.
type serverFlags struct {
	headers         []string
	bearerEnv       string
	env             []string
	protocolVersion string
	timeout         time.Duration
	// verbose (-v) and quiet (-q) say whether progress lines are shown
	// (showProgress); export's -q also drops its summary line.
	verbose bool
	quiet   bool
	// maxResponseBytes bounds each message of the server.
	maxResponseBytes int64
	// OAuth flags for an HTTP server (authflags.go).
	auth authOptions
}

// addServerFlags registers the server flags on cmd: --header,
// --bearer-env, --env, --protocol-version, --timeout, -v, -q, the OAuth
// flags and --max-response-bytes. Command-specific flags (export's --output
// and --id, …) are registered by the command.
func addServerFlags(cmd *cobra.Command, f *serverFlags) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.headers, "header", nil, "HTTP header `'NAME: VALUE'` sent to an HTTP server (repeatable)")
	fl.StringVar(&f.bearerEnv, "bearer-env", "", "send 'Authorization: Bearer <token>' to an HTTP server, the token read from environment variable `VAR`")
	fl.StringArrayVar(&f.env, "env", nil, "environment variable `KEY=VALUE` for a stdio server (repeatable)")
	fl.StringVar(&f.protocolVersion, "protocol-version", "", "ask for this MCP protocol `VERSION` instead of negotiating the newest")
	fl.DurationVar(&f.timeout, "timeout", defaultTimeout, "give up connecting and listing tools after this `DURATION` (0: never)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "report progress and copy a stdio server's stderr to stderr")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress lines on stderr (warnings and errors still)")
	addAuthFlags(fl, &f.auth)
	addLimitFlags(fl, f)
}

// addLimitFlags registers --max-response-bytes, the bound on each message a
// server sends (composition.WithMaxResponseBytes): a larger tools/list page
// or tool result fails at once with exit 3.
func addLimitFlags(fl *pflag.FlagSet, f *serverFlags) {
	fl.Int64Var(&f.maxResponseBytes, "max-response-bytes", composition.DefaultMaxResponseBytes,
		"fail when the server sends a message (a tools/list page, a tool result) larger than `N` bytes")
}

// showProgress reports whether progress lines go to stderr: with -v, or
// unless -q when stderr is a terminal (never into a log or a pipe).
func (c *cli) showProgress(f *serverFlags) bool {
	if f.verbose {
		return true
	}
	if f.quiet {
		return false
	}
	file, ok := c.stderr.(*os.File)
	return ok && (isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd()))
}

// waitForDiscover makes Connect wait for the server's answer to the
// server/discover probe (protocol 2026-07-28) as long as --timeout allows,
// instead of composition's default five seconds: a stdio server started
// through go run, npx or uvx may need longer than that to start, and the
// protocol version a bundle records must not depend on how fast the server
// started. A server that predates server/discover answers it with an error
// (JSON-RPC "method not found") or exits, and is then connected with
// initialize at once; one that stays silent but alive runs into --timeout,
// whose message says so (see (*cli).connect).
func waitForDiscover() composition.Option { return composition.WithDiscoverTimeout(-1) }

// liveServer connects to target as `mcpbind export` does (the same
// options, protocol pinning, progress, timeout and error mapping: a
// *composition.ConnectError for connecting, exit 3 for what the server
// answers), lists its tools and returns its bundle entry, in memory, with
// the id id (empty: the slug of its serverInfo name). The session is
// closed before it returns.
func (c *cli) liveServer(ctx context.Context, f *serverFlags, id string, target composition.Transport, opts []composition.Option) (*bundle.Server, error) {
	server := target.String() // command or redacted URL: safe to print
	k, err := c.connect(ctx, f, target, opts)
	if err != nil {
		return nil, err
	}
	defer k.cancel()
	sess, runCtx, progress, explain := k.sess, k.ctx, k.progress, k.explain
	defer func() {
		if err := sess.Close(); err != nil {
			fmt.Fprintf(c.stderr, "mcpbind: warning: closing %s: %v\n", server, err)
		}
	}()
	progress("connected: protocol %s over %s; listing tools", sess.ProtocolVersion(), sess.Transport())
	if v := sess.ProtocolVersion(); f.protocolVersion != "" && v != f.protocolVersion {
		fmt.Fprintf(c.stderr, "mcpbind: warning: asked %s for protocol %s; it answered %s\n", server, f.protocolVersion, v)
	}
	srv, err := export.Export(runCtx, sess, export.Options{ID: id})
	if err != nil {
		var ae *export.AnswerError
		if errors.As(err, &ae) {
			err = fmt.Errorf("server %s: %w", server, err) // the runtime's own errors name it already
		}
		return nil, withExit(exitServer, explain(err))
	}
	progress("listed %d %s of server %q", len(srv.Tools), plural(len(srv.Tools), "tool", "tools"), srv.ID)
	return srv, nil
}

// conn is a session opened from the server flags, with what every command
// that reaches a live server shares: progress lines (-v), the context
// bounded by --timeout, and error wording for a timeout or an interrupt.
type conn struct {
	sess     *composition.Session
	ctx      context.Context // bounded by --timeout; cancel when done
	cancel   context.CancelFunc
	progress func(format string, args ...any)
	explain  func(error) error
}

// connect opens a session to target with the server flags f: the protocol
// version pin, the server's stderr with -v, connection warnings, and the
// --timeout. A connect failure is returned explained (a
// *composition.ConnectError inside: exit 3, or 2 for a bad configuration).
// The caller closes the session and calls cancel.
func (c *cli) connect(ctx context.Context, f *serverFlags, target composition.Transport, opts []composition.Option) (*conn, error) {
	if f.protocolVersion != "" {
		opts = append(opts, composition.WithProtocolVersion(f.protocolVersion))
	}
	if f.verbose {
		opts = append(opts, composition.WithStderr(c.stderr))
	}
	opts = append(opts, composition.WithMaxResponseBytes(f.maxResponseBytes))
	// Connection warnings (an HTTP+SSE fallback, a server that ignored the
	// server/discover probe) are worth seeing even without -v.
	opts = append(opts, composition.WithWarnings(func(msg string) {
		fmt.Fprintf(c.stderr, "mcpbind: warning: %s\n", msg)
	}))
	k := &conn{ctx: ctx, cancel: func() {}}
	show := c.showProgress(f)
	k.progress = func(format string, args ...any) {
		if show {
			fmt.Fprintf(c.stderr, "mcpbind: "+format+"\n", args...)
		}
	}
	if f.timeout > 0 {
		k.ctx, k.cancel = context.WithTimeout(ctx, f.timeout)
	}
	k.explain = func(err error) error {
		var ce *composition.ConnectError
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && errors.As(err, &ce) &&
			ce.Stage == "initialize" && f.protocolVersion == "":
			return fmt.Errorf("%w (gave up after --timeout %s: the server is running but did not answer the handshake; "+
				"if it is still starting, give it a longer --timeout; if it ignores requests it does not know, such as "+
				"server/discover, pin an older protocol with --protocol-version %s)", err, f.timeout, protocol.NewestLegacyVersion)
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return fmt.Errorf("%w (gave up after --timeout %s)", err, f.timeout)
		case ctx.Err() != nil:
			return fmt.Errorf("%w (interrupted)", err)
		}
		return explainLogin(err)
	}
	k.progress("connecting to %s", target.String())
	sess, err := composition.Connect(k.ctx, target, opts...)
	if err != nil {
		k.cancel()
		return nil, k.explain(err)
	}
	k.sess = sess
	return k, nil
}

// serverTarget reads the server from the arguments and the server flags
// that say how to reach it, for export, call and check. Errors are usage
// errors; their messages never contain a header, token or environment
// value.
//
// secrets are the header, token and environment values given, which the
// server might echo back in an error message.
func (c *cli) serverTarget(f *serverFlags, args []string, dash int) (t composition.Transport, opts []composition.Option, secrets []string, err error) {
	var none composition.Transport
	opts = []composition.Option{waitForDiscover()}
	if f.timeout < 0 {
		return none, nil, nil, usageErrorf("--timeout must not be negative")
	}
	switch {
	case dash >= 0:
		if dash > 0 {
			return none, nil, nil, usageErrorf("unexpected argument %q before --: give either -- COMMAND [ARG...] or a URL", args[0])
		}
		if len(args) == 0 || args[0] == "" {
			return none, nil, nil, usageErrorf("missing the server command after --")
		}
		if len(f.headers) > 0 || f.bearerEnv != "" || f.auth.given() {
			return none, nil, nil, usageErrorf("--header, --bearer-env and --oauth-* apply to HTTP servers; this is a stdio server (command after --)")
		}
		for i, kv := range f.env {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return none, nil, nil, usageErrorf("--env #%d: want KEY=VALUE", i+1)
			}
		}
		for _, kv := range f.env {
			_, v, _ := strings.Cut(kv, "=")
			secrets = append(secrets, v)
		}
		if len(f.env) > 0 {
			opts = append(opts, composition.WithEnv(f.env...))
		}
		return composition.Stdio(args[0], args[1:]...), opts, secrets, nil

	case len(args) == 0:
		return none, nil, nil, usageErrorf("missing the server: give -- COMMAND [ARG...] for a stdio server or the URL of an HTTP server")
	case len(args) > 1:
		return none, nil, nil, usageErrorf("too many arguments: to start a stdio server, put its command after --, as in: mcpbind export -- %s", strings.Join(args, " "))
	}

	raw := args[0]
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return none, nil, nil, usageErrorf("%q is not an http or https URL; to start a stdio server, put its command after --, as in: mcpbind export -- %s", raw, raw)
	}
	if len(f.env) > 0 {
		return none, nil, nil, usageErrorf("--env applies to stdio servers; this is an HTTP server")
	}
	auth := false
	for i, h := range f.headers {
		name, value, err := parseHeader(h)
		if err != nil {
			return none, nil, nil, usageErrorf("--header #%d: %v", i+1, err)
		}
		secrets = append(secrets, value)
		auth = auth || strings.EqualFold(name, "Authorization")
		opts = append(opts, composition.WithHeader(name, value))
	}
	if f.bearerEnv != "" {
		if auth {
			return none, nil, nil, usageErrorf("--bearer-env and --header 'Authorization: …' both set the Authorization header; give one")
		}
		token, ok := c.lookupEnv(f.bearerEnv)
		token = strings.TrimSpace(token)
		switch {
		case !ok:
			return none, nil, nil, usageErrorf("--bearer-env: environment variable %s is not set", f.bearerEnv)
		case token == "":
			return none, nil, nil, usageErrorf("--bearer-env: environment variable %s is empty", f.bearerEnv)
		case strings.ContainsAny(token, "\r\n"):
			return none, nil, nil, usageErrorf("--bearer-env: environment variable %s holds a line break", f.bearerEnv)
		}
		opts = append(opts, composition.WithHeader("Authorization", "Bearer "+token))
		secrets = append(secrets, token)
	}
	if f.auth.given() && (auth || f.bearerEnv != "") {
		return none, nil, nil, usageErrorf("--oauth-*, --login and --bearer-env or --header 'Authorization: …' both authorize; give one")
	}
	switch {
	case f.auth.clientCredentialsGrant():
		authOpts, err := f.auth.compositionOptions(c.lookupEnv)
		if err != nil {
			return none, nil, nil, err
		}
		opts = append(opts, authOpts...)
		secrets = append(secrets, f.auth.secretValues(c.lookupEnv)...)
	case !auth && f.bearerEnv == "":
		// No credential given: the stored OAuth login, or the flow on a 401.
		opt, s, err := c.loginOption(&f.auth, false)
		if err != nil {
			return none, nil, nil, err
		}
		opts = append(opts, opt)
		secrets = append(secrets, s...)
	}
	return composition.HTTP(raw), opts, secrets, nil
}

// parseHeader splits "Name: value". The error never quotes the value.
func parseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", "", errors.New("want 'NAME: VALUE'")
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return "", "", fmt.Errorf("invalid header name %q", name)
		}
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n\x00") {
		return "", "", fmt.Errorf("the value of header %s holds a line break or NUL", name)
	}
	return name, value, nil
}

// isTokenChar reports whether c may appear in an HTTP header name (RFC 9110
// tchar).
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
