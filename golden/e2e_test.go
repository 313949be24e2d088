package golden

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/golden/everything/everything"
	legacy "github.com/mcpbind/mcpbind/golden/sqlite-explorer-2025-06-18/sqliteexplorer"
	modern "github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestBundlesMatchLiveServers re-exports the golden bundles from the real
// servers with the mcpbind binary: the checked-in contract must be what the
// servers say today, byte for byte.
func TestBundlesMatchLiveServers(t *testing.T) {
	mcpbind := testenv.Build(t, "./cmd/mcpbind")
	sqlite, sqliteArgs := testenv.SQLiteExplorerStdio(t)
	node, everythingArgs := testenv.ServerEverything(t)
	tsNode, tsArgs := testenv.TSSDKv2Server(t, "")
	for _, tc := range []struct {
		dir  string
		args []string
	}{
		{"sqlite-explorer", append([]string{"--probe-eras", "--", sqlite}, sqliteArgs...)},
		{"sqlite-explorer-2025-06-18", append([]string{"--probe-eras", "--protocol-version", "2025-06-18", "--", sqlite}, sqliteArgs...)},
		{"everything", append([]string{"--id", "everything", "--", node}, everythingArgs...)},
		{"ts-sdk-v2", append([]string{"--probe-eras", "--id", "ts-sdk-v2", "--", tsNode}, tsArgs...)},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bundle.json")
			cmd := exec.Command(mcpbind, append([]string{"export", "-o", out}, tc.args...)...)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mcpbind export: %v\n%s", err, msg)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(tc.dir, "bundle.json"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("golden/%s/bundle.json is not what the server exports now (re-export it, then go test ./golden -update):\n%s",
					tc.dir, firstDiff(want, got))
			}
		})
	}
}

// sqliteClient is the API that both generated sqlite-explorer packages
// offer; the test runs the same calls through each.
type sqliteCalls struct {
	listTables func(context.Context) ([]string, error)
	countRows  func(context.Context, string) (int64, error)
	findRow    func(context.Context, string, int64) (map[string]string, bool, error)
	describe   func(context.Context, string) ([]string, error)
	query      func(context.Context, string) (int64, []string, error)
	insert     func(context.Context, string, string) (int64, error)
}

func modernCalls(s *composition.Session) sqliteCalls {
	c := modern.NewClient(s)
	return sqliteCalls{
		listTables: c.ListTables,
		countRows: func(ctx context.Context, table string) (int64, error) {
			return c.CountRows(ctx, modern.CountRowsArgs{Table: table})
		},
		findRow: func(ctx context.Context, table string, id int64) (map[string]string, bool, error) {
			row, err := c.FindRow(ctx, modern.FindRowArgs{Table: table, ID: id})
			return rawStrings(row), row != nil, err
		},
		describe: func(ctx context.Context, table string) ([]string, error) {
			d, err := c.DescribeTable(ctx, modern.DescribeTableArgs{Table: table})
			if err != nil {
				return nil, err
			}
			var cols []string
			for _, col := range d.Columns {
				cols = append(cols, col.Name)
			}
			return cols, nil
		},
		query: func(ctx context.Context, sql string) (int64, []string, error) {
			r, err := c.Query(ctx, modern.QueryArgs{SQL: sql})
			if err != nil {
				return 0, nil, err
			}
			return r.RowCount, r.Columns, nil
		},
		insert: func(ctx context.Context, table, name string) (int64, error) {
			r, err := c.InsertRow(ctx, modern.InsertRowArgs{Table: table, Values: map[string]json.RawMessage{"name": quote(name)}})
			if err != nil {
				return 0, err
			}
			return r.ID, nil
		},
	}
}

func legacyCalls(s *composition.Session) sqliteCalls {
	c := legacy.NewClient(s)
	return sqliteCalls{
		listTables: c.ListTables,
		countRows: func(ctx context.Context, table string) (int64, error) {
			return c.CountRows(ctx, legacy.CountRowsArgs{Table: table})
		},
		findRow: func(ctx context.Context, table string, id int64) (map[string]string, bool, error) {
			row, err := c.FindRow(ctx, legacy.FindRowArgs{Table: table, ID: id})
			return rawStrings(row), row != nil, err
		},
		describe: func(ctx context.Context, table string) ([]string, error) {
			d, err := c.DescribeTable(ctx, legacy.DescribeTableArgs{Table: table})
			if err != nil {
				return nil, err
			}
			var cols []string
			for _, col := range d.Columns {
				cols = append(cols, col.Name)
			}
			return cols, nil
		},
		query: func(ctx context.Context, sql string) (int64, []string, error) {
			r, err := c.Query(ctx, legacy.QueryArgs{SQL: sql})
			if err != nil {
				return 0, nil, err
			}
			return r.RowCount, r.Columns, nil
		},
		insert: func(ctx context.Context, table, name string) (int64, error) {
			r, err := c.InsertRow(ctx, legacy.InsertRowArgs{Table: table, Values: map[string]json.RawMessage{"name": quote(name)}})
			if err != nil {
				return 0, err
			}
			return r.ID, nil
		},
	}
}

// TestSQLiteExplorerEveryEra calls every sqlite-explorer tool through the
// clients generated from the bundle exported at 2026-07-28 (natural output
// schemas) and from the one exported at 2025-06-18 (wrapped as
// {"result": …}), in sessions of either era, over stdio and streamable
// HTTP. Every combination must give the natural Go values; in particular
// find_row's row must keep its columns (a wrapped {"result": {...}} decoded
// straight into the row would silently give an object with one "result"
// column) and its null must come back as nil.
func TestSQLiteExplorerEveryEra(t *testing.T) {
	bin, args := testenv.SQLiteExplorerStdio(t)
	url := testenv.SQLiteExplorerHTTP(t)
	transports := map[string]composition.Transport{
		"stdio": composition.Stdio(bin, args...),
		"http":  composition.HTTP(url),
	}
	for _, tname := range []string{"stdio", "http"} {
		for _, version := range []string{"", "2025-06-18"} {
			for _, bundleEra := range []string{"2026-07-28 bundle", "2025-06-18 bundle"} {
				name := tname + "/session " + cmpOr(version, "newest") + "/" + bundleEra
				t.Run(name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					// Validation is on, so every natural result is also
					// checked against the natural schema the IR chose.
					s, err := composition.Connect(ctx, transports[tname], composition.WithProtocolVersion(version),
						composition.WithArgsValidation(), composition.WithResultValidation())
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
					wantVersion := cmpOr(version, composition.ModernProtocolVersion)
					if s.ProtocolVersion() != wantVersion {
						t.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), wantVersion)
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

func exercise(ctx context.Context, t *testing.T, c sqliteCalls) {
	t.Helper()
	tables, err := c.listTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tables, ",") != "authors,books,loans" {
		t.Fatalf("list_tables = %q", tables)
	}
	n, err := c.countRows(ctx, "authors")
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("count_rows authors = %d, want the 10 seeded rows or more", n)
	}
	row, found, err := c.findRow(ctx, "authors", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !found || row["id"] != "1" || row["name"] != `"Jane Austen"` || row["result"] != "" {
		t.Fatalf("find_row authors 1 = %v (found %v); want the row's own columns", row, found)
	}
	row, found, err = c.findRow(ctx, "authors", 424242)
	if err != nil {
		t.Fatal(err)
	}
	if found {
		t.Fatalf("find_row of a missing id = %v, want nil", row)
	}
	cols, err := c.describe(ctx, "books")
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) < 3 || cols[0] != "id" {
		t.Fatalf("describe_table books columns = %v", cols)
	}
	count, columns, err := c.query(ctx, "SELECT id, name FROM authors ORDER BY id LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	if count != 2 || strings.Join(columns, ",") != "id,name" {
		t.Fatalf("query = %d rows, columns %v", count, columns)
	}
	id, err := c.insert(ctx, "authors", "Test Author "+t.Name())
	if err != nil {
		t.Fatal(err)
	}
	if id <= 10 {
		t.Fatalf("insert_row id = %d", id)
	}
	_, err = c.countRows(ctx, "no_such_table")
	var te *composition.ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Text, "no_such_table") {
		t.Fatalf("count_rows of a missing table: %v, want a *composition.ToolError naming it", err)
	}
}

// TestArgsValidationStopsBadCalls: with WithArgsValidation a call whose
// arguments break the inputSchema fails with the JSON pointer and is not
// sent (the insert would otherwise reach the server and fail there).
func TestArgsValidationStopsBadCalls(t *testing.T) {
	bin, args := testenv.SQLiteExplorerStdio(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := composition.Connect(ctx, composition.Stdio(bin, args...), composition.WithArgsValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := modern.NewClient(s)
	_, err = c.InsertRow(ctx, modern.InsertRowArgs{Table: "authors"}) // values: null
	var ve *composition.ValidationError
	if !errors.As(err, &ve) || ve.Pointer != "/values" {
		t.Fatalf("err = %v, want a ValidationError at /values", err)
	}
	var te *composition.ToolError
	if errors.As(err, &te) {
		t.Fatalf("the call reached the server: %v", err)
	}
}

// TestServerEverythingClient calls server-everything through its generated
// package.
func TestServerEverythingClient(t *testing.T) {
	node, args := testenv.ServerEverything(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := composition.Connect(ctx, composition.Stdio(node, args...))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := everything.NewClient(s)

	sum, err := c.GetSum(ctx, everything.GetSumArgs{A: 2, B: 3.5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.Text(), "5.5") {
		t.Fatalf("get-sum text = %q", sum.Text())
	}
	weather, err := c.GetStructuredContent(ctx, everything.GetStructuredContentArgs{Location: everything.LocationNewYork})
	if err != nil {
		t.Fatal(err)
	}
	if weather == nil || weather.Conditions == "" || weather.Humidity == 0 {
		t.Fatalf("get-structured-content = %+v", weather)
	}
	echo, err := c.Echo(ctx, everything.EchoArgs{Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(echo.Text(), "hello") {
		t.Fatalf("echo text = %q", echo.Text())
	}
}

func rawStrings(m map[string]json.RawMessage) map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestGeneratedDigestCheck: pinning.DigestCheck of the generated Pins of
// the packages of both eras passes against the unchanged server in sessions
// of both eras without a warning: in a session of the other era the pinned tools are
// compared by meaning, so the {"result": …} envelope the server adds for
// sessions before 2026-07-28 is not a change. A server digest alone (no
// pinned tools) is not compared in a session of the other era, with a
// warning. A digest that does not match fails Connect in DigestFail mode.
func TestGeneratedDigestCheck(t *testing.T) {
	bin, args := testenv.SQLiteExplorerStdio(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, version := range []string{"", "2025-06-18"} {
		for pkg, check := range map[string]composition.Option{
			"sqlite-explorer":            pinning.DigestCheck(modern.Pins, composition.DigestFail),
			"sqlite-explorer-2025-06-18": pinning.DigestCheck(legacy.Pins, composition.DigestFail),
		} {
			var warnings []string
			s, err := composition.Connect(ctx, composition.Stdio(bin, args...), composition.WithProtocolVersion(version),
				check, composition.WithWarnings(func(m string) { warnings = append(warnings, m) }))
			if err != nil {
				t.Fatalf("%s, session %q: %v", pkg, version, err)
			}
			_ = s.Close()
			if len(warnings) != 0 {
				t.Errorf("%s, session %q: warnings %q", pkg, version, warnings)
			}
		}
	}
	var warnings []string
	s, err := composition.Connect(ctx, composition.Stdio(bin, args...), composition.WithProtocolVersion("2025-06-18"),
		composition.WithPins(composition.Pins{Digest: modern.ServerDigest, ProtocolVersion: composition.ModernProtocolVersion}, composition.DigestFail, nil),
		composition.WithWarnings(func(m string) { warnings = append(warnings, m) }))
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not compared") {
		t.Errorf("server digest in the other era: warnings %q", warnings)
	}
	_, err = composition.Connect(ctx, composition.Stdio(bin, args...),
		composition.WithPins(composition.Pins{Digest: "sha256:" + strings.Repeat("0", 64), ProtocolVersion: composition.ModernProtocolVersion}, composition.DigestFail, nil))
	var dm *composition.DigestMismatchError
	if !errors.As(err, &dm) {
		t.Fatalf("a wrong digest: %v, want *composition.DigestMismatchError", err)
	}
}
