package mcpconn

import (
	"context"

	"github.com/mark3labs/mcp-go/client/transport"
)

// inProcessTransport makes mcp-go's in-process transport end requests as
// the stdio and HTTP transports do. mcp-go's InProcessTransport runs the
// server's handler on the caller's goroutine and returns whatever it
// answers: a handler that ignores its context holds the caller past its
// deadline, and one that returns ctx.Err() comes back as a tool result
// with isError set ("context deadline exceeded"), not as the context's
// error. Here the request runs on its own goroutine, and a request whose
// context has ended by the time it is answered fails with the context's
// error, so errors.Is(err, context.DeadlineExceeded) holds as it does over
// stdio (a fake in a test sees what production sees).
type inProcessTransport struct {
	transport.Interface
}

// SendRequest sends request through the in-process transport and returns
// its answer, or ctx's error as soon as ctx ends.
func (t inProcessTransport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := t.Interface.SendRequest(ctx, request)
		done <- answer{resp, err}
	}()
	select {
	case a := <-done:
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return a.resp, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
