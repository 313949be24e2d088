package composition

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// NewInProcessSession returns a Session over mcp-go's in-process transport
// to srv, set up as Connect sets up the others (raw capture, initialize at
// version), so benchmarks can compare it with a bare mcp-go client without
// a process or a socket in between. Test builds only.
func NewInProcessSession(ctx context.Context, srv *server.MCPServer, version string) (*Session, error) {
	s := &Session{server: "in-process", kind: "in-process", maxPages: DefaultMaxPages}
	s.client = client.NewClient(newRawTransport(transport.NewInProcessTransport(srv)), client.WithProtocolVersion(version))
	s.life, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := s.client.Start(ctx); err != nil {
		return nil, err
	}
	res, err := s.client.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      mcp.Implementation{Name: "bench"},
	}})
	if err != nil {
		return nil, err
	}
	if s.version = s.client.ProtocolVersion(); s.version == "" {
		s.version = res.ProtocolVersion
	}
	return s, nil
}
