// Package serve runs an example's mcp-go server over stdio or streamable
// HTTP. The example servers share an output contract: stdout carries only
// MCP messages in stdio mode and nothing in HTTP mode; with HTTP, once the
// listener is bound, the first line written to stderr is
//
//	listening on http://HOST:PORT/mcp
//
// with the actual port (EndpointURL; a wildcard host such as 0.0.0.0 or ::
// is printed as 127.0.0.1).
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// Stdio serves s over stdin and stdout with composition.ServeStdio until
// ctx ends (then it returns nil) or stdin closes.
func Stdio(ctx context.Context, s *server.MCPServer, stdin io.Reader, stdout io.Writer) error {
	err := composition.ServeStdio(ctx, s, stdin, stdout)
	if ctx.Err() != nil { // stopped by a signal
		return nil
	}
	return err
}

// HTTP serves s as streamable HTTP (through
// composition.StreamableHTTPHandler, so forwarded results are not copied)
// at the path /mcp on the bound listener ln until ctx ends, then shuts
// down within 5 seconds. The caller binds ln (net.Listen) and writes the
// "listening on" line with EndpointURL first.
func HTTP(ctx context.Context, s *server.MCPServer, ln net.Listener) error {
	streamable := server.NewStreamableHTTPServer(s)
	mux := http.NewServeMux()
	mux.Handle("/mcp", composition.StreamableHTTPHandler(streamable))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(streamable.Shutdown(shutdownCtx), srv.Shutdown(shutdownCtx))
}

// EndpointURL is the URL of the /mcp endpoint on the bound address a.
func EndpointURL(a net.Addr) string {
	host, port := "127.0.0.1", ""
	if tcp, ok := a.(*net.TCPAddr); ok {
		port = fmt.Sprint(tcp.Port)
		if !tcp.IP.IsUnspecified() {
			host = tcp.IP.String()
		}
	} else if h, p, err := net.SplitHostPort(a.String()); err == nil {
		host, port = h, p
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}
