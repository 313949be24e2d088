package golden

import (
	"context"
	"errors"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/brave/bravesearchmcpserver"
	"github.com/mcpbind/mcpbind/golden/everything/everything"
	"github.com/mcpbind/mcpbind/golden/github/githubmcpserver"
	"github.com/mcpbind/mcpbind/golden/hostile/hostile"
	namesgolden "github.com/mcpbind/mcpbind/golden/names/names"
	legacy "github.com/mcpbind/mcpbind/golden/sqlite-explorer-2025-06-18/sqliteexplorer"
	modern "github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/golden/styles/styles"
	"github.com/mcpbind/mcpbind/golden/typing/typing"
	"github.com/mcpbind/mcpbind/golden/untyped-envelope/untypedenvelope"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// tablesOnly is a typed fake of sqlite-explorer that implements list_tables
// and nothing else: the embedded UnimplementedHandler answers the other five
// tools.
type tablesOnly struct {
	modern.UnimplementedHandler
}

// ListTables answers one table.
func (tablesOnly) ListTables(context.Context) ([]string, error) { return []string{"books"}, nil }

// TestUnimplementedHandlerOverTransports serves fakes that embed the
// generated UnimplementedHandler and implement only list_tables of
// sqlite-explorer's six tools, and calls four omitted tools through the
// generated client: tablesOnly in this process and over streamable HTTP on
// 127.0.0.1, and sqlitestub.TablesOnly in another process over stdio
// (sqlite-stub --tables-only). Each omitted tool answers a tool error naming
// it (a *composition.ToolError with the documented text), and list_tables
// still answers afterwards, so the server survived. The in-process and HTTP
// server has no WithRecovery, so a handler that panicked (a fake embedding
// the nil Handler interface instead) would end the test binary.
func TestUnimplementedHandlerOverTransports(t *testing.T) {
	stubBin := testenv.Build(t, "./testservers/sqlitestub/cmd/sqlite-stub")
	newServer := func() *server.MCPServer {
		srv := server.NewMCPServer("sqlite-explorer", "0.1.0", server.WithToolCapabilities(false))
		if err := modern.Register(srv, tablesOnly{}); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	hs := httptest.NewServer(server.NewStreamableHTTPServer(newServer()))
	t.Cleanup(hs.Close)
	for name, tc := range map[string]struct {
		tr     composition.Transport
		tables []string
	}{
		"in-process": {composition.InProcess(newServer()), []string{"books"}},
		"http":       {composition.HTTP(hs.URL), []string{"books"}},
		"stdio":      {composition.Stdio(stubBin, "--dir", t.TempDir(), "--tables-only"), []string{"authors", "books", "loans"}},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s, err := composition.Connect(ctx, tc.tr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			c := modern.NewClient(s)
			omitted := []struct {
				tool string
				call func() error
			}{
				{"count_rows", func() error { _, err := c.CountRows(ctx, modern.CountRowsArgs{Table: "books"}); return err }},
				{"describe_table", func() error {
					_, err := c.DescribeTable(ctx, modern.DescribeTableArgs{Table: "books"})
					return err
				}},
				{"find_row", func() error { _, err := c.FindRow(ctx, modern.FindRowArgs{Table: "books", ID: 1}); return err }},
				{"query", func() error { _, err := c.Query(ctx, modern.QueryArgs{SQL: "select 1"}); return err }},
			}
			for _, o := range omitted {
				err := o.call()
				te, ok := errors.AsType[*composition.ToolError](err)
				if !ok {
					t.Fatalf("%s: err = %v, want a *composition.ToolError", o.tool, err)
				}
				if want := "tool " + strconv.Quote(o.tool) + " is not implemented"; te.Tool != o.tool || te.Text != want {
					t.Errorf("%s: ToolError{Tool: %q, Text: %q}, want Text %q", o.tool, te.Tool, te.Text, want)
				}
			}
			tables, err := c.ListTables(ctx)
			if err != nil || !slices.Equal(tables, tc.tables) {
				t.Fatalf("list_tables after the omitted tools = %v, %v; want %v", tables, err, tc.tables)
			}
		})
	}
}

// TestUnimplementedHandlerEveryGolden calls every method of the generated
// UnimplementedHandler of each golden package directly (zero arguments):
// each returns the zero result and an error that errors.Is
// composition.ErrNotImplemented, whose text is `tool "NAME" is not
// implemented`, and the names are the bundle's tools, each once. The
// assignments to Handler prove at compile time that it implements Handler.
func TestUnimplementedHandlerEveryGolden(t *testing.T) {
	for dir, h := range map[string]any{
		"brave":                      func() bravesearchmcpserver.Handler { return bravesearchmcpserver.UnimplementedHandler{} }(),
		"everything":                 func() everything.Handler { return everything.UnimplementedHandler{} }(),
		"github":                     func() githubmcpserver.Handler { return githubmcpserver.UnimplementedHandler{} }(),
		"hostile":                    func() hostile.Handler { return hostile.UnimplementedHandler{} }(),
		"names":                      func() namesgolden.Handler { return namesgolden.UnimplementedHandler{} }(),
		"sqlite-explorer":            func() modern.Handler { return modern.UnimplementedHandler{} }(),
		"sqlite-explorer-2025-06-18": func() legacy.Handler { return legacy.UnimplementedHandler{} }(),
		"styles":                     func() styles.Handler { return styles.UnimplementedHandler{} }(),
		"typing":                     func() typing.Handler { return typing.UnimplementedHandler{} }(),
		"untyped-envelope":           func() untypedenvelope.Handler { return untypedenvelope.UnimplementedHandler{} }(),
	} {
		t.Run(dir, func(t *testing.T) {
			b, err := bundle.Load(filepath.Join(dir, "bundle.json"))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, tool := range b.Servers[0].Tools {
				want["tool "+strconv.Quote(tool.Name)+" is not implemented"] = true
			}
			v := reflect.ValueOf(h)
			got := map[string]bool{}
			for i := range v.NumMethod() {
				m := v.Method(i)
				in := []reflect.Value{reflect.ValueOf(t.Context())}
				for j := 1; j < m.Type().NumIn(); j++ {
					in = append(in, reflect.Zero(m.Type().In(j)))
				}
				out := m.Call(in)
				err, _ := out[1].Interface().(error)
				if !errors.Is(err, composition.ErrNotImplemented) {
					t.Errorf("%s: err = %v, want composition.ErrNotImplemented", v.Type().Method(i).Name, err)
					continue
				}
				if !out[0].IsZero() {
					t.Errorf("%s: result %v, want the zero value", v.Type().Method(i).Name, out[0])
				}
				if got[err.Error()] {
					t.Errorf("%s: %q answered twice", v.Type().Method(i).Name, err)
				}
				got[err.Error()] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("errors %v, want one per tool: %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
		})
	}
}
