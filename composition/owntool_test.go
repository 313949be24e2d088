package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/testservers/owntools"
	"github.com/mcpbind/mcpbind/testservers/sqlitestub"
)

// ownServer returns an mcp-go server with package owntools' tools.
func ownServer(t *testing.T, calls *atomic.Int64) *server.MCPServer {
	t.Helper()
	srv, err := owntools.NewServer(calls)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// listedTools lists s's tools, compacted, by name.
func listedTools(t *testing.T, s *composition.Session) map[string]string {
	t.Helper()
	raw, err := s.ListToolsRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range raw {
		var tool struct{ Name string }
		if err := json.Unmarshal(r, &tool); err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = compact(t, r)
	}
	return out
}

func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v) // sorted keys: a stable comparison
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOwnToolListing: the tool objects inferred from the Go types, as a
// client lists them in each era: slices typed "array" (never null),
// required and closed properties, descriptions, a json.RawMessage as any
// value, a pointer argument nullable, the four annotations as given, the
// title and _meta; a non-object result natural from 2026-07-28 on and the
// {"result": …} envelope before; a pointer result listed as its pointee.
func TestOwnToolListing(t *testing.T) {
	var calls atomic.Int64
	srv := ownServer(t, &calls)
	const (
		reportIn  = `{"additionalProperties":false,"properties":{"sample":{"description":"Rows per table.","type":"integer"},"tables":{"description":"The tables to report on.","items":{"type":"string"},"type":"array"}},"type":"object"}`
		reportOut = `{"additionalProperties":false,"properties":{"notes":{"items":{"type":"string"},"type":"array"},"tables":{"description":"One row per table.","items":{"additionalProperties":false,"properties":{"cells":{"items":{"items":true,"type":"array"},"type":"array"},"columns":{"items":{"type":"string"},"type":"array"},"extra":{"additionalProperties":{"items":{"type":"integer"},"type":"array"},"type":"object"},"name":{"type":"string"},"ptr":{"additionalProperties":false,"properties":{"kids":{"items":{"type":"string"},"type":"array"}},"required":["kids"],"type":["null","object"]},"raw":true,"tags":{"additionalProperties":{"type":"string"},"type":"object"}},"required":["name","columns","raw","extra","cells","ptr","tags"],"type":"object"},"type":"array"}},"required":["tables"],"type":"object"}`
		namesOut  = `{"items":{"type":"string"},"type":"array"}`
	)
	for _, version := range []string{composition.ModernProtocolVersion, "2025-06-18"} {
		s, err := composition.Connect(context.Background(), composition.InProcess(srv), composition.WithProtocolVersion(version))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := listedTools(t, s)
		legacy := version < composition.ModernProtocolVersion
		wrap := func(schema string) string {
			if !legacy {
				return schema
			}
			return `{"properties":{"result":` + schema + `},"required":["result"],"type":"object"}`
		}
		want := map[string]string{
			"report": `{"_meta":{"example.com/owner":"tests"},"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true},` +
				`"description":"Report the tables.","inputSchema":` + reportIn + `,"name":"report","outputSchema":` + reportOut + `,"title":"Report"}`,
			"names": `{"annotations":{},"description":"List the names with a prefix.","inputSchema":{"additionalProperties":false,"properties":{"prefix":{"type":"string"}},"required":["prefix"],"type":"object"},` +
				`"name":"names","outputSchema":` + wrap(namesOut) + `}`,
			"count": `{"annotations":{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false},"description":"Count.",` +
				`"inputSchema":{"additionalProperties":false,"properties":{"limit":{"type":"integer"},"table":{"type":["null","string"]}},"required":["table"],"type":"object"},` +
				`"name":"count","outputSchema":` + wrap(`{"type":"integer"}`) + `}`,
		}
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s at %s:\n got %s\nwant %s", name, version, got[name], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("at %s: listed %d tools, want %d", version, len(got), len(want))
		}
	}
}

// TestOwnToolRefusesArguments: arguments that do not match the inputSchema
// inferred from In — an unknown property, a wrong type, a missing required
// property, null for a list — are refused before the handler runs, as a
// tool error in the words of a generated Register, with the JSON pointer.
func TestOwnToolRefusesArguments(t *testing.T) {
	var calls atomic.Int64
	s, err := composition.Connect(context.Background(), composition.InProcess(ownServer(t, &calls)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ tool, args, want string }{
		{"report", `{"tabel":"books"}`, `invalid arguments for tool "report" at /: additional properties 'tabel' not allowed`},
		{"report", `{"sample":"three"}`, `invalid arguments for tool "report" at /sample: got string, want integer`},
		{"report", `{"tables":null}`, `invalid arguments for tool "report" at /tables: got null, want array`},
		{"report", `{"tables":[1]}`, `invalid arguments for tool "report" at /tables/0: got number, want string`},
		{"names", `{}`, `invalid arguments for tool "names" at /: missing property 'prefix'`},
		{"count", `{"table":"a","limit":1.5}`, `invalid arguments for tool "count" at /limit: got number, want integer`},
	} {
		_, err := s.CallResult(context.Background(), tc.tool, json.RawMessage(tc.args))
		var te *composition.ToolError
		if !errors.As(err, &te) || te.Text != tc.want {
			t.Errorf("%s %s: got %v, want the tool error %q", tc.tool, tc.args, err, tc.want)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the handlers ran %d times for refused arguments", n)
	}
	// Valid ones pass, a null for a pointer argument included.
	if n, err := owntools.CountTool.Call(context.Background(), s, owntools.CountArgs{}); err != nil || n != -1 {
		t.Errorf("count with table null: %v, %v", n, err)
	}
}

// TestOwnToolCallsOverHTTP: the own tools served over streamable HTTP on
// loopback and called, typed, by a composition client in both eras: a
// natural []string and int arrive as such from 2026-07-28 on and wrapped
// before (structuredContent as sent), and both decode to the same Go
// values; nil slices and maps the handler returned are sent as [] and {}; a handler error
// and a nil pointer result are tool errors.
func TestOwnToolCallsOverHTTP(t *testing.T) {
	var calls atomic.Int64
	hs := httptest.NewServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(ownServer(t, &calls))))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, version := range []string{composition.ModernProtocolVersion, "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			s, err := composition.Connect(ctx, composition.HTTP(hs.URL), composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			legacy := version < composition.ModernProtocolVersion
			wrap := func(v string) string {
				if legacy {
					return `{"result":` + v + `}`
				}
				return v
			}

			names, err := owntools.NamesTool.Call(ctx, s, owntools.NamesArgs{Prefix: "t"})
			if err != nil || !slices.Equal(names, []string{"t1", "t2"}) {
				t.Errorf("names: %q, %v", names, err)
			}
			for _, tc := range []struct {
				tool string
				args any
				want string
			}{
				{"names", owntools.NamesArgs{Prefix: "none"}, wrap(`[]`)},
				{"count", map[string]any{"table": "abc"}, wrap(`3`)},
				{"report", owntools.ReportArgs{}, `{"tables":[{"name":"books","columns":[],"raw":null,"extra":{"a":[]},"cells":[],"ptr":{"kids":[]},"tags":{}}]}`},
			} {
				res, err := s.CallResult(ctx, tc.tool, tc.args)
				if err != nil {
					t.Fatalf("%s: %v", tc.tool, err)
				}
				if got := string(res.StructuredContent); got != tc.want || res.Text() != tc.want {
					t.Errorf("%s: structuredContent %s, text %s, want %s", tc.tool, got, res.Text(), tc.want)
				}
			}
			n, err := owntools.CountTool.Call(ctx, s, owntools.CountArgs{Table: new("abcd")})
			if err != nil || n != 4 {
				t.Errorf("count: %d, %v", n, err)
			}
			rep, err := owntools.ReportTool.Call(ctx, s, owntools.ReportArgs{})
			if err != nil || len(rep.Tables) != 1 || rep.Tables[0].Columns == nil || rep.Tables[0].Ptr.Kids == nil {
				t.Errorf("report: %+v, %v", rep, err)
			}

			for args, want := range map[string]string{
				"nope": `no table "nope"`,
				"nil":  "the tool returned no result (a nil *owntools.Report)",
			} {
				_, err := owntools.ReportTool.Call(ctx, s, owntools.ReportArgs{Tables: []string{args}})
				var te *composition.ToolError
				if !errors.As(err, &te) || te.Text != want {
					t.Errorf("report %s: got %v, want the tool error %q", args, err, want)
				}
			}
		})
	}
}

// TestOwnToolsBesideRegister: own tools and a generated Register on the
// same mcp-go server, in two Serve calls (in either order): every tool is
// listed once, each era's envelopes stay those of its own Serve call, and
// both answer.
func TestOwnToolsBesideRegister(t *testing.T) {
	ctx := context.Background()
	store, err := explorer.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, ownFirst := range []bool{true, false} {
		var calls atomic.Int64
		srv := server.NewMCPServer("both", "1", server.WithToolCapabilities(false))
		steps := []func() error{
			func() error { return composition.Serve(srv, owntools.Served(&calls)) },
			func() error { return sqliteexplorer.Register(srv, sqlitestub.Handler{Store: store}) },
		}
		if !ownFirst {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
		for _, version := range []string{composition.ModernProtocolVersion, "2025-06-18"} {
			s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			tools := listedTools(t, s)
			legacy := version < composition.ModernProtocolVersion
			for _, name := range []string{"names", "list_tables"} {
				if wrapped := strings.Contains(tools[name], `"outputSchema":{"properties":{"result"`); wrapped != legacy {
					t.Errorf("own first %v, %s: %s listed wrapped: %v\n%s", ownFirst, version, name, wrapped, tools[name])
				}
			}
			if len(tools) != 9 {
				t.Errorf("own first %v, %s: %d tools listed, want 9", ownFirst, version, len(tools))
			}
			if _, err := sqliteexplorer.NewClient(s).ListTables(ctx); err != nil {
				t.Errorf("list_tables: %v", err)
			}
			if names, err := owntools.NamesTool.Call(ctx, s, owntools.NamesArgs{Prefix: "x"}); err != nil || len(names) != 2 {
				t.Errorf("names: %v, %v", names, err)
			}
			s.Close()
		}
	}
}

// TestServeRefusesATakenName: a second Serve (or generated Register) of a
// tool name the server already has fails naming it and adds nothing, and
// so does one name given twice in one call: mcp-go would replace the first
// tool silently while the first Serve's era filter still listed its
// outputSchema.
func TestServeRefusesATakenName(t *testing.T) {
	ctx := context.Background()
	store, err := explorer.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var calls atomic.Int64
	srv := server.NewMCPServer("twice", "1", server.WithToolCapabilities(false))
	if err := sqliteexplorer.Register(srv, sqlitestub.Handler{Store: store}); err != nil {
		t.Fatal(err)
	}
	before := len(srv.ListTools())
	listTables := composition.NewTool[struct{}, []string]("list_tables", "Another list_tables.")
	own := append(owntools.Served(&calls), listTables.Serve(func(context.Context, struct{}) ([]string, error) { return nil, nil }))
	err = composition.Serve(srv, own)
	if err == nil || !strings.Contains(err.Error(), `serving tool "list_tables": the server already has a tool of that name`) {
		t.Errorf("Serve of a name Register added: %v", err)
	}
	if err := sqliteexplorer.Register(srv, sqlitestub.Handler{Store: store}); err == nil {
		t.Error("a second Register of the same tools succeeded")
	}
	if got := len(srv.ListTools()); got != before {
		t.Errorf("%d tools after the refused calls, want %d", got, before)
	}
	names := owntools.Served(&calls)
	err = composition.Serve(server.NewMCPServer("dup", "1"), append(names, names[0]))
	if err == nil || !strings.Contains(err.Error(), "the server already has a tool of that name") {
		t.Errorf("Serve of one name twice: %v", err)
	}
}

// TestOwnToolBadDeclaration: a type jsonschema-go cannot describe, or an
// argument type that is not an object, makes Serve fail naming the tool
// (nothing is added), and Call return the same error; no panic.
func TestOwnToolBadDeclaration(t *testing.T) {
	bad := composition.NewTool[struct{ C chan int }, int]("chan", "")
	notObject := composition.NewTool[[]string, int]("list_args", "")
	badMeta := composition.NewTool[owntools.NamesArgs, int]("meta", "", composition.WithToolMeta(`[1]`))
	for _, tc := range []struct {
		st   composition.ServedTool
		call func() error
		want string
	}{
		{bad.Serve(func(context.Context, struct{ C chan int }) (int, error) { return 0, nil }),
			func() error { _, err := bad.Call(context.Background(), nil, struct{ C chan int }{}); return err },
			`composition: declaring tool "chan": inferring the inputSchema from struct { C chan int }`},
		{notObject.Serve(func(context.Context, []string) (int, error) { return 0, nil }),
			func() error { _, err := notObject.Call(context.Background(), nil, nil); return err },
			`composition: declaring tool "list_args": its arguments type []string is not a struct or map`},
		{badMeta.Serve(func(context.Context, owntools.NamesArgs) (int, error) { return 0, nil }),
			func() error { _, err := badMeta.Call(context.Background(), nil, owntools.NamesArgs{}); return err },
			`composition: declaring tool "meta": its _meta is not a JSON object`},
	} {
		srv := server.NewMCPServer("bad", "1", server.WithToolCapabilities(false))
		if err := composition.Serve(srv, []composition.ServedTool{tc.st}); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Serve: got %v, want %q…", err, tc.want)
		}
		if len(srv.ListTools()) != 0 {
			t.Errorf("a tool was added: %v", srv.ListTools())
		}
		if err := tc.call(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Call: got %v, want %q…", err, tc.want)
		}
	}
}

// TestOwnToolResultsMatchSchemas: what the own tools send — nil slices and
// maps included — matches the outputSchema inferred from Out, checked by
// WithServerResultValidation in both eras.
func TestOwnToolResultsMatchSchemas(t *testing.T) {
	var calls atomic.Int64
	for _, version := range []string{composition.ModernProtocolVersion, "2025-06-18"} {
		s := serveInProcessWith(t, version, []composition.ServerOption{composition.WithServerResultValidation()}, owntools.Served(&calls)...)
		ctx := context.Background()
		if _, err := owntools.ReportTool.Call(ctx, s, owntools.ReportArgs{}); err != nil {
			t.Errorf("report at %s: %v", version, err)
		}
		if _, err := owntools.NamesTool.Call(ctx, s, owntools.NamesArgs{Prefix: "none"}); err != nil {
			t.Errorf("names at %s: %v", version, err)
		}
	}
}
