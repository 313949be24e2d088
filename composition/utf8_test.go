package composition_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// utf8Server is a raw JSON-RPC stdio child whose tools/call result holds
// the byte 0xFF (never valid UTF-8) in a text block, in structuredContent
// and in _meta. (mcp-go's server would not send it: its encoder replaces
// invalid bytes.)
const utf8Server = `while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue;; esac
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
  *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"utf8","version":"1"}}}\n' "$id";;
  *'"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"a\377b"}],"structuredContent":{"s":"a\377b"},"_meta":{"m":"\377"}}}\n' "$id";;
  *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id";;
  esac
done`

// TestInvalidUTF8: invalid UTF-8 in a result comes out of Result.JSON as
// U+FFFD (as encoding/json decodes it in strings), and a composing server
// that forwards the result (composition.Serve) sends valid UTF-8, also for
// a result with invalid bytes that a handler made itself.
func TestInvalidUTF8(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("this test needs /bin/sh: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := composition.Connect(ctx, composition.Stdio("sh", "-c", utf8Server), composition.WithProtocolVersion("2025-06-18"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallResult(ctx, "bad", nil)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := res.JSON()
	if want := "{\"s\":\"a\uFFFDb\"}"; !ok || string(v) != want {
		t.Errorf("JSON() = %q, %v; want %q", v, ok, want)
	}
	made := &composition.Result{StructuredContent: json.RawMessage("{\"s\":\"\xff\"}"), Meta: json.RawMessage("{\"m\":\"\xfe\"}")}
	if v, _ := made.JSON(); !utf8.Valid(v) {
		t.Errorf("JSON() of a Result made elsewhere = %q", v)
	}

	srv := server.NewMCPServer("proxy", "1", server.WithToolCapabilities(false))
	tools := []composition.ServedTool{
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "fwd"}, `{"name":"fwd","inputSchema":{"type":"object"}}`, func(ctx context.Context) (*composition.Result, error) {
			return s.CallResult(ctx, "bad", nil)
		}),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "made"}, `{"name":"made","inputSchema":{"type":"object"}}`, func(context.Context) (*composition.Result, error) {
			return made, nil
		}),
	}
	if err := composition.Serve(srv, tools); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fwd", "made"} {
		msg := srv.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`"}}`))
		wire, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(wire) || !json.Valid(wire) {
			t.Errorf("%s: the proxy sent %q", name, wire)
		}
		t.Logf("%s: %s", name, wire)
	}
}
