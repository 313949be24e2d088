package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/loopback"
)

// Hosting a composing server: stdio or streamable HTTP with graceful
// shutdown, health endpoints and the transport and authorization safety
// the MCP specification asks for ("Transports: Security Warning":
// validate Origin, bind to localhost; "Authorization": bearer tokens and
// RFC 9728 protected-resource metadata). Serving itself is mcp-go's
// (through ServeStdio and StreamableHTTPHandler); this file only wraps it.

// DefaultShutdownTimeout is how long calls in flight may run once the
// serving context ends, when [HostOptions.ShutdownTimeout] is zero.
const DefaultShutdownTimeout = 10 * time.Second

// DefaultHTTPAddr is the address [ListenHTTP] binds when
// [HostOptions.Addr] is empty: the IPv4 loopback, a free port.
const DefaultHTTPAddr = "127.0.0.1:0"

// Paths served by [ListenHTTP] next to the MCP endpoint.
const (
	// LivenessPath answers 200 {"status":"ok"} while the process serves.
	LivenessPath = "/healthz"
	// ReadinessPath answers 200 when ready, 503 when not (see
	// [HostOptions.Ready]), with a JSON [Readiness] body.
	ReadinessPath = "/readyz"
)

// HostOptions configures [RunStdio] and [ListenHTTP]. The zero value
// serves at 127.0.0.1 on a free port, at /mcp, allowing only loopback
// origins and no authentication, and waits 10 s for calls in flight.
type HostOptions struct {
	// Addr is the TCP address to listen on (HTTP only), as net.Listen
	// takes it; empty means [DefaultHTTPAddr]. An address that is not a
	// loopback one ("", "0.0.0.0", "::", a host name other than
	// localhost, a non-loopback IP) is refused unless Auth is set.
	Addr string
	// Path is the MCP endpoint's path (HTTP only); empty means "/mcp".
	Path string
	// ShutdownTimeout bounds the time calls in flight may take to finish
	// once the serving context ends (and, on stdio, once stdin ends);
	// zero means [DefaultShutdownTimeout]. Then they are cancelled.
	ShutdownTimeout time.Duration
	// Registry, when set, is where readiness comes from
	// ([Registry.Status]) and is closed (stopping its downstream
	// servers) once serving has ended.
	Registry *Registry
	// Ready decides readiness from the registry's statuses; nil means
	// [DefaultReady]. Use it to count only some servers.
	Ready func([]ServerStatus) bool
	// AllowedOrigins are the browser origins ("scheme://host[:port]")
	// allowed to reach the server (HTTP only). A request without an
	// Origin header (a non-browser client) is always allowed; one with
	// an Origin not listed gets 403. Empty means the listener's loopback
	// origins: http://127.0.0.1:PORT, http://localhost:PORT and
	// http://[::1]:PORT.
	AllowedOrigins []string
	// Streamable are options of mcp-go's streamable HTTP transport
	// (server.NewStreamableHTTPServer), e.g. server.WithStateLess or
	// server.WithHTTPContextFunc (HTTP only). Not
	// server.WithEventStore (see [StreamableHTTPHandler]) nor
	// server.WithStreamableHTTPServer: ListenHTTP runs the http.Server.
	Streamable []server.StreamableHTTPOption
	// Auth, when set, requires a bearer token on the MCP endpoint and
	// serves its protected-resource metadata (HTTP only). Required on a
	// non-loopback address.
	Auth *BearerAuth
}

// BearerAuth authenticates the requests of an HTTP-served MCP endpoint
// with OAuth 2.1 bearer tokens (MCP spec "Authorization"; RFC 6750).
type BearerAuth struct {
	// Verify checks a request's bearer token (without the "Bearer "
	// prefix). It returns the context the request is served with (for
	// example carrying the caller's identity for the tool handlers), or
	// an error: an *[InsufficientScopeError] answers 403, any other
	// error 401. Its error text never reaches the client.
	Verify func(ctx context.Context, token string) (context.Context, error)
	// Metadata is the OAuth 2.0 protected-resource metadata (RFC 9728)
	// served at its well-known path (server.ProtectedResourceMetadataPath
	// of Metadata.Resource) and named by the resource_metadata parameter
	// of every WWW-Authenticate challenge. List the authorization
	// servers in AuthorizationServers. An empty Resource is the
	// endpoint's URL as bound (set it to the public URL when the server
	// is reached through a proxy).
	Metadata server.ProtectedResourceMetadataConfig
}

// InsufficientScopeError is the error a [BearerAuth] Verify returns for
// a valid token that lacks a scope: the request is answered 403 with
// error="insufficient_scope" (RFC 6750 §3.1).
type InsufficientScopeError struct {
	// Scope is the space-separated scopes the request needs, sent in the
	// challenge's scope parameter ("" for none).
	Scope string
}

// Error says which scopes are needed.
func (e *InsufficientScopeError) Error() string {
	return "composition: the token lacks the scope " + strconv.Quote(e.Scope)
}

// Readiness is the JSON body of the readiness endpoint.
type Readiness struct {
	// Ready is whether the server is ready to serve calls.
	Ready bool `json:"ready"`
	// Servers are the registry's statuses (redacted of secrets, see
	// [ServerStatus]); left out when Auth is set, since the endpoint is
	// not authenticated.
	Servers []ServerStatus `json:"servers,omitempty"`
}

// DefaultReady is ready unless a server has failed, is degraded (under
// [DigestFail], some of its pinned tools are blocked) or is closed. An
// idle server (not started yet), or one connecting, counts as ready.
func DefaultReady(statuses []ServerStatus) bool {
	for _, st := range statuses {
		switch st.State {
		case StateFailed, StateDegraded, StateClosed:
			return false
		}
	}
	return true
}

// shutdownTimeout is o's bound on calls in flight.
func (o HostOptions) shutdownTimeout() time.Duration {
	if o.ShutdownTimeout > 0 {
		return o.ShutdownTimeout
	}
	return DefaultShutdownTimeout
}

// closeRegistry closes o's registry, if any.
func (o HostOptions) closeRegistry() error {
	if o.Registry == nil {
		return nil
	}
	if err := o.Registry.Close(); err != nil {
		return fmt.Errorf("composition: closing the registry: %w", err)
	}
	return nil
}

// RunStdio serves s over in and out (normally os.Stdin and os.Stdout)
// with [ServeStdio] until ctx ends or in ends, then lets the calls in
// flight finish within opts.ShutdownTimeout (their answers written),
// cancels those still running and closes opts.Registry. It returns nil
// when stopped by ctx or by the end of in. Make ctx with
// signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM) to stop on
// SIGTERM. Only ShutdownTimeout and Registry of opts apply.
func RunStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, opts HostOptions) error {
	err := serveStdio(ctx, s, in, out, opts.shutdownTimeout())
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = nil // stopped as asked
	}
	return errors.Join(err, opts.closeRegistry())
}

// HTTPHost is an MCP server bound to a TCP listener by [ListenHTTP],
// ready to [HTTPHost.Serve].
type HTTPHost struct {
	ln         net.Listener
	srv        *http.Server
	streamable *server.StreamableHTTPServer
	url        string
	opts       HostOptions

	mu    sync.Mutex
	calls int           // MCP requests other than GET in flight
	idle  chan struct{} // closed when calls drops to 0, if waited for
}

// callsIdle returns a channel closed once no MCP request other than a GET
// is in flight.
func (h *HTTPHost) callsIdle() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.idle == nil {
		h.idle = make(chan struct{})
		if h.calls == 0 {
			close(h.idle)
		}
	}
	return h.idle
}

// track counts a request in flight until the returned func is called.
func (h *HTTPHost) track() (done func()) {
	h.mu.Lock()
	h.calls++
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.calls--; h.calls == 0 && h.idle != nil {
			select {
			case <-h.idle:
			default:
				close(h.idle)
			}
		}
	}
}

// ListenHTTP binds opts.Addr and prepares s to be served as streamable
// HTTP (MCP spec "Transports: Streamable HTTP", through
// [StreamableHTTPHandler]) at opts.Path, with [LivenessPath] and
// [ReadinessPath] and, with opts.Auth, the protected-resource metadata.
// It refuses a non-loopback address without opts.Auth (nothing is bound)
// and an Auth without Verify. Every request with an Origin header not
// allowed (see [HostOptions.AllowedOrigins]) is answered 403, except the
// metadata, which browsers fetch cross-origin; with Auth, a request to
// the MCP endpoint without a valid bearer token is answered 401 with
// `WWW-Authenticate: Bearer resource_metadata="…"`. The health
// endpoints are not authenticated (probes carry no token).
func ListenHTTP(s *server.MCPServer, opts HostOptions) (*HTTPHost, error) {
	addr := opts.Addr
	if addr == "" {
		addr = DefaultHTTPAddr
	}
	if opts.Auth != nil && opts.Auth.Verify == nil {
		return nil, errors.New("composition: serving HTTP: BearerAuth has no Verify")
	}
	if !loopback.Addr(addr) && opts.Auth == nil {
		return nil, fmt.Errorf("composition: refusing to serve HTTP on %s without authentication: it is not a loopback address "+
			"(the MCP specification asks servers to bind to localhost or authenticate); set HostOptions.Auth or listen on 127.0.0.1",
			strconv.Quote(addr))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("composition: serving HTTP: %w", err)
	}
	path := opts.Path
	if path == "" {
		path = "/mcp"
	}
	h := &HTTPHost{ln: ln, streamable: server.NewStreamableHTTPServer(s, opts.Streamable...), url: endpointURL(ln.Addr(), path), opts: opts}
	origins := opts.AllowedOrigins
	if len(origins) == 0 {
		origins = loopbackOrigins(ln.Addr())
	}
	held := StreamableHTTPHandler(h.streamable)
	var mcpHandler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			defer h.track()()
		}
		held.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	if opts.Auth != nil {
		meta := opts.Auth.Metadata
		if meta.Resource == "" {
			meta.Resource = h.url
		}
		metaPath := server.ProtectedResourceMetadataPath(meta.Resource)
		mux.Handle(metaPath, server.NewProtectedResourceMetadataHandler(meta))
		metaURL := metaPath
		if u, err := url.Parse(meta.Resource); err == nil && u.IsAbs() {
			metaURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: metaPath}).String()
		}
		mcpHandler = bearerAuth(opts.Auth.Verify, metaURL, mcpHandler)
	}
	mux.Handle(path, checkOrigin(origins, mcpHandler))
	mux.Handle(LivenessPath, checkOrigin(origins, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hostJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})))
	mux.Handle(ReadinessPath, checkOrigin(origins, http.HandlerFunc(h.readiness)))
	h.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return h, nil
}

// URL is the MCP endpoint's URL as bound, e.g. http://127.0.0.1:43121/mcp
// (a wildcard host such as 0.0.0.0 or :: is given as 127.0.0.1).
func (h *HTTPHost) URL() string { return h.url }

// Addr is the bound address.
func (h *HTTPHost) Addr() net.Addr { return h.ln.Addr() }

// Serve serves until ctx ends, then shuts down: it stops accepting
// connections, closes mcp-go's sessions, lets the requests in flight
// finish within the shutdown timeout (then closes their connections) and
// closes the registry. It returns nil when stopped by ctx, or the error
// that stopped serving. Make ctx with signal.NotifyContext(ctx,
// os.Interrupt, syscall.SIGTERM) to stop on SIGTERM.
func (h *HTTPHost) Serve(ctx context.Context) error {
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(h.ln) }()
	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("composition: serving HTTP: %w", err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.opts.shutdownTimeout())
		defer cancel()
		// Shutdown closes the listener at once, then waits for the
		// connections to go idle; a client's GET stream never does, so
		// once the calls (POSTs) in flight have finished, mcp-go's
		// sessions are closed, which ends those streams.
		shut := make(chan error, 1)
		go func() { shut <- h.srv.Shutdown(shutdownCtx) }()
		select {
		case <-h.callsIdle():
		case <-shutdownCtx.Done():
		}
		h.streamable.CloseSessions(shutdownCtx)
		if serr := <-shut; serr != nil {
			_ = h.srv.Close() // the bound has passed: cut what is left
		}
	}
	return errors.Join(err, h.opts.closeRegistry())
}

// readiness answers the readiness endpoint.
func (h *HTTPHost) readiness(w http.ResponseWriter, _ *http.Request) {
	var statuses []ServerStatus
	if h.opts.Registry != nil {
		statuses = h.opts.Registry.Status()
	}
	ready := h.opts.Ready
	if ready == nil {
		ready = DefaultReady
	}
	body := Readiness{Ready: ready(statuses)}
	if h.opts.Auth == nil {
		body.Servers = statuses
	}
	code := http.StatusOK
	if !body.Ready {
		code = http.StatusServiceUnavailable
	}
	hostJSON(w, code, body)
}

// hostJSON writes v as a JSON body with status code.
func hostJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// httpError is the JSON body of a refused request: our words only.
type httpError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// checkOrigin refuses with 403 a request whose Origin header is present
// and not in allowed (DNS-rebinding protection, MCP spec "Transports:
// Security Warning").
func checkOrigin(allowed []string, next http.Handler) http.Handler {
	norm := make([]string, len(allowed))
	for i, o := range allowed {
		norm[i] = strings.ToLower(strings.TrimSuffix(o, "/"))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || !slices.Contains(norm, strings.ToLower(origin[0]))) {
			hostJSON(w, http.StatusForbidden, httpError{Error: "forbidden_origin", Description: "composition: the request's Origin is not allowed"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerAuth requires a bearer token that verify accepts; metaURL is the
// protected-resource metadata's URL for the challenges.
func bearerAuth(verify func(context.Context, string) (context.Context, error), metaURL string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		challenge := `Bearer resource_metadata=` + strconv.Quote(metaURL)
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			w.Header().Set("WWW-Authenticate", challenge)
			hostJSON(w, http.StatusUnauthorized, httpError{Error: "invalid_request", Description: "composition: a bearer token is required"})
			return
		}
		ctx, err := verify(r.Context(), token)
		if scopeErr := (*InsufficientScopeError)(nil); errors.As(err, &scopeErr) {
			c := `Bearer error="insufficient_scope"`
			if scopeErr.Scope != "" {
				c += `, scope=` + strconv.Quote(scopeErr.Scope)
			}
			w.Header().Set("WWW-Authenticate", c+`, resource_metadata=`+strconv.Quote(metaURL))
			hostJSON(w, http.StatusForbidden, httpError{Error: "insufficient_scope", Description: "composition: the bearer token lacks a required scope"})
			return
		}
		if err != nil || ctx == nil {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata=`+strconv.Quote(metaURL))
			hostJSON(w, http.StatusUnauthorized, httpError{Error: "invalid_token", Description: "composition: the bearer token was refused"})
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// loopbackOrigins are the origins a browser on this machine uses for the
// listener at a.
func loopbackOrigins(a net.Addr) []string {
	_, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return nil
	}
	return []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port}
}

// endpointURL is the URL of path on the bound address a.
func endpointURL(a net.Addr, path string) string {
	host, port := "127.0.0.1", ""
	if tcp, ok := a.(*net.TCPAddr); ok {
		port = strconv.Itoa(tcp.Port)
		if !tcp.IP.IsUnspecified() {
			host = tcp.IP.String()
		}
	} else if h, p, err := net.SplitHostPort(a.String()); err == nil {
		host, port = h, p
	}
	return "http://" + net.JoinHostPort(host, port) + path
}
