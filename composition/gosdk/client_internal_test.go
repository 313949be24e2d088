package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
)

// TestAbandonedCallIsForgotten: a call whose ctx ends while the server is
// still working returns ctx's error, and the wrapped connection no longer
// holds its capture (it would otherwise wait for an answer that may never
// come, one entry per abandoned call).
func TestAbandonedCallIsForgotten(t *testing.T) {
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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, Transport(ct), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newConn(cs)
	defer c.Close()

	callCtx, stop := context.WithCancel(ctx)
	go func() {
		<-started
		stop()
	}()
	if _, err := c.CallToolRaw(callCtx, composition.RawCall{Name: "slow", Args: json.RawMessage(`{}`)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallToolRaw with its ctx cancelled: %v", err)
	}
	rc := c.raw.Load()
	if rc == nil {
		t.Fatal("the call did not pass the wrapped connection")
	}
	rc.mu.Lock()
	n := len(rc.pending)
	rc.mu.Unlock()
	if n != 0 {
		t.Fatalf("the wrapped connection still holds %d captures after the call gave up", n)
	}
}
