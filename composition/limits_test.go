package composition

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMaxResponseBytes: a real server whose tool result is larger than
// WithMaxResponseBytes fails the call at once with a *LimitError, over stdio
// and Streamable HTTP; a smaller result passes.
func TestMaxResponseBytes(t *testing.T) {
	bin := buildTestServer(t)
	big := strings.Repeat("x", 100_000)
	t.Setenv("MCPBIND_BIG", big) // the HTTP server inherits it
	url := startHTTPServer(t, bin)
	for _, tr := range []Transport{Stdio(bin), HTTP(url)} {
		t.Run(tr.Kind(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			s, err := Connect(ctx, tr, WithEnv("MCPBIND_BIG="+big), WithMaxResponseBytes(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.CallResult(ctx, "getenv", map[string]any{"name": "HOME"}); err != nil {
				t.Fatalf("a small result: %v", err)
			}
			_, err = s.CallResult(ctx, "getenv", map[string]any{"name": "MCPBIND_BIG"})
			var le *LimitError
			if !errors.As(err, &le) || le.Depth || le.Limit != 64<<10 {
				t.Fatalf("err = %v, want a size *LimitError", err)
			}
			if errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "larger than 65536 bytes") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// deepServer is a stdio fake that answers every request with a result
// whose capabilities hold arrays nested depth levels deep.
func deepServer(depth int) Transport {
	script := fmt.Sprintf(`open=$(printf '%%%ds' '' | tr ' ' '['); close=$(printf '%%%ds' '' | tr ' ' ']')
while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue;; esac
  id=$(printf '%%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  printf '{"jsonrpc":"2.0","id":%%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"x":%%s%%s}},"serverInfo":{"name":"deep","version":"1"}}}\n' "$id" "$open" "$close"
done`, depth, depth)
	return Stdio("sh", "-c", script)
}

// TestDeepResponse: a message nested 4,000 deep is decoded (encoding/json
// accepts up to 10,000 levels); one nested 20,000 deep, which mcp-go's
// decoder would skip so that the request waited for its timeout, fails at
// once with a depth *LimitError, over stdio and over an SSE response stream.
func TestDeepResponse(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("this test needs /bin/sh: %v", err)
	}
	connect := func(tr Transport) error {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		s, err := Connect(ctx, tr, WithProtocolVersion("2025-06-18"))
		if err == nil {
			_ = s.Close()
		}
		return err
	}
	if err := connect(deepServer(4000)); err != nil {
		t.Fatalf("depth 4,000 over stdio: %v", err)
	}
	wantDepthError := func(what string, err error) {
		t.Helper()
		var le *LimitError
		if !errors.As(err, &le) || !le.Depth || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want a depth *LimitError before the deadline", what, err)
		}
	}
	wantDepthError("depth 20,000 over stdio", connect(deepServer(20000)))

	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":%s}\n\n", deep)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // keep the stream open, as a server would
	})
	wantDepthError("depth 20,000 in an SSE response stream", connect(HTTP(url+"/mcp")))
}
