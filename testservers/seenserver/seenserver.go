// Package seenserver is an mcp-go server for tests of what a client's
// tools/call request carries: its tool "seen" answers with the params._meta
// and the JSON-RPC id of its own request, as mcp-go's server received them.
// Tests run it in process, over Streamable HTTP, or over stdio from their
// own test binary started again ([ServeStdio]).
package seenserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// NonceKey is the _meta entry that ties a request to its id: the server
// records each tools/call's JSON-RPC id under its nonce (a BeforeCallTool
// hook sees the id), and "seen" answers with the id recorded under its own.
const NonceKey = "test.nonce"

// Seen is the structured result of the tool "seen".
type Seen struct {
	// Meta is the request's params._meta as the server decoded it (every
	// entry, reserved ones included); nil when there was none.
	Meta map[string]any `json:"meta"`
	// ID is the request's JSON-RPC id as text ("7"); "" when the request
	// had no NonceKey entry.
	ID string `json:"id"`
}

// New returns the server: tool "seen" (read-only), as described above.
func New() *server.MCPServer {
	var mu sync.Mutex
	ids := map[string]string{}
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(func(_ context.Context, id any, req *mcp.CallToolRequest) {
		if req.Params.Meta == nil {
			return
		}
		nonce, ok := req.Params.Meta.AdditionalFields[NonceKey].(string)
		if !ok {
			return
		}
		text := fmt.Sprint(id)
		if rid, ok := id.(mcp.RequestId); ok {
			text = fmt.Sprint(rid.Value())
		}
		mu.Lock()
		ids[nonce] = text
		mu.Unlock()
	})
	s := server.NewMCPServer("seen", "1.0.0", server.WithHooks(hooks), server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("seen", mcp.WithDescription("Answers with its request's _meta and JSON-RPC id."), mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var seen Seen
			if m := req.Params.Meta; m != nil {
				seen.Meta = map[string]any{}
				for k, v := range m.AdditionalFields {
					seen.Meta[k] = v
				}
				if m.ProgressToken != nil {
					seen.Meta["progressToken"] = m.ProgressToken
				}
				if nonce, ok := m.AdditionalFields[NonceKey].(string); ok {
					mu.Lock()
					seen.ID = ids[nonce]
					mu.Unlock()
				}
			}
			return mcp.NewToolResultStructuredOnly(seen), nil
		})
	return s
}

// ServeStdio serves New over this process's stdin and stdout and exits:
// the body of a test binary started again as the server.
func ServeStdio() {
	err := server.ServeStdio(New())
	if err != nil {
		fmt.Fprintln(os.Stderr, "seenserver:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ModernVersion is the protocol version from which an SDK adds the
// reserved io.modelcontextprotocol/ entries to every request's _meta.
const ModernVersion = "2026-07-28"

// Check decodes raw, the structured result of "seen" for a request a
// client sent at version with the string entries want in its _meta, and
// fails t unless the server received exactly want's entries besides the
// reserved io.modelcontextprotocol/ ones, those only from ModernVersion
// on, with the session's protocol version (a caller's reserved entry must
// not replace the SDK's), and recorded the request's id.
func Check(t testing.TB, raw json.RawMessage, want map[string]string, version string) Seen {
	t.Helper()
	var seen Seen
	if err := json.Unmarshal(raw, &seen); err != nil {
		t.Fatalf("seen's result %s: %v", raw, err)
	}
	reserved := 0
	for k, v := range seen.Meta {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			reserved++
			if k == "io.modelcontextprotocol/protocolVersion" && v != version {
				t.Errorf("the server received %s = %v, want the session's %s", k, v, version)
			}
			continue
		}
		if w, ok := want[k]; !ok || w != v {
			t.Errorf("the server received _meta entry %s = %v, want %q (present: %t)", k, v, w, ok)
		}
	}
	for k := range want {
		if _, ok := seen.Meta[k]; !ok {
			t.Errorf("the server did not receive the _meta entry %s (received %v)", k, seen.Meta)
		}
	}
	if modern := version >= ModernVersion; modern != (reserved > 0) {
		t.Errorf("at %s the server received %d reserved _meta entries (%v)", version, reserved, seen.Meta)
	}
	if want[NonceKey] != "" && seen.ID == "" {
		t.Errorf("the server recorded no id for nonce %s", want[NonceKey])
	}
	return seen
}

// CallTwice calls "seen" twice on s (so that the request checked is not
// the session's first) and returns the second result's structuredContent;
// it fails t when a call fails.
func CallTwice(ctx context.Context, t testing.TB, s *composition.Session) json.RawMessage {
	t.Helper()
	var res *composition.Result
	for range 2 {
		var err error
		if res, err = s.CallResult(ctx, "seen", nil); err != nil {
			t.Fatal(err)
		}
	}
	return res.StructuredContent
}
