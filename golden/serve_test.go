package golden

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	legacy "github.com/mcpbind/mcpbind/golden/sqlite-explorer-2025-06-18/sqliteexplorer"
	modern "github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/sqlitestub"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// stubTransports returns the transports to the generated --server stub of
// sqlite-explorer (testservers/sqlitestub, the generated Register over the
// example's store), each on a fresh database: in this process
// (composition.InProcess), over streamable HTTP on 127.0.0.1 (mcp-go's
// handler in an httptest server) and over stdio (bin, built from
// testservers/sqlitestub/cmd/sqlite-stub).
func stubTransports(t *testing.T, bin string) map[string]composition.Transport {
	t.Helper()
	stub := func() *server.MCPServer {
		store, err := explorer.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		srv, err := sqlitestub.NewServer(sqlitestub.Handler{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	hs := httptest.NewServer(server.NewStreamableHTTPServer(stub()))
	t.Cleanup(hs.Close)
	return map[string]composition.Transport{
		"in-process": composition.InProcess(stub()),
		"http":       composition.HTTP(hs.URL),
		"stdio":      composition.Stdio(bin, "--dir", t.TempDir()),
	}
}

// proxyTransport returns an in-process transport to a proxy of the real
// sqlite-explorer (realBin, on a fresh database): the generated Client of a
// session to it is itself a Handler, so Register(s, client) forwards every
// tool, tool errors included.
func proxyTransport(t *testing.T, realBin string) composition.Transport {
	t.Helper()
	down, err := composition.Connect(context.Background(), composition.Stdio(realBin, "--dir", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = down.Close() })
	srv := server.NewMCPServer("sqlite-explorer", "0.1.0", server.WithToolCapabilities(false))
	var h modern.Handler = modern.NewClient(down)
	if err := modern.Register(srv, h); err != nil {
		t.Fatal(err)
	}
	return composition.InProcess(srv)
}

// TestServerStubEveryEra serves sqlite-explorer's contract from the code
// generate --server wrote (Handler, Register) and calls every tool through
// both generated clients (bundles exported at 2026-07-28 and at 2025-06-18)
// in sessions of both eras, with argument and result validation on: every
// tool must round-trip to the natural Go values, which takes the stub
// listing and sending wrapped results toward 2025-06-18 sessions and
// natural ones toward 2026-07-28 sessions. The digests of both bundles
// must match the stub's tools in the session of their era.
func TestServerStubEveryEra(t *testing.T) {
	stubBin := testenv.Build(t, "./testservers/sqlitestub/cmd/sqlite-stub")
	for tname, transport := range stubTransports(t, stubBin) {
		for _, version := range []string{"", "2025-06-18"} {
			for _, bundleEra := range []string{"2026-07-28 bundle", "2025-06-18 bundle"} {
				t.Run(tname+"/session "+cmpOr(version, "newest")+"/"+bundleEra, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					digest := pinning.DigestCheck(modern.Pins, composition.DigestFail)
					if strings.HasPrefix(bundleEra, "2025") {
						digest = pinning.DigestCheck(legacy.Pins, composition.DigestFail)
					}
					var warnings []string
					s, err := composition.Connect(ctx, transport, composition.WithProtocolVersion(version),
						composition.WithArgsValidation(), composition.WithResultValidation(), digest,
						composition.WithWarnings(func(m string) { warnings = append(warnings, m) }))
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
					if want := cmpOr(version, composition.ModernProtocolVersion); s.ProtocolVersion() != want {
						t.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), want)
					}
					sameEra := (version == "") == strings.HasPrefix(bundleEra, "2026")
					if sameEra && len(warnings) > 0 {
						t.Errorf("digest check in the bundle's era: %q", warnings)
					}
					calls := modernCalls(s)
					if strings.HasPrefix(bundleEra, "2025") {
						calls = legacyCalls(s)
					}
					exercise(ctx, t, calls)
				})
			}
		}
	}
}

// stubCalls are the calls that compare the stub with the real server: every
// tool, tool errors (an unknown table, a write through query) and a row
// that does not exist (null).
var stubCalls = testenv.SQLiteExplorerCalls()

// TestServerStubMatchesRealServer lists the tools and calls each of them
// on the real sqlite-explorer and on the generated stub (in process, over
// stdio and over streamable HTTP), and on a proxy of it (the generated
// Client registered as the Handler), all on fresh databases, in sessions of
// both eras: tools/list and every tools/call result (structuredContent,
// content, isError) must be the same JSON.
func TestServerStubMatchesRealServer(t *testing.T) {
	realBin := testenv.Build(t, "./examples/sqlite-explorer")
	stubBin := testenv.Build(t, "./testservers/sqlitestub/cmd/sqlite-stub")
	for _, key := range []string{"in-process/", "stdio/", "http/", "proxy/", "in-process/2025-06-18", "stdio/2025-06-18", "http/2025-06-18", "proxy/2025-06-18"} {
		tname, version, _ := strings.Cut(key, "/")
		t.Run(tname+"/session "+cmpOr(version, "newest"), func(t *testing.T) {
			// Fresh databases, so both insert_row calls get the same id.
			real := composition.Stdio(realBin, "--dir", t.TempDir())
			var stub composition.Transport
			if tname == "proxy" {
				stub = proxyTransport(t, realBin)
			} else {
				stub = stubTransports(t, stubBin)[tname]
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			open := func(tr composition.Transport) *composition.Session {
				s, err := composition.Connect(ctx, tr, composition.WithProtocolVersion(version))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				return s
			}
			r, s := open(real), open(stub)
			sameTools(ctx, t, r, s)
			for _, c := range stubCalls {
				want, werr := r.CallResult(ctx, c.Name, c.Arguments)
				got, gerr := s.CallResult(ctx, c.Name, c.Arguments)
				if werr != nil {
					want = toolErrorResult(t, werr)
				}
				if gerr != nil {
					got = toolErrorResult(t, gerr)
				}
				wj, _ := json.Marshal(want)
				gj, _ := json.Marshal(got)
				if !sameJSON(t, wj, gj) {
					t.Errorf("%s %v:\n real %s\n stub %s", c.Name, c.Arguments, wj, gj)
				}
			}
		})
	}
}

// TestServerStubRefusesBadArguments: arguments that do not decode into the
// Args type reach no handler and come back as a tool error naming the tool
// and the JSON pointer; a value the Args type would take but the
// inputSchema forbids (null for a string) is refused only with
// WithServerArgsValidation.
func TestServerStubRefusesBadArguments(t *testing.T) {
	bin := testenv.Build(t, "./testservers/sqlitestub/cmd/sqlite-stub")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := composition.Connect(ctx, composition.Stdio(bin, "--dir", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"find_row", map[string]any{"table": "authors", "id": "one"}, `invalid arguments for tool "find_row" at /id: `},
		{"count_rows", map[string]any{}, `invalid arguments for tool "count_rows" at /: missing property 'table'`},
		{"query", map[string]any{"sql": "SELECT 1", "limit": 3}, `invalid arguments for tool "query" at /: additional properties 'limit' not allowed`},
	} {
		_, err := s.CallResult(ctx, tc.tool, tc.args)
		var te *composition.ToolError
		if !errors.As(err, &te) || !strings.HasPrefix(te.Text, tc.want) {
			t.Errorf("%s %v: %v, want a tool error starting %q", tc.tool, tc.args, err, tc.want)
		}
	}
	// null decodes into a Go string as "", so without validation the
	// handler runs (and the store says there is no such table).
	_, err = s.CallResult(ctx, "count_rows", map[string]any{"table": nil})
	var te *composition.ToolError
	if !errors.As(err, &te) || strings.Contains(te.Text, "invalid arguments") {
		t.Errorf("count_rows with a null table, no validation: %v, want the handler's error", err)
	}
	v, err := composition.Connect(ctx, composition.Stdio(bin, "--dir", t.TempDir(), "--validate-args"))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	_, err = v.CallResult(ctx, "count_rows", map[string]any{"table": nil})
	if want := `invalid arguments for tool "count_rows" at /table: `; !errors.As(err, &te) || !strings.HasPrefix(te.Text, want) {
		t.Errorf("count_rows with a null table, WithServerArgsValidation: %v, want a tool error starting %q", err, want)
	}
	if n, err := modern.NewClient(v).CountRows(ctx, modern.CountRowsArgs{Table: "books"}); err != nil || n == 0 {
		t.Errorf("a valid call with WithServerArgsValidation: %d, %v", n, err)
	}
}

// sameTools fails the test unless the stub session s lists the same tools
// as the real session r, as JSON values.
func sameTools(ctx context.Context, t *testing.T, r, s *composition.Session) {
	t.Helper()
	rt, err := r.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rt) != len(st) {
		t.Fatalf("the real server lists %d tools, the stub %d", len(rt), len(st))
	}
	for i := range rt {
		if !sameJSON(t, rt[i], st[i]) {
			t.Errorf("tools/list item %d:\n real %s\n stub %s", i, rt[i], st[i])
		}
	}
}

// toolErrorResult returns the result a *composition.ToolError carries.
func toolErrorResult(t *testing.T, err error) *composition.Result {
	t.Helper()
	var te *composition.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("call: %v", err)
	}
	return te.Result
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// legacyFake is a typed fake of sqlite-explorer written against the package
// generated from the bundle exported at 2025-06-18, whose tool objects hold
// the wrapped output schemas: it answers from fixed data.
type legacyFake struct{}

var _ legacy.Handler = legacyFake{}

func (legacyFake) CountRows(_ context.Context, a legacy.CountRowsArgs) (int64, error) {
	if a.Table != "books" {
		return 0, errors.New("no table " + a.Table)
	}
	return 24, nil
}

func (legacyFake) DescribeTable(context.Context, legacy.DescribeTableArgs) (*legacy.DescribeTableResult, error) {
	return &legacy.DescribeTableResult{Table: "books", Columns: []legacy.Column{{Name: "id", Type: "INTEGER", PrimaryKey: true}}}, nil
}

func (legacyFake) FindRow(_ context.Context, a legacy.FindRowArgs) (map[string]json.RawMessage, error) {
	if a.ID != 1 {
		return nil, nil
	}
	return map[string]json.RawMessage{"id": json.RawMessage("1"), "name": json.RawMessage(`"Jane Austen"`)}, nil
}

func (legacyFake) InsertRow(context.Context, legacy.InsertRowArgs) (*legacy.InsertRowResult, error) {
	return &legacy.InsertRowResult{ID: 11}, nil
}

func (legacyFake) ListTables(context.Context) ([]string, error) {
	return []string{"authors", "books", "loans"}, nil
}

func (legacyFake) Query(context.Context, legacy.QueryArgs) (*legacy.QueryResult, error) {
	return &legacy.QueryResult{Columns: []string{"n"}, Rows: [][]json.RawMessage{{json.RawMessage("1")}}, RowCount: 1}, nil
}

// TestServerStubFromWrappedBundle serves the package generated from the
// bundle exported at 2025-06-18 (output schemas recorded wrapped as
// {"result": S}) with a typed fake: it must list exactly what the real
// server lists in each era (the recorded envelope before 2026-07-28, its
// inner natural schema from 2026-07-28 on) and its values must reach both
// generated clients as natural values.
func TestServerStubFromWrappedBundle(t *testing.T) {
	realBin := testenv.Build(t, "./examples/sqlite-explorer")
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("session "+cmpOr(version, "newest"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := server.NewMCPServer("sqlite-explorer", "0.1.0", server.WithToolCapabilities(false))
			if err := legacy.Register(srv, legacyFake{}); err != nil {
				t.Fatal(err)
			}
			s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(version), composition.WithResultValidation())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r, err := composition.Connect(ctx, composition.Stdio(realBin, "--dir", t.TempDir()), composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			sameTools(ctx, t, r, s)
			for name, c := range map[string]sqliteCalls{"2026-07-28 client": modernCalls(s), "2025-06-18 client": legacyCalls(s)} {
				tables, err := c.listTables(ctx)
				if err != nil || len(tables) != 3 {
					t.Errorf("%s: list_tables = %v, %v", name, tables, err)
				}
				n, err := c.countRows(ctx, "books")
				if err != nil || n != 24 {
					t.Errorf("%s: count_rows = %d, %v", name, n, err)
				}
				row, found, err := c.findRow(ctx, "authors", 1)
				if err != nil || !found || row["name"] != `"Jane Austen"` || row["result"] != "" {
					t.Errorf("%s: find_row 1 = %v (found %v), %v", name, row, found, err)
				}
				if _, found, err := c.findRow(ctx, "authors", 2); err != nil || found {
					t.Errorf("%s: find_row 2 found %v, %v; want null", name, found, err)
				}
				var te *composition.ToolError
				if _, err := c.countRows(ctx, "nope"); !errors.As(err, &te) || te.Text != "no table nope" {
					t.Errorf("%s: count_rows nope: %v, want the handler's error as a tool error", name, err)
				}
			}
		})
	}
}
