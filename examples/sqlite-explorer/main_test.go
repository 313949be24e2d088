package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// The server is started as a real process and spoken to through mcp-go's
// client, over stdio and over streamable HTTP, once per protocol version:
// the default (2026-07-28, negotiated through server/discover) and pinned
// initialize-era versions, toward which non-object results are wrapped.

const modern = "2026-07-28"

func TestSQLiteExplorer(t *testing.T) {
	bin := testenv.Build(t, "./examples/sqlite-explorer")
	connects := map[string]func(t *testing.T, opts ...client.ClientOption) *client.Client{
		"stdio": func(t *testing.T, opts ...client.ClientOption) *client.Client {
			tr := transport.NewStdio(bin, nil, "--dir", t.TempDir())
			if err := tr.Start(t.Context()); err != nil {
				t.Fatalf("start stdio server: %v", err)
			}
			return client.NewClient(tr, opts...)
		},
		"http": func(t *testing.T, opts ...client.ClientOption) *client.Client {
			url := testenv.StartHTTP(t, bin, "--dir", t.TempDir(), "--http", "127.0.0.1:0")
			if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
				t.Fatalf("announced URL %q, want http://127.0.0.1:PORT/mcp", url)
			}
			tr, err := transport.NewStreamableHTTP(url)
			if err != nil {
				t.Fatal(err)
			}
			c := client.NewClient(tr, opts...)
			if err := c.Start(t.Context()); err != nil {
				t.Fatalf("start http client: %v", err)
			}
			return c
		},
	}
	for _, name := range []string{"stdio", "http"} {
		// "" lets the client negotiate its default.
		for _, pinned := range []string{"", "2025-11-25", "2025-06-18"} {
			label := pinned
			if label == "" {
				label = "default"
			}
			t.Run(name+"/"+label, func(t *testing.T) {
				t.Parallel()
				var opts []client.ClientOption
				if pinned != "" {
					opts = append(opts, client.WithProtocolVersion(pinned))
				}
				c := connects[name](t, opts...)
				t.Cleanup(func() { c.Close() })
				ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
				defer cancel()
				init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
					ClientInfo: mcp.Implementation{Name: "sqlite-explorer-test", Version: "1"},
				}})
				if err != nil {
					t.Fatalf("initialize: %v", err)
				}
				want := pinned
				if want == "" {
					want = modern
				}
				if init.ProtocolVersion != want || c.ProtocolVersion() != want {
					t.Fatalf("negotiated %q (client says %q), want %q", init.ProtocolVersion, c.ProtocolVersion(), want)
				}
				if init.ServerInfo.Name != "sqlite-explorer" {
					t.Errorf("serverInfo.name = %q", init.ServerInfo.Name)
				}
				s := session{ctx: ctx, c: c, modern: want == modern}
				t.Run("tools/list", s.testToolsList)
				t.Run("list_tables", s.testListTables)
				t.Run("count_rows", s.testCountRows)
				t.Run("find_row", s.testFindRow)
				t.Run("query", s.testQuery)
				t.Run("describe_table", s.testDescribeTable)
				t.Run("insert_row", s.testInsertRow)
				t.Run("errors", s.testErrors)
			})
		}
	}
}

// One HTTP server serves both eras at once: each client sees its own era,
// whatever the other did before (the era is a property of each request).
func TestHTTPServesBothErasAtOnce(t *testing.T) {
	url := testenv.SQLiteExplorerHTTP(t)
	open := func(opts ...client.ClientOption) session {
		tr, err := transport.NewStreamableHTTP(url)
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr, opts...)
		t.Cleanup(func() { c.Close() })
		if err := c.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(t.Context(), mcp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		return session{ctx: t.Context(), c: c, modern: c.ProtocolVersion() == modern}
	}
	legacy := open(client.WithProtocolVersion("2025-06-18"))
	current := open()
	if legacy.modern || !current.modern {
		t.Fatalf("negotiated %q and %q", legacy.c.ProtocolVersion(), current.c.ProtocolVersion())
	}
	for range 2 {
		for _, s := range []session{legacy, current, legacy} {
			assertJSON(t, "count_rows outputSchema", s.rawToolsList(t)["count_rows"]["outputSchema"], s.wrappedSchema(`{"type":"integer"}`))
			s.callOK(t, "count_rows", map[string]any{"table": "authors"}, s.wrapped(`10`))
			s.callOK(t, "find_row", map[string]any{"table": "authors", "id": 0}, s.wrapped(`null`))
		}
	}
}

// Served over HTTP, the example has health endpoints and refuses what the
// MCP transport's security warning asks to refuse: a foreign browser
// Origin (403), and a non-loopback address (it has no authentication).
func TestHTTPSafeDefaults(t *testing.T) {
	url := testenv.SQLiteExplorerHTTP(t)
	base := strings.TrimSuffix(url, "/mcp")
	get := func(u, origin string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(base+"/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if code, body := get(base+"/readyz", ""); code != http.StatusOK || !strings.Contains(body, `"ready":true`) {
		t.Errorf("/readyz: %d %s", code, body)
	}
	if code, body := get(url, "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("a foreign Origin: %d %s", code, body)
	}

	// On 0.0.0.0 it must exit 1 saying why, not announce a listener.
	cmd := exec.CommandContext(t.Context(), testenv.Build(t, "./examples/sqlite-explorer"), "--dir", t.TempDir(), "--http", "0.0.0.0:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		said.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "listening on ") {
			cmd.Process.Kill()
			t.Errorf("--http 0.0.0.0:0 serves without authentication: %s", lines.Text())
			break
		}
	}
	err = cmd.Wait()
	if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(said.String(), "without authentication") {
		t.Errorf("--http 0.0.0.0:0: %v\n%s", err, said.String())
	}
}

// session is one connected client and the era it negotiated.
type session struct {
	ctx    context.Context
	c      *client.Client
	modern bool
}

// wrapped is what a non-object natural value v looks like in this session.
func (s session) wrapped(v string) string {
	if s.modern {
		return v
	}
	return `{"result":` + v + `}`
}

// wrappedSchema is what a non-object natural schema looks like in tools/list.
func (s session) wrappedSchema(schema string) string {
	if s.modern {
		return schema
	}
	return `{"type":"object","properties":{"result":` + schema + `},"required":["result"]}`
}

// rawToolsList sends tools/list through the client's transport and returns
// each tool as the server sent it. (mcp.Tool drops schema keywords such as
// items and anyOf, so the schemas are checked on the raw JSON.) On a
// 2026-07-28 session the request carries the _meta and Mcp-Method header
// that the client would add.
func (s session) rawToolsList(t *testing.T) map[string]map[string]json.RawMessage {
	params := map[string]any{}
	var header map[string][]string
	if s.modern {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    modern,
			mcp.MetaKeyClientCapabilities: map[string]any{},
		}
		encoded, _ := json.Marshal(params)
		header = map[string][]string{}
		for k, v := range mcp.StandardHeaders(modern, mcp.MethodToolsList, encoded) {
			header[k] = []string{v}
		}
	}
	resp, err := s.c.GetTransport().SendRequest(s.ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId("raw-tools-list"),
		Method:  string(mcp.MethodToolsList),
		Params:  params,
		Header:  header,
	})
	if err != nil {
		t.Fatalf("raw tools/list: %v", err)
	}
	if resp.Error != nil {
		t.Fatalf("raw tools/list: %v", resp.Error.AsError())
	}
	var result struct {
		Tools      []map[string]json.RawMessage `json:"tools"`
		NextCursor string                       `json:"nextCursor"`
	}
	if err := json.Unmarshal(resp.Result, &result); err != nil {
		t.Fatalf("raw tools/list: %v\n%s", err, resp.Result)
	}
	if result.NextCursor != "" {
		t.Fatalf("tools/list paginated unexpectedly")
	}
	tools := map[string]map[string]json.RawMessage{}
	for _, tool := range result.Tools {
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		tools[name] = tool
	}
	return tools
}

func (s session) testToolsList(t *testing.T) {
	tools := s.rawToolsList(t)
	if len(tools) != 6 {
		t.Errorf("got %d tools, want 6: %v", len(tools), keys(tools))
	}
	queryResult := `{"type":"object","properties":{
		"columns":{"type":"array","items":{"type":"string"},"description":"The result's column names, in order."},
		"rows":{"type":"array","items":{"type":"array","items":true},"description":"The rows, each a list of values in column order."},
		"row_count":{"type":"integer","description":"The number of rows."}},
		"required":["columns","rows","row_count"],"additionalProperties":false}`
	wantOutput := map[string]string{
		// Plain objects: never wrapped.
		"query":      queryResult,
		"insert_row": `{"type":"object","properties":{"id":{"type":"integer","description":"The new row's rowid (its INTEGER PRIMARY KEY when it has one)."}},"required":["id"],"additionalProperties":false}`,
		// Not plain objects: wrapped before 2026-07-28.
		"list_tables": s.wrappedSchema(`{"type":"array","items":{"type":"string"}}`),
		"count_rows":  s.wrappedSchema(`{"type":"integer"}`),
		"find_row":    s.wrappedSchema(`{"anyOf":[{"type":"object","additionalProperties":true},{"type":"null"}]}`),
	}
	for name, want := range wantOutput {
		tool, ok := tools[name]
		if !ok {
			t.Errorf("tool %s missing", name)
			continue
		}
		assertJSON(t, name+" outputSchema", tool["outputSchema"], want)
	}
	// describe_table: a plain object with a nested array of objects.
	var describe struct {
		Type       string `json:"type"`
		Properties struct {
			Columns struct {
				Type  string `json:"type"`
				Items struct {
					Required []string `json:"required"`
				} `json:"items"`
			} `json:"columns"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tools["describe_table"]["outputSchema"], &describe); err != nil {
		t.Fatal(err)
	}
	if describe.Type != "object" || describe.Properties.Columns.Type != "array" ||
		!reflect.DeepEqual(describe.Properties.Columns.Items.Required, []string{"name", "type", "not_null", "primary_key"}) {
		t.Errorf("describe_table outputSchema = %s", tools["describe_table"]["outputSchema"])
	}
	// Property order follows the Go struct's field order.
	if got := string(tools["query"]["outputSchema"]); !(strings.Index(got, `"columns"`) < strings.Index(got, `"rows"`) &&
		strings.Index(got, `"rows"`) < strings.Index(got, `"row_count"`)) {
		t.Errorf("query outputSchema properties out of field order: %s", got)
	}

	assertJSON(t, "query inputSchema", tools["query"]["inputSchema"], `{"type":"object","properties":{
		"sql":{"type":"string","description":"One SQL statement, run read-only (SELECT, WITH, PRAGMA, EXPLAIN). Use ? placeholders for values."},
		"params":{"type":"array","items":true,"description":"Values bound to the statement's ? placeholders, in order."}},
		"required":["sql"],"additionalProperties":false}`)
	assertJSON(t, "list_tables inputSchema", tools["list_tables"]["inputSchema"], `{"type":"object","additionalProperties":false}`)

	var annotations struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
	}
	_ = json.Unmarshal(tools["query"]["annotations"], &annotations)
	if annotations.ReadOnly == nil || !*annotations.ReadOnly {
		t.Errorf("query annotations = %s, want readOnlyHint true", tools["query"]["annotations"])
	}
	assertJSON(t, "query _meta", tools["query"]["_meta"], `{"pmcp:outputTypeName":"QueryResult"}`)
	annotations.ReadOnly, annotations.Destructive = nil, nil
	_ = json.Unmarshal(tools["insert_row"]["annotations"], &annotations)
	if annotations.ReadOnly == nil || *annotations.ReadOnly || annotations.Destructive == nil || !*annotations.Destructive {
		t.Errorf("insert_row annotations = %s, want readOnlyHint false, destructiveHint true", tools["insert_row"]["annotations"])
	}

	// mcp-go's own ListTools decodes every tool in both eras.
	listed, err := s.c.ListTools(s.ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("client ListTools: %v", err)
	}
	if len(listed.Tools) != 6 {
		t.Errorf("client ListTools: %d tools", len(listed.Tools))
	}
}

// call calls a tool and checks the text block mirrors structuredContent.
func (s session) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.c.CallTool(s.ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		if res.RawStructuredContent == nil {
			t.Fatalf("%s: no structuredContent", name)
		}
		if got := text(res); got != string(res.RawStructuredContent) {
			t.Errorf("%s: text %s, structuredContent %s: want the same JSON", name, got, res.RawStructuredContent)
		}
	}
	return res
}

// callOK calls a tool and compares its structuredContent with want.
func (s session) callOK(t *testing.T, name string, args any, want string) {
	t.Helper()
	res := s.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): isError: %s", name, args, text(res))
	}
	assertJSON(t, name+" structuredContent", res.RawStructuredContent, want)
}

// callError calls a tool, expects isError, and checks its text mentions want.
func (s session) callError(t *testing.T, name string, args any, want string) {
	t.Helper()
	res := s.call(t, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v): want isError, got %s", name, args, res.RawStructuredContent)
	}
	if got := text(res); !strings.Contains(got, want) {
		t.Errorf("%s(%v): error text %q does not mention %q", name, args, got, want)
	}
}

func (s session) testListTables(t *testing.T) {
	s.callOK(t, "list_tables", nil, s.wrapped(`["authors","books","loans"]`))
	s.callOK(t, "list_tables", map[string]any{}, s.wrapped(`["authors","books","loans"]`))
}

func (s session) testCountRows(t *testing.T) {
	s.callOK(t, "count_rows", map[string]any{"table": "books"}, s.wrapped(`24`))
	s.callOK(t, "count_rows", map[string]any{"table": "loans"}, s.wrapped(`14`))
}

func (s session) testFindRow(t *testing.T) {
	s.callOK(t, "find_row", map[string]any{"table": "authors", "id": 8},
		s.wrapped(`{"id":8,"name":"Jules Verne","born":1828,"country":"France"}`))
	s.callOK(t, "find_row", map[string]any{"table": "loans", "id": 6},
		s.wrapped(`{"id":6,"book_id":15,"borrower":"Chen Wei","loaned_on":"2025-02-20","due_on":"2025-03-13","returned_on":null}`))
	// Absent: a null structuredContent (sent, not omitted), or {"result":null}.
	res := s.call(t, "find_row", map[string]any{"table": "books", "id": 999})
	if res.IsError {
		t.Fatalf("find_row absent: isError: %s", text(res))
	}
	if got, want := string(res.RawStructuredContent), s.wrapped("null"); got != want {
		t.Errorf("find_row absent: structuredContent %s, want %s", got, want)
	}
}

func (s session) testQuery(t *testing.T) {
	s.callOK(t, "query", map[string]any{
		"sql":    "SELECT title, published FROM books WHERE author_id = ? ORDER BY published",
		"params": []any{8},
	}, `{"columns":["title","published"],"rows":[
		["Journey to the Center of the Earth",1864],
		["Twenty Thousand Leagues Under the Seas",1870],
		["Around the World in Eighty Days",1872]],"row_count":3}`)
	s.callOK(t, "query", map[string]any{
		"sql": "SELECT a.name, count(*) AS out FROM loans l JOIN books b ON b.id = l.book_id JOIN authors a ON a.id = b.author_id " +
			"WHERE l.returned_on IS NULL GROUP BY a.name ORDER BY a.name LIMIT ?",
		"params": []any{2},
	}, `{"columns":["name","out"],"rows":[["Charles Dickens",1],["Fyodor Dostoevsky",1]],"row_count":2}`)
	s.callOK(t, "query", map[string]any{"sql": "SELECT 1 AS x WHERE 0"},
		`{"columns":["x"],"rows":[],"row_count":0}`)
}

func (s session) testDescribeTable(t *testing.T) {
	s.callOK(t, "describe_table", map[string]any{"table": "loans"}, `{"table":"loans","columns":[
		{"name":"id","type":"INTEGER","not_null":false,"primary_key":true},
		{"name":"book_id","type":"INTEGER","not_null":true,"primary_key":false},
		{"name":"borrower","type":"TEXT","not_null":true,"primary_key":false},
		{"name":"loaned_on","type":"TEXT","not_null":true,"primary_key":false},
		{"name":"due_on","type":"TEXT","not_null":true,"primary_key":false},
		{"name":"returned_on","type":"TEXT","not_null":false,"primary_key":false}]}`)
}

func (s session) testInsertRow(t *testing.T) {
	s.callOK(t, "insert_row", map[string]any{"table": "authors", "values": map[string]any{
		"name": "Edith Wharton", "born": 1862, "country": "United States",
	}}, `{"id":11}`)
	s.callOK(t, "insert_row", map[string]any{"table": "books", "values": map[string]any{
		"title": "The Age of Innocence", "author_id": 11, "published": 1920, "genre": "novel",
	}}, `{"id":25}`)
	s.callOK(t, "find_row", map[string]any{"table": "books", "id": 25}, s.wrapped(
		`{"id":25,"title":"The Age of Innocence","author_id":11,"published":1920,"genre":"novel","copies":1}`))
	s.callOK(t, "count_rows", map[string]any{"table": "authors"}, s.wrapped(`11`))
}

func (s session) testErrors(t *testing.T) {
	s.callError(t, "count_rows", map[string]any{"table": "members"}, `unknown table "members"`)
	s.callError(t, "describe_table", map[string]any{"table": "members"}, "the tables are: authors, books, loans")
	s.callError(t, "find_row", map[string]any{"table": "members", "id": 1}, `unknown table "members"`)
	s.callError(t, "query", map[string]any{"sql": "SELEC title FROM books"}, "syntax error")
	s.callError(t, "query", map[string]any{"sql": "SELECT nope FROM books"}, "no such column: nope")
	s.callError(t, "query", map[string]any{"sql": "DELETE FROM loans"}, "readonly")
	s.callError(t, "query", map[string]any{"sql": "PRAGMA query_only = 0; DELETE FROM loans"}, "only one SQL statement")
	s.callOK(t, "query", map[string]any{"sql": "PRAGMA query_only = 0"}, `{"columns":[],"rows":[],"row_count":0}`)
	s.callError(t, "query", map[string]any{"sql": "DELETE FROM loans"}, "readonly")
	s.callError(t, "query", map[string]any{"sql": "VACUUM INTO ?", "params": []any{filepath.Join(t.TempDir(), "copy.db")}}, "within a transaction")
	s.callError(t, "insert_row", map[string]any{"table": "authors", "values": map[string]any{"nickname": "Boz"}},
		`table "authors" has no column "nickname"`)
	s.callError(t, "insert_row", map[string]any{"table": "books", "values": map[string]any{"title": "Orphan", "author_id": 999}},
		"FOREIGN KEY")
	// Invalid arguments are answered in words, naming the JSON pointer.
	s.callError(t, "count_rows", map[string]any{}, "arguments: missing property 'table'")
	s.callError(t, "find_row", map[string]any{"table": "books", "id": "one"}, "arguments/id: got string, want integer")
	// The failed write left the data as it was.
	s.callOK(t, "count_rows", map[string]any{"table": "loans"}, s.wrapped(`14`))
}

// assertJSON compares JSON documents by value.
func assertJSON(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: invalid JSON %q: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, compact(want))
	}
}

func compact(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
