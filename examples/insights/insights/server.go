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
// Tools (declared with composition.NewTool: input and output schemas
// inferred from this package's Go types):
//
//	table_report      {tables?, sample_rows?} → TableReport {tables}   read-only
//	remember_finding  {table, observation}    → Finding               writes to server-memory
//	findings          {table?}                → Findings {findings}    read-only
//
// Every result is a JSON object sent as structuredContent and as JSON text.
// A failure (an unknown table, a downstream server that fails) is a result
// with isError: true whose text says what went wrong; so are arguments that
// do not fit the inputSchema, checked before the handler runs
// (`invalid arguments for tool "table_report" at /sample_rows: got string,
// want integer`).
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

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/examples/insights/memory"
	"github.com/mcpbind/mcpbind/examples/insights/sqliteexplorer"
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

// The tools, declared with their Go types: composition.NewTool infers each
// inputSchema and outputSchema from them (see types.go). Tests call them
// typed with Call (TableReportTool.Call(ctx, session, args)).
var (
	// TableReportTool is the tool table_report.
	TableReportTool = composition.NewTool[TableReportArgs, TableReport]("table_report",
		"Report the tables of the database: row count, columns and the first rows of each.",
		composition.WithTitle("Table report"), readOnly)
	// RememberFindingTool is the tool remember_finding.
	RememberFindingTool = composition.NewTool[RememberFindingArgs, Finding]("remember_finding",
		"Remember an observation about a table in the knowledge graph and return everything remembered about it.",
		composition.WithTitle("Remember finding"),
		// The same observation twice is kept once (server-memory skips
		// duplicates), so repeating a call changes nothing.
		composition.WithAnnotations(composition.Annotations{Idempotent: true}))
	// FindingsTool is the tool findings.
	FindingsTool = composition.NewTool[FindingsArgs, Findings]("findings",
		"List the remembered observations about tables, joined with each table's live row count.",
		composition.WithTitle("Findings"), readOnly)
)

// readOnly is the annotation of a tool that changes nothing.
var readOnly = composition.WithAnnotations(composition.Annotations{ReadOnly: true, Idempotent: true})

// NewServer returns the insights MCP server, whose tools call d, served with
// opts (insights' main adds its OpenTelemetry server interceptor). It fails
// when a tool's schema cannot be inferred from its Go types.
func NewServer(d Downstream, opts ...composition.ServerOption) (*server.MCPServer, error) {
	s := server.NewMCPServer(Name, Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithRecovery(),
	)
	err := composition.Serve(s, []bindimpl.ServedTool{
		TableReportTool.Serve(d.tableReport),
		RememberFindingTool.Serve(d.rememberFinding),
		FindingsTool.Serve(d.findings),
	}, opts...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// tableReport lists the tables (or checks the ones asked for) and, for
// each, counts its rows and reads its first rows.
func (d Downstream) tableReport(ctx context.Context, a TableReportArgs) (TableReport, error) {
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
	var report TableReport
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
			Columns:  rows.Columns,
			Sample:   sample(rows.Rows),
		})
	}
	return report, nil
}

// rememberFinding checks that the table exists, adds the observation to the
// table's entity in server-memory (creating the entity the first time) and
// returns the entity as it now is, with the table's row count.
func (d Downstream) rememberFinding(ctx context.Context, a RememberFindingArgs) (Finding, error) {
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
	f := Finding{Table: a.Table, Entity: name, Observations: graph.Entities[i].Observations, Exists: true}
	if f.RowCount, err = d.DB.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: a.Table}); err != nil {
		return Finding{}, fmt.Errorf("counting the rows of %s: %w", a.Table, err)
	}
	return f, nil
}

// findings reads the findings entities from server-memory and joins each
// with its table's live row count from sqlite-explorer.
func (d Downstream) findings(ctx context.Context, a FindingsArgs) (Findings, error) {
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
	var out Findings
	for _, e := range entities {
		table, ok := strings.CutPrefix(e.Name, EntityPrefix)
		if e.EntityType != EntityType || !ok {
			continue
		}
		f := Finding{Table: table, Entity: e.Name, Observations: e.Observations, Exists: slices.Contains(tables, table)}
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
