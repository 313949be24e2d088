// Package explorer is the MCP server behind the sqlite-explorer example: a
// small lending library (tables authors, books and loans) in a SQLite
// database (modernc.org/sqlite, no cgo), served with
// github.com/mark3labs/mcp-go.
//
// Tools (input and output schemas inferred from this package's Go types):
//
//	query           {sql, params?} → QueryResult {columns, rows, row_count}   read-only
//	list_tables     {}             → array of strings
//	count_rows      {table}        → integer
//	describe_table  {table}        → TableDescription {table, columns}
//	find_row        {table, id}    → Row object, or null when absent
//	insert_row      {table, values}→ InsertResult {id}                       destructive
//
// query carries "pmcp:outputTypeName": "QueryResult" in its _meta (mcp-go's
// mcp.ToolAnnotation has no room for extra annotation keys).
//
// Toward clients before protocol version 2026-07-28 the tools whose natural
// result is not a plain object (list_tables, count_rows, find_row) are
// wrapped as the TypeScript SDK v2 wraps them: outputSchema
// {"type":"object","properties":{"result":S},"required":["result"]} and
// structuredContent {"result": v}. Toward 2026-07-28 clients they are
// natural. Every result also carries its structuredContent as JSON text.
// Failures (unknown table or column, bad SQL, a write attempted through
// query) are results with isError: true and a plain-language text.
package explorer

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/examples/internal/argcheck"
)

// Name and Version identify the server in serverInfo.
const (
	Name    = "sqlite-explorer"
	Version = "0.1.0"
)

// OutputTypeNameKey is the key under which a tool's _meta suggests a name
// for the Go type of its result.
const OutputTypeNameKey = "pmcp:outputTypeName"

const instructions = `A lending library in SQLite: authors(id, name, born, country), ` +
	`books(id, title, author_id, published, genre, copies) and ` +
	`loans(id, book_id, borrower, loaned_on, due_on, returned_on; returned_on is null while a book is out). ` +
	`Use list_tables and describe_table to explore, query for read-only SQL, find_row to fetch a row by id, ` +
	`and insert_row to add one.`

// NewServer returns the MCP server exposing store's tools. opts come before
// the server's own options, so that a tool handler middleware among them
// (sqlite-explorer's OpenTelemetry one) is the outermost: it sees every
// call, also one that argument validation refuses or whose panic is
// recovered.
func NewServer(store *Store, opts ...server.ServerOption) (*server.MCPServer, error) {
	defs, err := tools(store)
	if err != nil {
		return nil, err
	}
	legacy := map[string]json.RawMessage{}
	for _, d := range defs {
		if d.legacyOutput != nil {
			legacy[d.tool.Name] = d.legacyOutput
		}
	}
	var tools []mcp.Tool
	for _, d := range defs {
		tools = append(tools, d.tool)
	}
	validation, err := argcheck.Validation(tools)
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer(Name, Version, append(opts,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		validation,
		server.WithToolFilter(eraToolFilter(legacy)),
		server.WithRecovery(),
	)...)
	for _, d := range defs {
		s.AddTool(d.tool, d.handler)
	}
	return s, nil
}

// readOnly sets the annotations of a tool that only reads the database.
func readOnly() mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		ReadOnlyHint:    mcp.ToBoolPtr(true),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(true),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	})
}

// withMeta sets one key of the tool's _meta.
func withMeta(key string, value any) mcp.ToolOption {
	return func(t *mcp.Tool) {
		if t.Meta == nil {
			t.Meta = &mcp.Meta{}
		}
		if t.Meta.AdditionalFields == nil {
			t.Meta.AdditionalFields = map[string]any{}
		}
		t.Meta.AdditionalFields[key] = value
	}
}

// tools defines the server's tools over store.
func tools(store *Store) ([]toolDef, error) {
	var defs []toolDef
	var errs []error
	add := func(d toolDef, err error) {
		defs = append(defs, d)
		errs = append(errs, err)
	}

	add(newTool("query",
		func(ctx context.Context, a QueryArgs) (QueryResult, error) {
			return store.Query(ctx, a.SQL, a.Params)
		},
		mcp.WithToolTitle("Query"),
		mcp.WithDescription("Execute a read-only SQL statement and return the rows."),
		readOnly(),
		withMeta(OutputTypeNameKey, "QueryResult"),
	))
	add(newTool("list_tables",
		func(ctx context.Context, _ NoArgs) ([]string, error) {
			return store.Tables(ctx)
		},
		mcp.WithToolTitle("List tables"),
		mcp.WithDescription("List the names of the database's tables."),
		readOnly(),
	))
	add(newTool("count_rows",
		func(ctx context.Context, a TableArgs) (int64, error) {
			return store.CountRows(ctx, a.Table)
		},
		mcp.WithToolTitle("Count rows"),
		mcp.WithDescription("Count the rows of a table."),
		readOnly(),
	))
	add(newTool("describe_table",
		func(ctx context.Context, a TableArgs) (TableDescription, error) {
			return store.Describe(ctx, a.Table)
		},
		mcp.WithToolTitle("Describe table"),
		mcp.WithDescription("Describe a table's columns: name, declared type, NOT NULL, primary key."),
		readOnly(),
	))
	add(newTool("find_row",
		func(ctx context.Context, a FindRowArgs) (*Row, error) {
			return store.FindRow(ctx, a.Table, a.ID)
		},
		mcp.WithToolTitle("Find row"),
		mcp.WithDescription("Fetch one row of a table by its id, as an object of column values; null when there is no such row."),
		readOnly(),
	))
	add(newTool("insert_row",
		func(ctx context.Context, a InsertRowArgs) (InsertResult, error) {
			id, err := store.InsertRow(ctx, a.Table, a.Values)
			return InsertResult{ID: id}, err
		},
		mcp.WithToolTitle("Insert row"),
		mcp.WithDescription("Insert a row into a table and return its id."),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			ReadOnlyHint:    mcp.ToBoolPtr(false),
			DestructiveHint: mcp.ToBoolPtr(true),
			IdempotentHint:  mcp.ToBoolPtr(false),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return defs, nil
}
