package mcpconn

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The legacy HTTP+SSE transport (MCP 2024-11-05), through mcp-go's
// transport.NewSSE: a GET opens the event stream, whose "endpoint" event
// names the URL that requests are POSTed to, and every answer arrives on the
// stream. It is reached with composition.SSE, or by the fallback of
// composition.HTTP (connect.go).

const (
	// sseEndpointTimeout bounds the wait for the "endpoint" event once the
	// stream is open (a server sends it at once); the connect context may
	// end the wait sooner.
	sseEndpointTimeout = 10 * time.Second
	// sseResponseTimeout replaces mcp-go's per-request default of 60 s: how
	// long a call may take is the caller's context's business, and a stream
	// that ends fails the requests in flight (see dial).
	sseResponseTimeout = 100 * 365 * 24 * time.Hour
)

// newSSETransport makes the mcp-go SSE transport of session s, with the
// headers and credentials of the config and s's HTTP recorder, which also
// insists that the GET opens a text/event-stream.
func newSSETransport(s *Conn, rawURL string, cfg *config, auth *authState, rt http.RoundTripper) (transport.Interface, error) {
	s.http.eventStream = true
	opts := []transport.ClientOption{
		transport.WithHeaders(cfg.headers),
		transport.WithHTTPClient(newHTTPClient(rt)),
		transport.WithSSELogger(slog.New(slog.DiscardHandler)),
		transport.WithEndpointTimeout(sseEndpointTimeout),
		transport.WithResponseTimeout(sseResponseTimeout),
	}
	if auth != nil && auth.login == nil {
		opts = append(opts, transport.WithOAuth(auth.oauthConfig()))
	}
	tr, err := transport.NewSSE(rawURL, opts...)
	if err != nil {
		return nil, err
	}
	return sseTransport{tr}, nil
}

// sseTransport is mcp-go's SSE transport with a request's context as the
// only bound on its wait for the answer. mcp-go bounds the wait with a timer
// set to the context's remaining time, which may fire just before the
// context ends, so that a call past its deadline would fail with "timeout
// waiting for SSE response" instead of context.DeadlineExceeded.
type sseTransport struct{ *transport.SSE }

// SendRequest sends req and waits for its answer until ctx ends.
func (t sseTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if _, ok := ctx.Deadline(); !ok {
		return t.SSE.SendRequest(ctx, req)
	}
	inner, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	resp, err := t.SSE.SendRequest(inner, req)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return resp, err
}

// sseVersion is the protocol version an HTTP+SSE session asks for: the one
// pinned if it predates 2026-07-28, else the newest that does.
func sseVersion(pinned string) string {
	if pinned != "" && !mcp.IsModernProtocol(pinned) {
		return pinned
	}
	return mcp.LATEST_LEGACY_PROTOCOL_VERSION
}
