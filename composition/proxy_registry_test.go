//go:build unix

package composition_test

import (
	"context"
	"encoding/json"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestForwardThroughRegistry: Forward given a registry's server goes
// through it: the registry's interceptor sees each forwarded call with the
// client's arguments as sent (raw JSON, not re-encoded), and after the
// downstream process is killed between calls the next call is sent on a
// new session and answered.
func TestForwardThroughRegistry(t *testing.T) {
	bin, args := testenv.SQLiteExplorerStdio(t)
	wrapper, pid := testenv.PIDWrapped(t, append([]string{bin}, args...)...)
	var mu sync.Mutex
	var seen []string
	record := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		raw, _ := json.Marshal(c.Args)
		mu.Lock()
		seen = append(seen, c.Tool+" "+string(raw))
		mu.Unlock()
		return next(ctx, c)
	}
	reg := composition.NewRegistry(composition.WithBackoff(20*time.Millisecond, time.Second))
	t.Cleanup(func() { _ = reg.Close() })
	if err := reg.Add("sqlite-explorer", composition.Stdio(wrapper[0], wrapper[1:]...),
		composition.WithInterceptor(record), pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail)); err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("proxy", "0.0.0")
	if err := sqliteexplorer.Forward(s, reg.Server("sqlite-explorer")); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	client, err := composition.Connect(ctx, composition.InProcess(s))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	// The client sends the keys in name order; the typed QueryArgs would
	// send them in field order (sql first).
	query := map[string]any{"sql": "SELECT count(*) AS n FROM books", "params": []any{}}
	if _, err := client.CallResult(ctx, "query", query); err != nil {
		t.Fatal(err)
	}
	first := pid()
	sess, err := reg.Session(ctx, "sqlite-explorer")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-sess.Done() // the loss is known before the next call
	res, err := client.CallResult(ctx, "count_rows", map[string]any{"table": "books"})
	if err != nil || string(res.StructuredContent) != "24" {
		t.Fatalf("count_rows after the downstream was killed: %v, %v", res, err)
	}
	if pid() == first {
		t.Error("count_rows was not answered by a new server process")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{`query {"params":[],"sql":"SELECT count(*) AS n FROM books"}`, `count_rows {"table":"books"}`}
	if len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("the interceptor saw %q, want %q", seen, want)
	}
}
