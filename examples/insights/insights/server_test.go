package insights

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/insights/memory"
	"github.com/mcpbind/mcpbind/examples/insights/sqliteexplorer"
)

// The unit tests run insights against typed fakes of its downstream
// servers: the generated Handler interfaces of packages sqliteexplorer and
// memory, implemented below with canned data and served by their generated
// Register on mcp-go servers in this process (composition.InProcess). The
// calls go through the generated clients, the registry and the same codec
// and validation as over stdio; the end-to-end test in examples/analyst
// runs the real servers.

// fakeTable is one table of fakeDB.
type fakeTable struct {
	columns []string
	rows    [][]json.RawMessage
}

// fakeDB is a typed fake of sqlite-explorer (sqliteexplorer.Handler): a few
// tables in memory; query understands only the statement insights sends.
// The embedded UnimplementedHandler answers any tool it does not implement.
type fakeDB struct {
	sqliteexplorer.UnimplementedHandler
	mu     sync.Mutex
	tables map[string]*fakeTable
}

func newFakeDB() *fakeDB {
	row := func(vals ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(vals))
		for i, v := range vals {
			out[i] = json.RawMessage(v)
		}
		return out
	}
	return &fakeDB{tables: map[string]*fakeTable{
		"authors": {columns: []string{"id", "name"}, rows: [][]json.RawMessage{row(`1`, `"Ada"`), row(`2`, `"Grace"`)}},
		"books": {columns: []string{"id", "title", "author_id"}, rows: [][]json.RawMessage{
			row(`1`, `"Notes"`, `1`), row(`2`, `"Compilers"`, `2`), row(`3`, `"COBOL"`, `2`), row(`4`, `"Engines"`, `1`),
		}},
		"empty": {columns: []string{"id"}},
	}}
}

// dropTable removes a table, as if the database changed under insights.
func (f *fakeDB) dropTable(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.tables, name)
}

func (f *fakeDB) table(name string) (*fakeTable, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tables[name]
	if !ok {
		return nil, fmt.Errorf("no such table: %s", name)
	}
	return t, nil
}

func (f *fakeDB) ListTables(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.tables)), nil
}

func (f *fakeDB) CountRows(ctx context.Context, a sqliteexplorer.CountRowsArgs) (int64, error) {
	t, err := f.table(a.Table)
	if err != nil {
		return 0, err
	}
	return int64(len(t.rows)), nil
}

// sampleSQL is the statement table_report sends.
var sampleSQL = regexp.MustCompile(`^SELECT \* FROM "([^"]+)" ORDER BY rowid LIMIT \?$`)

func (f *fakeDB) Query(ctx context.Context, a sqliteexplorer.QueryArgs) (*sqliteexplorer.QueryResult, error) {
	m := sampleSQL.FindStringSubmatch(a.SQL)
	if m == nil || len(a.Params) != 1 {
		return nil, fmt.Errorf("the fake answers only %s with one parameter, not %q", sampleSQL, a.SQL)
	}
	t, err := f.table(m[1])
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(string(a.Params[0]))
	if err != nil {
		return nil, fmt.Errorf("LIMIT %s: %v", a.Params[0], err)
	}
	rows := t.rows[:min(n, len(t.rows))]
	return &sqliteexplorer.QueryResult{Columns: t.columns, Rows: rows, RowCount: int64(len(rows))}, nil
}

// fakeMemory is a typed fake of server-memory (memory.Handler): the entities
// of a knowledge graph, with server-memory's rules for duplicates. The
// embedded UnimplementedHandler answers any tool it does not implement.
type fakeMemory struct {
	memory.UnimplementedHandler
	mu       sync.Mutex
	entities []memory.EntityResult
}

func (f *fakeMemory) find(name string) int {
	return slices.IndexFunc(f.entities, func(e memory.EntityResult) bool { return e.Name == name })
}

func (f *fakeMemory) CreateEntities(ctx context.Context, a memory.CreateEntitiesArgs) (*memory.CreateEntitiesResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &memory.CreateEntitiesResult{Entities: []memory.EntityResult{}}
	for _, e := range a.Entities {
		if f.find(e.Name) >= 0 {
			continue
		}
		ent := memory.EntityResult{Name: e.Name, EntityType: e.EntityType, Observations: slices.Clone(e.Observations)}
		f.entities = append(f.entities, ent)
		res.Entities = append(res.Entities, ent)
	}
	return res, nil
}

func (f *fakeMemory) AddObservations(ctx context.Context, a memory.AddObservationsArgs) (*memory.AddObservationsResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &memory.AddObservationsResult{Results: []memory.Result{}}
	for _, o := range a.Observations {
		i := f.find(o.EntityName)
		if i < 0 {
			return nil, fmt.Errorf("Entity with name %s not found", o.EntityName)
		}
		added := []string{}
		for _, c := range o.Contents {
			if !slices.Contains(f.entities[i].Observations, c) {
				f.entities[i].Observations = append(f.entities[i].Observations, c)
				added = append(added, c)
			}
		}
		res.Results = append(res.Results, memory.Result{EntityName: o.EntityName, AddedObservations: added})
	}
	return res, nil
}

func (f *fakeMemory) OpenNodes(ctx context.Context, a memory.OpenNodesArgs) (*memory.OpenNodesResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &memory.OpenNodesResult{Entities: []memory.EntityResult{}, Relations: []memory.RelationResult{}}
	for _, e := range f.entities {
		if slices.Contains(a.Names, e.Name) {
			res.Entities = append(res.Entities, e)
		}
	}
	return res, nil
}

func (f *fakeMemory) ReadGraph(ctx context.Context) (*memory.ReadGraphResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &memory.ReadGraphResult{Entities: slices.Clone(f.entities), Relations: []memory.RelationResult{}}, nil
}

// harness is insights served in process on top of the two fakes.
type harness struct {
	db  *fakeDB
	mem *fakeMemory
	s   *composition.Session // a session with insights
}

// start serves the fakes through their generated Register, binds the
// generated clients to them through a registry, builds insights on those
// clients and connects a session to it — everything in process.
func start(t *testing.T) *harness {
	t.Helper()
	h := &harness{db: newFakeDB(), mem: &fakeMemory{}}
	dbServer := server.NewMCPServer("sqlite-explorer", "fake")
	if err := sqliteexplorer.Register(dbServer, h.db); err != nil {
		t.Fatal(err)
	}
	memServer := server.NewMCPServer("memory-server", "fake")
	if err := memory.Register(memServer, h.mem); err != nil {
		t.Fatal(err)
	}

	reg := composition.NewRegistry()
	t.Cleanup(func() { reg.Close() })
	if err := reg.Add("sqlite-explorer", composition.InProcess(dbServer)); err != nil {
		t.Fatal(err)
	}
	if err := reg.Add("memory", composition.InProcess(memServer)); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Downstream{DB: sqliteexplorer.FromRegistry(reg), Memory: memory.FromRegistry(reg)})
	if err != nil {
		t.Fatal(err)
	}
	h.s, err = composition.Connect(context.Background(), composition.InProcess(srv))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.s.Close() })
	return h
}

// ctx is the context of the tests' calls.
var ctx = context.Background()

// toolError returns the text of err, which must be a tool error.
func toolError(t *testing.T, err error) string {
	t.Helper()
	var te *composition.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("want a tool error, got %v", err)
	}
	return te.Text
}

func TestTableReport(t *testing.T) {
	h := start(t)
	// The typed call of a test: the tool's declaration calls it through a
	// session connected in process, as a client would over stdio.
	got, err := TableReportTool.Call(ctx, h.s, TableReportArgs{SampleRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"tables":[` +
		`{"table":"authors","row_count":2,"columns":["id","name"],"sample":[[1,"Ada"],[2,"Grace"]]},` +
		`{"table":"books","row_count":4,"columns":["id","title","author_id"],"sample":[[1,"Notes",1],[2,"Compilers",2]]},` +
		`{"table":"empty","row_count":0,"columns":["id"],"sample":[]}]}`
	if string(b) != want {
		t.Errorf("table_report:\n got %s\nwant %s", b, want)
	}

	got, err = TableReportTool.Call(ctx, h.s, TableReportArgs{Tables: []string{"books"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tables) != 1 || got.Tables[0].Table != "books" || len(got.Tables[0].Sample) != DefaultSampleRows {
		t.Errorf("table_report of books with the default sample: got %+v", got)
	}

	_, err = TableReportTool.Call(ctx, h.s, TableReportArgs{Tables: []string{"books", "nope"}})
	if text := toolError(t, err); !strings.Contains(text, `no table "nope" in the database (tables: authors, books, empty)`) {
		t.Errorf("unknown table: got %q", text)
	}
	_, err = TableReportTool.Call(ctx, h.s, TableReportArgs{SampleRows: MaxSampleRows + 1})
	if text := toolError(t, err); !strings.Contains(text, "sample_rows must be between 0 and 20, got 21") {
		t.Errorf("too many sample rows: got %q", text)
	}
	// Arguments that do not fit the inputSchema are refused before the
	// handler runs, in words, with the JSON pointer.
	for args, want := range map[string]string{
		`{"sample_rows":"three"}`: `invalid arguments for tool "table_report" at /sample_rows: got string, want integer`,
		`{"tables":"books"}`:      `invalid arguments for tool "table_report" at /tables: got string, want array`,
		`{"tables":null}`:         `invalid arguments for tool "table_report" at /tables: got null, want array`,
		`{"table":"books"}`:       `invalid arguments for tool "table_report" at /: additional properties 'table' not allowed`,
	} {
		_, err := h.s.CallResult(ctx, "table_report", json.RawMessage(args))
		if text := toolError(t, err); text != want {
			t.Errorf("table_report %s: got %q, want %q", args, text, want)
		}
	}
}

func TestRememberFinding(t *testing.T) {
	h := start(t)
	remember := func(table, obs string) (Finding, error) {
		return RememberFindingTool.Call(ctx, h.s, RememberFindingArgs{Table: table, Observation: obs})
	}
	f, err := remember("books", "Two authors wrote all the books.")
	if err != nil {
		t.Fatal(err)
	}
	want := Finding{Table: "books", Entity: "sqlite-explorer:books", Observations: []string{"Two authors wrote all the books."}, Exists: true, RowCount: 4}
	if !equalFinding(f, want) {
		t.Errorf("first finding:\n got %+v\nwant %+v", f, want)
	}
	if _, err := remember("books", "  Ids are dense.  "); err != nil {
		t.Fatal(err)
	}
	// The same observation again changes nothing (idempotentHint).
	f, err = remember("books", "Ids are dense.")
	if err != nil {
		t.Fatal(err)
	}
	want.Observations = append(want.Observations, "Ids are dense.")
	if !equalFinding(f, want) {
		t.Errorf("after two more:\n got %+v\nwant %+v", f, want)
	}
	if e := h.mem.entities[0]; e.EntityType != EntityType || len(h.mem.entities) != 1 {
		t.Errorf("server-memory holds %+v; want one entity of type %s", h.mem.entities, EntityType)
	}

	_, err = remember("nope", "x")
	if text := toolError(t, err); !strings.Contains(text, `no table "nope"`) {
		t.Errorf("unknown table: got %q", text)
	}
	_, err = remember("books", " ")
	if text := toolError(t, err); !strings.Contains(text, "observation is empty") {
		t.Errorf("empty observation: got %q", text)
	}
	if len(h.mem.entities) != 1 {
		t.Errorf("a refused finding reached server-memory: %+v", h.mem.entities)
	}
}

func TestFindings(t *testing.T) {
	h := start(t)
	// Nothing remembered yet: an empty list, not null.
	res, err := h.s.CallResult(ctx, "findings", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.StructuredContent); got != `{"findings":[]}` {
		t.Fatalf("findings of an empty graph: %s", got)
	}
	for _, a := range []RememberFindingArgs{
		{Table: "books", Observation: "Four books."},
		{Table: "authors", Observation: "Two authors."},
		{Table: "empty", Observation: "Nothing yet."},
	} {
		if _, err := RememberFindingTool.Call(ctx, h.s, a); err != nil {
			t.Fatal(err)
		}
	}
	// An entity of another kind in the same graph is left alone.
	h.mem.entities = append(h.mem.entities, memory.EntityResult{Name: "sqlite-explorer:books2", EntityType: "person", Observations: []string{"not a table"}})
	// A table dropped since: still listed, with exists false.
	h.db.dropTable("empty")

	got, err := FindingsTool.Call(ctx, h.s, FindingsArgs{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{
		{Table: "authors", Entity: "sqlite-explorer:authors", Observations: []string{"Two authors."}, Exists: true, RowCount: 2},
		{Table: "books", Entity: "sqlite-explorer:books", Observations: []string{"Four books."}, Exists: true, RowCount: 4},
		{Table: "empty", Entity: "sqlite-explorer:empty", Observations: []string{"Nothing yet."}, Exists: false, RowCount: 0},
	}
	if !slices.EqualFunc(got.Findings, want, equalFinding) {
		t.Errorf("findings:\n got %+v\nwant %+v", got.Findings, want)
	}

	got, err = FindingsTool.Call(ctx, h.s, FindingsArgs{Table: "books"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got.Findings, want[1:2], equalFinding) {
		t.Errorf("findings about books:\n got %+v\nwant %+v", got.Findings, want[1:2])
	}
}

func equalFinding(a, b Finding) bool {
	return a.Table == b.Table && a.Entity == b.Entity && slices.Equal(a.Observations, b.Observations) &&
		a.Exists == b.Exists && a.RowCount == b.RowCount
}

// TestSchemas checks the tool definitions insights advertises: schemas
// inferred from the Go types, fields in declaration order, lists typed
// "array" (not ["null","array"]), and the annotations.
func TestSchemas(t *testing.T) {
	h := start(t)
	raw, err := h.s.ListToolsRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{}
	for _, r := range raw {
		var tool struct{ Name string }
		if err := json.Unmarshal(r, &tool); err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = string(r)
	}
	if got := slices.Sorted(maps.Keys(tools)); !slices.Equal(got, []string{"findings", "remember_finding", "table_report"}) {
		t.Fatalf("tools: %v", got)
	}
	for name, def := range tools {
		if strings.Contains(def, `"null"`) {
			t.Errorf("%s: a schema admits null: %s", name, def)
		}
		if !strings.Contains(def, `"outputSchema":{`) {
			t.Errorf("%s: no outputSchema: %s", name, def)
		}
	}
	if def := tools["remember_finding"]; !strings.Contains(def, `"properties":{"table":{"type":"string","description":"The table the finding is about; it must exist."},"observation":`) ||
		!strings.Contains(def, `"required":["table","observation"]`) || !strings.Contains(def, `"idempotentHint":true`) {
		t.Errorf("remember_finding: %s", def)
	}
	if def := tools["table_report"]; !strings.Contains(def, `"tables":{"type":"array"`) || !strings.Contains(def, `"readOnlyHint":true`) {
		t.Errorf("table_report: %s", def)
	}
}
