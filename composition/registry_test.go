package composition_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/composition/serverconfig"
	"github.com/mcpbind/mcpbind/golden/everything/everything"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// syncBuffer is a bytes.Buffer for a logger written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// memoryServer returns the command of the npm server-memory pinned in
// testservers, failing (never skipping) when it is not installed.
func memoryServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(testenv.ModuleRoot(t), "testservers", "node_modules", ".bin", "mcp-server-memory")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("@modelcontextprotocol/server-memory is missing (%v): run npm ci --prefix testservers", err)
	}
	return bin
}

// TestRegistryServers loads a registry from a servers.yaml naming four real
// servers — sqlite-explorer over stdio and over streamable HTTP, the npm
// server-memory and server-everything over stdio — and calls each
// concurrently through generated clients (server-memory through the
// registry's Caller). Connects are lazy: each server is started by the first
// call that needs it, once, however many calls wait for it. The log and
// Status never show the header token or argument values.
func TestRegistryServers(t *testing.T) {
	sqliteBin, sqliteArgs := testenv.SQLiteExplorerStdio(t)
	sqliteURL := testenv.SQLiteExplorerHTTP(t)
	node, everyArgs := testenv.ServerEverything(t)
	dir := t.TempDir()
	const token = "tok-registry-secret-9431"
	t.Setenv("REG_SQLITE_BIN", sqliteBin)
	t.Setenv("REG_SQLITE_DIR", sqliteArgs[1])
	t.Setenv("REG_SQLITE_URL", sqliteURL)
	t.Setenv("REG_TOKEN", token)
	t.Setenv("REG_NODE", node)
	t.Setenv("REG_EVERYTHING", everyArgs[0])
	t.Setenv("REG_MEMORY", memoryServer(t))
	t.Setenv("REG_MEMORY_FILE", filepath.Join(dir, "memory.jsonl"))
	config := filepath.Join(dir, "servers.yaml")
	if err := os.WriteFile(config, []byte(`servers:
  sqlite-explorer:
    command: ["${REG_SQLITE_BIN}", --dir, "${REG_SQLITE_DIR}"]
  sqlite-http:
    url: ${REG_SQLITE_URL}
    headers: {Authorization: "Bearer ${REG_TOKEN}"}
  memory:
    command: "${REG_MEMORY}"
    env: {MEMORY_FILE_PATH: "${REG_MEMORY_FILE}"}
  everything:
    command: ["${REG_NODE}", "${REG_EVERYTHING}", stdio]
`), 0o600); err != nil {
		t.Fatal(err)
	}

	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var mu sync.Mutex
	seen := map[string]int{} // server id → calls seen by the interceptor
	count := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		mu.Lock()
		seen[c.Server]++
		mu.Unlock()
		return next(ctx, c)
	}
	reg, err := serverconfig.LoadRegistry(config, composition.WithLogger(logger), composition.WithInterceptor(count))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if err := reg.Use("sqlite-explorer", pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail)); err != nil {
		t.Fatal(err)
	}
	for _, st := range reg.Status() {
		if st.State != composition.StateIdle {
			t.Errorf("before any call: %+v, want idle", st)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	db := sqliteexplorer.FromRegistry(reg)
	dbHTTP := sqliteexplorer.NewClient(reg.Server("sqlite-http"))
	ev := everything.FromRegistry(reg)
	mem := reg.Server("memory")

	const perServer = 4
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	check := func(what string, f func() error) {
		wg.Go(func() {
			if err := f(); err != nil {
				errs <- fmt.Errorf("%s: %w", what, err)
			}
		})
	}
	for i := range perServer {
		for name, c := range map[string]*sqliteexplorer.Client{"stdio": db, "http": dbHTTP} {
			check(fmt.Sprintf("sqlite %s #%d", name, i), func() error {
				tables, err := c.ListTables(ctx)
				if err != nil {
					return err
				}
				if !slices.Contains(tables, "books") {
					return fmt.Errorf("tables %q lack books", tables)
				}
				n, err := c.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "books"})
				if err != nil || n != 24 {
					return fmt.Errorf("count_rows = %d, %v; want 24", n, err)
				}
				q, err := c.Query(ctx, sqliteexplorer.QueryArgs{SQL: "SELECT name FROM authors ORDER BY id LIMIT 2"})
				if err != nil || len(q.Rows) != 2 {
					return fmt.Errorf("query = %+v, %v", q, err)
				}
				return nil
			})
		}
		check(fmt.Sprintf("everything #%d", i), func() error {
			res, err := ev.GetSum(ctx, everything.GetSumArgs{A: float64(i), B: 40})
			if err != nil {
				return err
			}
			if want := fmt.Sprint(i + 40); !strings.Contains(res.Text(), want) {
				return fmt.Errorf("get-sum: %q lacks %s", res.Text(), want)
			}
			sc, err := ev.GetStructuredContent(ctx, everything.GetStructuredContentArgs{Location: everything.LocationChicago})
			if err != nil || sc == nil {
				return fmt.Errorf("get-structured-content = %+v, %v", sc, err)
			}
			return nil
		})
		check(fmt.Sprintf("memory #%d", i), func() error {
			if i == 0 { // one writer: server-memory rewrites its file per call
				args := map[string]any{"entities": []map[string]any{{"name": "registry-test", "entityType": "test", "observations": []string{"written through a registry"}}}}
				if _, err := composition.CallRaw(ctx, mem, bindimpl.Tool{Name: "create_entities"}, args); err != nil {
					return err
				}
			}
			_, err := composition.CallRaw(ctx, mem, bindimpl.Tool{Name: "read_graph", ReadOnly: true}, nil)
			return err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	res, err := composition.CallRaw(ctx, mem, bindimpl.Tool{Name: "read_graph", ReadOnly: true}, nil)
	if err != nil || !strings.Contains(res.Text(), "written through a registry") {
		t.Errorf("read_graph after the writes: %v, %v", res, err)
	}

	wantTransport := map[string]string{"everything": "stdio", "memory": "stdio", "sqlite-explorer": "stdio", "sqlite-http": "streamable-http"}
	for _, st := range reg.Status() {
		t.Logf("status: %+v", st)
		if st.State != composition.StateConnected || st.ProtocolVersion == "" || st.Reconnects != 0 || st.LastError != "" || st.Transport != wantTransport[st.ID] {
			t.Errorf("after the calls: %+v", st)
		}
	}
	log := logs.String()
	for id := range wantTransport {
		if n := strings.Count(log, "msg=\"mcp connect\" server="+id+" "); n != 1 {
			t.Errorf("server %s connected %d times, want once (lazy, one connect in flight)", id, n)
		}
		mu.Lock()
		if seen[id] == 0 {
			t.Errorf("the interceptor saw no call of %s: %v", id, seen)
		}
		mu.Unlock()
	}
	for _, secret := range []string{token, "registry-test", "SELECT name", "written through"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log shows %q", secret)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", log)
	}
}
