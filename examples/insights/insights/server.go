// Package insights is the MCP server behind the insights example: a domain
// server composed of two other MCP servers, called through the typed clients
// mcpbind generated from their bundles:
//
//   - sqlite-explorer (this repository's example, package sqliteexplorer):
//     the database whose tables insights reports on;
//   - @modelcontextprotocol/server-memory (npm, package memory): a knowledge
//     graph in which insights keeps observations about tables, one entity per
//     table.
//
// Tools (input and output schemas inferred from this package's Go types by
// mcp-go):
//
//	table_report      {tables?, sample_rows?} → TableReport {tables}   read-only
//	remember_finding  {table, observation}    → Finding               writes to server-memory
//	findings          {table?}                → Findings {findings}    read-only
//
// Every result is a JSON object sent as structuredContent and as JSON text.
// A failure (an unknown table, a downstream server that fails) is a result
// with isError: true whose text says what went wrong; so are arguments that
// do not fit the inputSchema, checked before the handler runs
// (`arguments/sample_rows: got string, want integer`).
package insights

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/examples/insights/memory"
	"github.com/mcpbind/mcpbind/examples/insights/sqliteexplorer"
	"github.com/mcpbind/mcpbind/examples/internal/argcheck"
	"github.com/mcpbind/mcpbind/examples/internal/toolschema"
)

// Name and Version identify the server in serverInfo.
const (
	Name    = "insights"
	Version = "0.1.0"
)

// EntityType is the entityType of the server-memory entities that hold
// findings; EntityPrefix followed by a table's name is such an entity's name.
// Entities of other types in the same graph are left alone.
const (
	EntityType   = "database_table"
	EntityPrefix = "sqlite-explorer:"
)

// MaxSampleRows bounds table_report's sample_rows; DefaultSampleRows is used
// when it is 0 or absent.
const (
	MaxSampleRows     = 20
	DefaultSampleRows = 3
)

const instructions = `Insights about the tables of a SQLite database (the sqlite-explorer server), ` +
	`with findings remembered in a knowledge graph (server-memory). ` +
	`table_report shows row counts and sample rows; remember_finding records an observation about a table; ` +
	`findings lists what was remembered, with each table's live row count.`

// Downstream holds the generated clients of the servers insights calls:
// bound to a composition.Registry in main, to typed fakes in the tests.
type Downstream struct {
	// DB reaches sqlite-explorer.
	DB *sqliteexplorer.Client
	// Memory reaches server-memory.
	Memory *memory.Client
}

// NewServer returns the insights MCP server, whose tools call d. It fails
// when a tool's schema cannot be inferred from its Go types.
func NewServer(d Downstream) (*server.MCPServer, error) {
	tools := []server.ServerTool{
		{
			Tool: mcp.NewTool("table_report",
				mcp.WithToolTitle("Table report"),
				mcp.WithDescription("Report the tables of the database: row count, columns and the first rows of each."),
				typedSchemas[TableReportArgs, TableReport](),
				readOnly(),
			),
			Handler: mcp.NewStructuredToolHandler(d.tableReport),
		},
		{
			Tool: mcp.NewTool("remember_finding",
				mcp.WithToolTitle("Remember finding"),
				mcp.WithDescription("Remember an observation about a table in the knowledge graph and return everything remembered about it."),
				typedSchemas[RememberFindingArgs, Finding](),
				mcp.WithToolAnnotation(mcp.ToolAnnotation{
					ReadOnlyHint:    mcp.ToBoolPtr(false),
					DestructiveHint: mcp.ToBoolPtr(false),
					// The same observation twice is kept once (server-memory
					// skips duplicates), so repeating a call changes nothing.
					IdempotentHint: mcp.ToBoolPtr(true),
					OpenWorldHint:  mcp.ToBoolPtr(false),
				}),
			),
			Handler: mcp.NewStructuredToolHandler(d.rememberFinding),
		},
		{
			Tool: mcp.NewTool("findings",
				mcp.WithToolTitle("Findings"),
				mcp.WithDescription("List the remembered observations about tables, joined with each table's live row count."),
				typedSchemas[FindingsArgs, Findings](),
				readOnly(),
			),
			Handler: mcp.NewStructuredToolHandler(d.findings),
		},
	}
	var defs []mcp.Tool
	for _, t := range tools {
		if t.Tool.RawInputSchema == nil || t.Tool.RawOutputSchema == nil {
			return nil, fmt.Errorf("tool %s: no schema could be inferred from its Go types", t.Tool.Name)
		}
		defs = append(defs, t.Tool)
	}
	validation, err := argcheck.Validation(defs)
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer(Name, Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		validation,
		server.WithRecovery(),
	)
	s.AddTools(tools...)
	return s, nil
}

// typedSchemas sets the tool's inputSchema from the Go type In and its
// outputSchema from Out, inferred by github.com/google/jsonschema-go (the
// library behind mcp.WithInputSchema; a `jsonschema` tag is the
// description, the fields' order is kept) with one change: jsonschema-go
// types a Go slice "type":["null","array"] because a nil slice marshals as
// null, but these tools never send null for a list (see nonNil) and take an
// absent or null list as empty, so lists are typed "array". A type that
// cannot be described leaves the schema nil, which NewServer refuses.
func typedSchemas[In, Out any]() mcp.ToolOption {
	return func(t *mcp.Tool) {
		t.InputSchema = mcp.ToolInputSchema{}
		t.RawInputSchema = schemaFor[In]()
		t.RawOutputSchema = schemaFor[Out]()
	}
}

// schemaFor returns T's JSON Schema as typedSchemas describes, or nil.
func schemaFor[T any]() json.RawMessage {
	s, err := toolschema.For[T]()
	if err != nil {
		return nil
	}
	out, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	return out
}

// readOnly sets the annotations of a tool that changes nothing.
func readOnly() mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(true),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	})
}

// tableReport lists the tables (or checks the ones asked for) and, for
// each, counts its rows and reads its first rows.
func (d Downstream) tableReport(ctx context.Context, _ mcp.CallToolRequest, a TableReportArgs) (TableReport, error) {
	n := cmp.Or(a.SampleRows, DefaultSampleRows)
	if n < 0 || n > MaxSampleRows {
		return TableReport{}, fmt.Errorf("sample_rows must be between 0 and %d, got %d", MaxSampleRows, a.SampleRows)
	}
	all, err := d.DB.ListTables(ctx)
	if err != nil {
		return TableReport{}, fmt.Errorf("listing the tables: %w", err)
	}
	tables := all
	if len(a.Tables) > 0 {
		for _, t := range a.Tables {
			if !slices.Contains(all, t) {
				return TableReport{}, unknownTable(t, all)
			}
		}
		tables = a.Tables
	}
	report := TableReport{Tables: []TableSummary{}}
	for _, t := range tables {
		count, err := d.DB.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: t})
		if err != nil {
			return TableReport{}, fmt.Errorf("counting the rows of %s: %w", t, err)
		}
		rows, err := d.DB.Query(ctx, sqliteexplorer.QueryArgs{
			SQL:    "SELECT * FROM " + quoteIdent(t) + " ORDER BY rowid LIMIT ?",
			Params: []json.RawMessage{json.RawMessage(strconv.Itoa(n))},
		})
		if err != nil {
			return TableReport{}, fmt.Errorf("reading the first rows of %s: %w", t, err)
		}
		report.Tables = append(report.Tables, TableSummary{
			Table:    t,
			RowCount: count,
			Columns:  nonNil(rows.Columns),
			Sample:   sample(rows.Rows),
		})
	}
	return report, nil
}

// rememberFinding checks that the table exists, adds the observation to the
// table's entity in server-memory (creating the entity the first time) and
// returns the entity as it now is, with the table's row count.
func (d Downstream) rememberFinding(ctx context.Context, _ mcp.CallToolRequest, a RememberFindingArgs) (Finding, error) {
	obs := strings.TrimSpace(a.Observation)
	if obs == "" {
		return Finding{}, errors.New("observation is empty")
	}
	tables, err := d.DB.ListTables(ctx)
	if err != nil {
		return Finding{}, fmt.Errorf("listing the tables: %w", err)
	}
	if !slices.Contains(tables, a.Table) {
		return Finding{}, unknownTable(a.Table, tables)
	}
	name := EntityPrefix + a.Table
	created, err := d.Memory.CreateEntities(ctx, memory.CreateEntitiesArgs{
		Entities: []memory.Entity{{Name: name, EntityType: EntityType, Observations: []string{obs}}},
	})
	if err != nil {
		return Finding{}, fmt.Errorf("storing the finding in server-memory: %w", err)
	}
	if len(created.Entities) == 0 { // the entity existed: add to it
		_, err := d.Memory.AddObservations(ctx, memory.AddObservationsArgs{
			Observations: []memory.Observation{{EntityName: name, Contents: []string{obs}}},
		})
		if err != nil {
			return Finding{}, fmt.Errorf("storing the finding in server-memory: %w", err)
		}
	}
	graph, err := d.Memory.OpenNodes(ctx, memory.OpenNodesArgs{Names: []string{name}})
	if err != nil {
		return Finding{}, fmt.Errorf("reading the finding back from server-memory: %w", err)
	}
	i := slices.IndexFunc(graph.Entities, func(e memory.EntityResult) bool { return e.Name == name })
	if i < 0 {
		return Finding{}, fmt.Errorf("server-memory did not return the entity %q just stored", name)
	}
	f := Finding{Table: a.Table, Entity: name, Observations: nonNil(graph.Entities[i].Observations), Exists: true}
	if f.RowCount, err = d.DB.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: a.Table}); err != nil {
		return Finding{}, fmt.Errorf("counting the rows of %s: %w", a.Table, err)
	}
	return f, nil
}

// findings reads the findings entities from server-memory and joins each
// with its table's live row count from sqlite-explorer.
func (d Downstream) findings(ctx context.Context, _ mcp.CallToolRequest, a FindingsArgs) (Findings, error) {
	var entities []memory.EntityResult
	if a.Table != "" {
		g, err := d.Memory.OpenNodes(ctx, memory.OpenNodesArgs{Names: []string{EntityPrefix + a.Table}})
		if err != nil {
			return Findings{}, fmt.Errorf("reading the findings from server-memory: %w", err)
		}
		entities = g.Entities
	} else {
		g, err := d.Memory.ReadGraph(ctx)
		if err != nil {
			return Findings{}, fmt.Errorf("reading the findings from server-memory: %w", err)
		}
		entities = g.Entities
	}
	tables, err := d.DB.ListTables(ctx)
	if err != nil {
		return Findings{}, fmt.Errorf("listing the tables: %w", err)
	}
	out := Findings{Findings: []Finding{}}
	for _, e := range entities {
		table, ok := strings.CutPrefix(e.Name, EntityPrefix)
		if e.EntityType != EntityType || !ok {
			continue
		}
		f := Finding{Table: table, Entity: e.Name, Observations: nonNil(e.Observations), Exists: slices.Contains(tables, table)}
		if f.Exists {
			if f.RowCount, err = d.DB.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: table}); err != nil {
				return Findings{}, fmt.Errorf("counting the rows of %s: %w", table, err)
			}
		}
		out.Findings = append(out.Findings, f)
	}
	slices.SortFunc(out.Findings, func(x, y Finding) int { return strings.Compare(x.Table, y.Table) })
	return out, nil
}

// sample converts query rows to TableSummary.Sample: each cell stays the
// JSON sqlite-explorer sent.
func sample(rows [][]json.RawMessage) [][]any {
	out := make([][]any, len(rows))
	for i, row := range rows {
		out[i] = make([]any, len(row))
		for j, v := range row {
			out[i][j] = v
		}
	}
	return out
}

// unknownTable is the error for a table the database does not have.
func unknownTable(t string, tables []string) error {
	return fmt.Errorf("no table %q in the database (tables: %s)", t, strings.Join(tables, ", "))
}

// quoteIdent quotes a SQL identifier (SQLite: double quotes, a double quote
// doubled).
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// nonNil returns s, or an empty slice for nil, so that the JSON is [] as the
// output schema says rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
