package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestResponseLimitPerEvent: WithMaxResponseBytes bounds each event of an
// event stream, not the stream: an mcp-go server that sends many log
// notifications before a tool's result (so that its answer to the POST
// becomes text/event-stream, Streamable HTTP) gets through although the
// whole stream is several times the limit, while a single JSON answer
// beyond the limit fails with a *LimitError.
func TestResponseLimitPerEvent(t *testing.T) {
	const limit = 4096
	pad := strings.Repeat("x", 500)
	s := server.NewMCPServer("events", "1.0.0", server.WithToolCapabilities(false), server.WithLogging())
	s.AddTool(mcp.NewTool("chatty"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for range 40 {
			if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message",
				map[string]any{"level": "info", "data": pad}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	s.AddTool(mcp.NewTool("big"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat(pad, 20)), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, HTTP(hs.URL+"/mcp"), WithMaxResponseBytes(limit))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.CallToolRaw(ctx, RawCall{Name: "chatty", Args: json.RawMessage(`{}`)})
	if err != nil || !strings.Contains(string(raw), "done") {
		t.Fatalf("40 events of 500 bytes under a %d-byte limit: %s, %v; want the result", limit, raw, err)
	}
	_, err = c.CallToolRaw(ctx, RawCall{Name: "big", Args: json.RawMessage(`{}`)})
	if le := new(LimitError); !errors.As(err, &le) {
		t.Fatalf("a 10000-byte JSON answer under a %d-byte limit: %v, want a *LimitError", limit, err)
	}
}
