package composition_test

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// TestInterceptorsAndLogger runs interceptors and a logger on a plain
// Session (in process, sqlite-explorer): the first interceptor is the
// outermost, an interceptor may replace the arguments, every entry point
// (generated client, CallResult) is intercepted with the session's server
// name, and the log has call records without argument values.
func TestInterceptorsAndLogger(t *testing.T) {
	ctx := t.Context()
	srv := explorerServer(t)
	var mu sync.Mutex
	var order []string
	record := func(name string) composition.Interceptor {
		return func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
			mu.Lock()
			order = append(order, name+">"+c.Server+"/"+c.Tool)
			mu.Unlock()
			res, err := next(ctx, c)
			mu.Lock()
			order = append(order, name+"<")
			mu.Unlock()
			return res, err
		}
	}
	// rewrite points count_rows at another table, to show that Args reach
	// the wire through the chain.
	rewrite := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		if a, ok := c.Args.(sqliteexplorer.CountRowsArgs); ok && a.Table == "secret_table_arg" {
			c.Args = sqliteexplorer.CountRowsArgs{Table: "authors"}
		}
		return next(ctx, c)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := composition.Connect(ctx, composition.InProcess(srv),
		composition.WithInterceptor(record("outer")), composition.WithInterceptor(record("inner")),
		composition.WithInterceptor(rewrite), composition.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := sqliteexplorer.NewClient(s)
	n, err := db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "secret_table_arg"})
	if err != nil || n != 10 {
		t.Fatalf("count_rows = %d, %v; want the 10 authors (arguments rewritten)", n, err)
	}
	if _, err := s.CallResult(ctx, "list_tables", nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"outer>in-process server/count_rows", "inner>in-process server/count_rows", "inner<", "outer<",
		"outer>in-process server/list_tables", "inner>in-process server/list_tables", "inner<", "outer<"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("interceptor order:\n got %q\nwant %q", order, want)
	}
	log := logs.String()
	t.Logf("log:\n%s", log)
	for _, w := range []string{`msg="mcp call start" server="in-process server" tool=count_rows`, `msg="mcp call end" server="in-process server" tool=list_tables duration=`} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q", w)
		}
	}
	if strings.Contains(log, "secret_table_arg") || strings.Contains(log, "authors") {
		t.Error("the log shows an argument value")
	}
}

// explorerServer is the sqlite-explorer MCP server on a fresh database in a
// temporary folder, for in-process sessions; the database is closed in
// cleanup.
func explorerServer(t testing.TB) *server.MCPServer {
	t.Helper()
	store, err := explorer.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	srv, err := explorer.NewServer(store)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
