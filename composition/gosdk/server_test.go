package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	stub "github.com/mcpbind/mcpbind/golden/sqlite-explorer-gosdk/sqliteexplorer"
)

// tablesFake is a typed fake of sqlite-explorer on a go-sdk server: it
// answers list_tables and count_rows and leaves every other tool to the
// generated UnimplementedHandler.
type tablesFake struct {
	stub.UnimplementedHandler
}

func (tablesFake) ListTables(context.Context) ([]string, error) { return []string{"notes"}, nil }

func (tablesFake) CountRows(_ context.Context, args stub.CountRowsArgs) (int64, error) {
	if args.Table != "notes" {
		return 0, errors.New("no such table: " + args.Table)
	}
	return big, nil
}

// serveInMemory connects a go-sdk client at version (through
// gosdk.Transport) to srv over in-memory transports, the server first, and
// returns the composition session over it.
func serveInMemory(ctx context.Context, t testing.TB, srv *mcp.Server, version string) *composition.Session {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-server-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, gosdk.Transport(ct), &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	s, err := gosdk.NewSession(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestTypedFakeInMemory serves a typed fake (UnimplementedHandler
// embedded) with the generated go-sdk Register and calls it through the
// generated client over a go-sdk session, in both eras: list_tables
// arrives natural (unwrapped by the client toward 2025-06-18, where the
// stub wrapped it), an int64 above 2^53 exact, a handler error and an
// omitted tool as *composition.ToolError with the handler's text and
// `tool "NAME" is not implemented`.
func TestTypedFakeInMemory(t *testing.T) {
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := mcp.NewServer(&mcp.Implementation{Name: "sqlite-explorer", Version: "0.1.0"}, nil)
			if err := stub.Register(srv, tablesFake{}); err != nil {
				t.Fatal(err)
			}
			s := serveInMemory(ctx, t, srv, version)
			if s.ProtocolVersion() != version {
				t.Fatalf("negotiated %q, want %s", s.ProtocolVersion(), version)
			}
			c := stub.NewClient(s)
			if tables, err := c.ListTables(ctx); err != nil || len(tables) != 1 || tables[0] != "notes" {
				t.Fatalf("ListTables = %q, %v", tables, err)
			}
			res, err := s.CallResult(ctx, "list_tables", nil)
			if err != nil {
				t.Fatal(err)
			}
			want := `["notes"]`
			if version < composition.ModernProtocolVersion {
				want = `{"result":["notes"]}`
			}
			if string(res.StructuredContent) != want || len(res.Content) != 1 || res.Content[0].Text != want {
				t.Errorf("list_tables at %s sent structuredContent %s, content %+v; want %s in both", version, res.StructuredContent, res.Content, want)
			}
			if n, err := c.CountRows(ctx, stub.CountRowsArgs{Table: "notes"}); err != nil || n != big {
				t.Fatalf("CountRows = %d, %v; want %d exact", n, err, big)
			}
			_, err = c.CountRows(ctx, stub.CountRowsArgs{Table: "nope"})
			var te *composition.ToolError
			if !errors.As(err, &te) || te.Text != "no such table: nope" {
				t.Fatalf("CountRows(nope): %v; want the handler's error as a tool error", err)
			}
			_, err = c.Query(ctx, stub.QueryArgs{SQL: "SELECT 1"})
			if !errors.As(err, &te) || te.Text != `tool "query" is not implemented` {
				t.Fatalf("Query: %v; want the tool error `tool \"query\" is not implemented`", err)
			}
			res, err = s.CallResult(ctx, "count_rows", map[string]any{"table": "notes", "extra": 1})
			if !errors.As(err, &te) || !strings.HasPrefix(te.Text, `invalid arguments for tool "count_rows"`) {
				t.Fatalf("count_rows with an unknown argument: %v, %+v; want an invalid-arguments tool error", err, res)
			}
		})
	}
}

// TestOwnToolsBesideRegister: a go-sdk server with the generated Register
// and a tool of its own added with mcp.AddTool lists both, the generated
// ones as the bundle holds them (the count_rows object toward 2025-06-18
// with its legacy outputSchema), and answers both.
func TestOwnToolsBesideRegister(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "composer", Version: "0"}, nil)
	if err := stub.Register(srv, tablesFake{}); err != nil {
		t.Fatal(err)
	}
	type greetArgs struct {
		Name string `json:"name"`
	}
	type greeting struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greet someone."}, func(_ context.Context, _ *mcp.CallToolRequest, a greetArgs) (*mcp.CallToolResult, greeting, error) {
		return nil, greeting{Text: "hello " + a.Name}, nil
	})
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		s := serveInMemory(ctx, t, srv, version)
		tools, err := s.ListToolsRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]json.RawMessage{}
		for _, tool := range tools {
			var named struct{ Name string }
			if err := json.Unmarshal(tool, &named); err != nil {
				t.Fatal(err)
			}
			byName[named.Name] = tool
		}
		if len(byName) != 7 || byName["greet"] == nil {
			t.Fatalf("%s: listed %d tools (%v); want the 6 generated and greet", version, len(byName), keys(byName))
		}
		var count struct{ OutputSchema json.RawMessage }
		if err := json.Unmarshal(byName["count_rows"], &count); err != nil {
			t.Fatal(err)
		}
		want := `{"type":"integer"}`
		if version < composition.ModernProtocolVersion {
			want = `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}`
		}
		if string(count.OutputSchema) != want {
			t.Errorf("%s: count_rows listed with outputSchema %s, want %s", version, count.OutputSchema, want)
		}
		res, err := s.CallResult(ctx, "greet", map[string]any{"name": "Ada"})
		if err != nil || string(res.StructuredContent) != `{"text":"hello Ada"}` {
			t.Fatalf("%s: greet = %+v, %v", version, res, err)
		}
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestServeRefusesBadTools: Serve returns an error, adding nothing, where
// go-sdk's AddTool would panic (an inputSchema whose type is not
// "object"), and for a tool named twice.
func TestServeRefusesBadTools(t *testing.T) {
	run := func(context.Context) (any, error) { return nil, nil }
	for _, tc := range []struct {
		name  string
		tools []bindimpl.ServedTool
		want  string
	}{
		{"string inputSchema", []bindimpl.ServedTool{
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "a"}, `{"name":"a","inputSchema":{"type":"object"}}`, run),
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "b"}, `{"name":"b","inputSchema":{"type":"string"}}`, run),
		}, `gosdk: serving tool "b": its inputSchema's "type" is "string", not "object"`},
		{"nullable object", []bindimpl.ServedTool{
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "a"}, `{"name":"a","inputSchema":{"type":"object"}}`, run),
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "c"}, `{"name":"c","inputSchema":{"type":["object","null"]}}`, run),
		}, `gosdk: serving tool "c": its inputSchema's "type" is ["object","null"]`},
		{"hostile type", []bindimpl.ServedTool{
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "d"}, `{"name":"d","inputSchema":{"type":"x\u202e\u001b[2J"}}`, run),
		}, `gosdk: serving tool "d": its inputSchema's "type" is "x\u202e\u001b[2J", not "object"`},
		{"named twice", []bindimpl.ServedTool{
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "a"}, `{"name":"a","inputSchema":{"type":"object"}}`, run),
			bindimpl.HandleNoArgs(bindimpl.Tool{Name: "a"}, `{"name":"a"}`, run),
		}, `gosdk: serving tool "a": the tool is named twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "0"}, nil)
			err := gosdk.Serve(srv, tc.tools)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Serve: %v; want an error starting %q", err, tc.want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tools, err := serveInMemory(ctx, t, srv, "2025-06-18").ListToolsRaw(ctx)
			if err != nil || len(tools) != 0 {
				t.Fatalf("after the refused Serve the server lists %d tools (%v); want none", len(tools), err)
			}
		})
	}
}

// TestPlainResults: a tool without outputSchema whose handler returns a
// *composition.Result is answered with its content blocks as they are
// (members go-sdk's content types do not model kept), its
// structuredContent and its _meta (keys MCP reserves dropped); a
// *composition.ToolError carrying a Result is answered with that result
// and isError; a plain error with its text.
func TestPlainResults(t *testing.T) {
	block := `{"type":"image","data":"aGk=","mimeType":"image/png","x-extra":{"kept":true}}`
	plain := &composition.Result{
		Content:           []composition.Content{{Raw: json.RawMessage(block)}, {Type: "text", Text: "two"}},
		StructuredContent: json.RawMessage(`{"n":9007199254740993}`),
		Meta:              json.RawMessage(`{"app/trace":"t1","io.modelcontextprotocol/related":"x"}`),
	}
	failing := &composition.ToolError{Tool: "fails", Text: "ignored", Result: &composition.Result{
		Content: []composition.Content{{Raw: json.RawMessage(`{"type":"text","text":"from the result","x-why":1}`)}},
	}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "0"}, nil)
	err := gosdk.Serve(srv, []bindimpl.ServedTool{
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "plain"}, `{"name":"plain","inputSchema":{"type":"object"}}`,
			func(context.Context) (*composition.Result, error) { return plain, nil }),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "fails"}, `{"name":"fails","inputSchema":{"type":"object"}}`,
			func(context.Context) (*composition.Result, error) { return nil, failing }),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "errs"}, `{"name":"errs","inputSchema":{"type":"object"}}`,
			func(context.Context) (*composition.Result, error) { return nil, errors.New("plain failure") }),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s := serveInMemory(ctx, t, srv, version)
		res, err := s.CallResult(ctx, "plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 || string(res.Content[0].Raw) != block || res.Content[1].Text != "two" {
			t.Errorf("%s: plain content %s", version, res.Content)
		}
		if string(res.StructuredContent) != `{"n":9007199254740993}` {
			t.Errorf("%s: plain structuredContent %s", version, res.StructuredContent)
		}
		var meta map[string]any
		_ = json.Unmarshal(res.Meta, &meta)
		if meta["app/trace"] != "t1" || meta["io.modelcontextprotocol/related"] != nil {
			t.Errorf("%s: plain _meta %s; want app/trace kept, the reserved key dropped", version, res.Meta)
		}
		_, err = s.CallResult(ctx, "fails", nil)
		var te *composition.ToolError
		if !errors.As(err, &te) || te.Text != "from the result" || te.Result == nil || string(te.Result.Content[0].Raw) != `{"type":"text","text":"from the result","x-why":1}` {
			t.Errorf("%s: fails: %v; want the ToolError's own result", version, err)
		}
		_, err = s.CallResult(ctx, "errs", nil)
		if !errors.As(err, &te) || te.Text != "plain failure" {
			t.Errorf("%s: errs: %v; want the error's text", version, err)
		}
		cancel()
	}
}

// TestTypedProxyAcrossEras: the generated *Client is a Handler, so
// Register(srv, NewClient(s)) is a typed proxy in one line: a go-sdk
// server in front of the real sqlite-explorer (reached over a go-sdk
// client session at one era) answers a client of the other era with the
// real server's values, wrapped or natural by the client's era, an int64
// above 2^53 exact, and the real server's tool error text.
func TestTypedProxyAcrossEras(t *testing.T) {
	for _, tc := range []struct{ downstream, client string }{
		{"2025-06-18", composition.ModernProtocolVersion},
		{composition.ModernProtocolVersion, "2025-06-18"},
	} {
		t.Run(tc.downstream+" to "+tc.client, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			down, _ := explorerSession(ctx, t, tc.downstream)
			srv := mcp.NewServer(&mcp.Implementation{Name: "proxy", Version: "0"}, nil)
			if err := stub.Register(srv, stub.NewClient(down)); err != nil {
				t.Fatal(err)
			}
			s := serveInMemory(ctx, t, srv, tc.client)
			res, err := s.CallResult(ctx, "count_rows", map[string]any{"table": "authors"})
			if err != nil {
				t.Fatal(err)
			}
			want := `10`
			if tc.client < composition.ModernProtocolVersion {
				want = `{"result":10}`
			}
			if string(res.StructuredContent) != want {
				t.Errorf("count_rows through the proxy: structuredContent %s, want %s", res.StructuredContent, want)
			}
			c := stub.NewClient(s)
			ins, err := c.InsertRow(ctx, stub.InsertRowArgs{Table: "authors", Values: map[string]json.RawMessage{
				"id": json.RawMessage("9007199254740993"), "name": json.RawMessage(`"Big"`)}})
			if err != nil || ins.ID != big {
				t.Fatalf("InsertRow through the proxy = %+v, %v; want id %d exact", ins, err, big)
			}
			_, err = c.CountRows(ctx, stub.CountRowsArgs{Table: "no_such_table"})
			var te *composition.ToolError
			if !errors.As(err, &te) || !strings.Contains(te.Text, "no_such_table") {
				t.Fatalf("CountRows(no_such_table) through the proxy: %v; want the real server's tool error", err)
			}
		})
	}
}

// TestServerValidationOptions: WithServerArgsValidation refuses arguments
// that the handler would take but the inputSchema does not allow (as an
// invalid-arguments tool error naming the JSON pointer), and
// WithServerResultValidation refuses a result outside the outputSchema (a
// tool error naming the tool); without the options both calls succeed.
func TestServerValidationOptions(t *testing.T) {
	tool := bindimpl.Tool{Name: "n", InputDoc: "in", OutputDoc: "out", Schemas: bindimpl.NewSchemaSet(map[string]string{
		"in":  `{"type":"object","properties":{"x":{"type":"string"}}}`,
		"out": `{"type":"integer","minimum":0}`,
	})}
	served := []bindimpl.ServedTool{bindimpl.HandleNoArgs(tool, `{"name":"n"}`, func(context.Context) (int, error) { return -1, nil })}
	for _, tc := range []struct {
		name          string
		opts          []gosdk.ServerOption
		args          any
		wantErrPrefix string
	}{
		{"no options, bad args", nil, map[string]any{"x": 5}, ""},
		{"args validation", []gosdk.ServerOption{gosdk.WithServerArgsValidation()}, map[string]any{"x": 5}, `invalid arguments for tool "n" at /x`},
		{"args validation, good args", []gosdk.ServerOption{gosdk.WithServerArgsValidation()}, map[string]any{"x": "s"}, ""},
		{"result validation", []gosdk.ServerOption{gosdk.WithServerResultValidation()}, nil, `tool "n": the handler's result does not match the outputSchema`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "0"}, nil)
			if err := gosdk.Serve(srv, served, tc.opts...); err != nil {
				t.Fatal(err)
			}
			res, err := serveInMemory(ctx, t, srv, composition.ModernProtocolVersion).CallResult(ctx, "n", tc.args)
			var te *composition.ToolError
			switch {
			case tc.wantErrPrefix == "" && (err != nil || string(res.StructuredContent) != "-1"):
				t.Fatalf("call = %+v, %v; want -1", res, err)
			case tc.wantErrPrefix != "" && (!errors.As(err, &te) || !strings.HasPrefix(te.Text, tc.wantErrPrefix)):
				t.Fatalf("call: %v; want a tool error starting %q", err, tc.wantErrPrefix)
			}
		})
	}
}
