package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
)

// TestAbandonedCallIsForgotten: a call whose ctx ends while the server is
// still working returns ctx's error, the wrapped connection no longer holds
// its capture (it would otherwise wait for an answer that may never come,
// one entry per abandoned call), and the session knows the wrapped
// connection the request went out on (PeerInfo, the watches), whichever
// way the call ended:
//   - written: ctx ends once the write of the request has returned, so
//     CallToolRaw waits for go-sdk, which gives the request up;
//   - write not returned: ctx ends while the write has not returned yet,
//     though the server has read the request and started on it (as a
//     loaded machine may schedule it with any transport), so CallToolRaw
//     returns at once and the call left behind ends with the write (the
//     case that, left to the scheduler, made this test flaky under load).
func TestAbandonedCallIsForgotten(t *testing.T) {
	t.Run("written", func(t *testing.T) {
		wrote := make(chan struct{}, 1)
		abandonCall(t, func(ct mcp.Transport) mcp.Transport {
			return &heldTransport{Transport: Transport(ct), wrote: wrote} // outside: reports after the wrapped connection's write
		}, wrote, nil)
	})
	t.Run("write not returned", func(t *testing.T) {
		hold := make(chan struct{})
		abandonCall(t, func(ct mcp.Transport) mcp.Transport {
			return Transport(&heldTransport{Transport: ct, hold: hold}) // inside: the wrapped connection's write waits
		}, nil, hold)
	})
}

// abandonCall calls the tool "slow" of an in-memory go-sdk server through
// a client session connected over wrap(the client's in-memory transport),
// ends the call's ctx once the tool has started and (when wrote is not nil)
// a request was received on wrote, and checks what TestAbandonedCallIsForgotten
// says. hold, when not nil, is closed before the sessions are.
func abandonCall(t *testing.T, wrap func(mcp.Transport) mcp.Transport, wrote <-chan struct{}, hold chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started, release := make(chan struct{}), make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select { // answers only when the test ends, or go-sdk cancels it
		case <-release:
		case <-ctx.Done():
		}
		return nil, errors.New("too late")
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	defer close(release) // before ss.Close, which waits for the handler
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, wrap(ct), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newConn(cs)
	defer c.Close()
	if hold != nil {
		defer close(hold) // before c.Close: the write left behind returns
	}

	callCtx, stop := context.WithCancel(ctx)
	go func() {
		<-started
		if wrote != nil {
			<-wrote
		}
		stop()
	}()
	if _, err := c.CallToolRaw(callCtx, composition.RawCall{Name: "slow", Args: json.RawMessage(`{}`)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallToolRaw with its ctx cancelled: %v", err)
	}
	rc := c.raw.Load()
	if rc == nil {
		t.Fatal("CallToolRaw returned and the session does not know the wrapped connection its request went out on")
	}
	rc.mu.Lock()
	n := len(rc.pending)
	rc.mu.Unlock()
	if n != 0 {
		t.Fatalf("the wrapped connection still holds %d captures after the call gave up", n)
	}
}

// heldTransport wraps a go-sdk transport so that the test decides when the
// write of a tools/call request returns: once the request is passed on,
// Write sends on wrote (when not nil) and waits until hold is closed (when
// not nil). Every message is passed on as is.
type heldTransport struct {
	mcp.Transport
	wrote chan<- struct{}
	hold  <-chan struct{}
}

// Connect connects the wrapped transport and wraps its connection.
func (t *heldTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &heldConn{Connection: c, t: t}, nil
}

// heldConn is the connection of a heldTransport.
type heldConn struct {
	mcp.Connection
	t *heldTransport
}

// Write passes msg on, then, for a tools/call request, reports and waits
// as its transport says.
func (c *heldConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/call" {
		if c.t.wrote != nil {
			c.t.wrote <- struct{}{}
		}
		if c.t.hold != nil {
			<-c.t.hold
		}
	}
	return err
}
