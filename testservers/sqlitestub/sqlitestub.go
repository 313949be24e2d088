// Package sqlitestub implements the Handler that `mcpbind generate --server`
// generates from sqlite-explorer's bundle (golden/sqlite-explorer) over the
// example's SQLite store (examples/sqlite-explorer/explorer), so tests can
// serve sqlite-explorer's contract from generated code and compare it, call
// by call, with the real server on the same data.
package sqlitestub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// Handler answers sqlite-explorer's tools from Store, with the generated
// package's types. Store errors (an unknown table, bad SQL) are returned as
// they are, so they reach the client as tool errors with the same text as
// the real server's.
type Handler struct {
	Store *explorer.Store
}

var _ sqliteexplorer.Handler = Handler{}

// TablesOnly answers list_tables from Store and no other tool: the embedded
// generated UnimplementedHandler answers the others with the tool error
// `tool "NAME" is not implemented`, so a test can call an omitted tool of
// a server in another process (sqlite-stub --tables-only).
type TablesOnly struct {
	sqliteexplorer.UnimplementedHandler
	Store *explorer.Store
}

// ListTables lists the tables.
func (h TablesOnly) ListTables(ctx context.Context) ([]string, error) {
	return h.Store.Tables(ctx)
}

// NewServer returns an mcp-go server named and versioned like
// sqlite-explorer (tools capability without listChanged, as the real one)
// whose tools are registered by the generated Register with h (a Handler or
// a TablesOnly) and opts.
func NewServer(h sqliteexplorer.Handler, opts ...composition.ServerOption) (*server.MCPServer, error) {
	s := server.NewMCPServer(explorer.Name, explorer.Version, server.WithToolCapabilities(false), server.WithRecovery())
	if err := sqliteexplorer.Register(s, h, opts...); err != nil {
		return nil, err
	}
	return s, nil
}

// CountRows counts the rows of a table.
func (h Handler) CountRows(ctx context.Context, args sqliteexplorer.CountRowsArgs) (int64, error) {
	return h.Store.CountRows(ctx, args.Table)
}

// DescribeTable describes a table's columns.
func (h Handler) DescribeTable(ctx context.Context, args sqliteexplorer.DescribeTableArgs) (*sqliteexplorer.DescribeTableResult, error) {
	d, err := h.Store.Describe(ctx, args.Table)
	if err != nil {
		return nil, err
	}
	return convert[*sqliteexplorer.DescribeTableResult](d)
}

// FindRow fetches a row by id; nil (JSON null) when there is none.
func (h Handler) FindRow(ctx context.Context, args sqliteexplorer.FindRowArgs) (map[string]json.RawMessage, error) {
	row, err := h.Store.FindRow(ctx, args.Table, args.ID)
	if err != nil || row == nil {
		return nil, err
	}
	return convert[map[string]json.RawMessage](row)
}

// InsertRow inserts a row and returns its id.
func (h Handler) InsertRow(ctx context.Context, args sqliteexplorer.InsertRowArgs) (*sqliteexplorer.InsertRowResult, error) {
	values := make(map[string]any, len(args.Values))
	for k, v := range args.Values {
		var err error
		if values[k], err = decodeValue(v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
	}
	id, err := h.Store.InsertRow(ctx, args.Table, values)
	if err != nil {
		return nil, err
	}
	return &sqliteexplorer.InsertRowResult{ID: id}, nil
}

// ListTables lists the tables.
func (h Handler) ListTables(ctx context.Context) ([]string, error) {
	return h.Store.Tables(ctx)
}

// Query runs a read-only statement.
func (h Handler) Query(ctx context.Context, args sqliteexplorer.QueryArgs) (*sqliteexplorer.QueryResult, error) {
	params := make([]any, len(args.Params))
	for i, p := range args.Params {
		var err error
		if params[i], err = decodeValue(p); err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
	}
	r, err := h.Store.Query(ctx, args.SQL, params)
	if err != nil {
		return nil, err
	}
	return convert[*sqliteexplorer.QueryResult](r)
}

// decodeValue decodes a JSON value as the real server binds it: numbers
// stay json.Number, so integers stay integers in SQL.
func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// convert re-encodes an explorer value as the generated type T.
func convert[T any](v any) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err == nil {
		err = sqliteexplorer.Unmarshal(b, &out)
	}
	return out, err
}
