// Package gosdkstub serves sqlite-explorer's contract on a go-sdk server
// from the code `mcpbind generate --server --sdk go-sdk` generated
// (golden/sqlite-explorer-gosdk), answered by a Handler of package
// sqlitestub over the example's store. It is a package of its own so that
// the tests importing sqlitestub do not link go-sdk.
package gosdkstub

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/examples/sqlite-explorer/explorer"
	gosdkexplorer "github.com/mcpbind/mcpbind/golden/sqlite-explorer-gosdk/sqliteexplorer"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// GoSDK answers the Handler that `mcpbind generate --server --sdk go-sdk`
// generates from the same bundle (golden/sqlite-explorer-gosdk) with H, a
// Handler of the mcp-go package (a sqlitestub.Handler over the store, or a
// sqlitestub.TablesOnly): both packages are generated from one bundle, so each
// argument and result is re-encoded from one package's type to the other's
// through JSON, and H's errors are returned as they are.
type GoSDK struct {
	H sqliteexplorer.Handler
}

var _ gosdkexplorer.Handler = GoSDK{}

// NewServer returns a go-sdk server named and versioned like
// sqlite-explorer whose tools are registered by the go-sdk package's
// generated Register with h and opts.
func NewServer(h gosdkexplorer.Handler, opts ...gosdk.ServerOption) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: explorer.Name, Version: explorer.Version}, nil)
	if err := gosdkexplorer.Register(s, h, opts...); err != nil {
		return nil, err
	}
	return s, nil
}

// CountRows counts the rows of a table.
func (g GoSDK) CountRows(ctx context.Context, args gosdkexplorer.CountRowsArgs) (int64, error) {
	return across[int64](ctx, args, g.H.CountRows)
}

// DescribeTable describes a table's columns.
func (g GoSDK) DescribeTable(ctx context.Context, args gosdkexplorer.DescribeTableArgs) (*gosdkexplorer.DescribeTableResult, error) {
	return across[*gosdkexplorer.DescribeTableResult](ctx, args, g.H.DescribeTable)
}

// FindRow fetches a row by id; nil (JSON null) when there is none.
func (g GoSDK) FindRow(ctx context.Context, args gosdkexplorer.FindRowArgs) (map[string]json.RawMessage, error) {
	return across[map[string]json.RawMessage](ctx, args, g.H.FindRow)
}

// InsertRow inserts a row and returns its id.
func (g GoSDK) InsertRow(ctx context.Context, args gosdkexplorer.InsertRowArgs) (*gosdkexplorer.InsertRowResult, error) {
	return across[*gosdkexplorer.InsertRowResult](ctx, args, g.H.InsertRow)
}

// ListTables lists the tables.
func (g GoSDK) ListTables(ctx context.Context) ([]string, error) {
	return g.H.ListTables(ctx)
}

// Query runs a read-only statement.
func (g GoSDK) Query(ctx context.Context, args gosdkexplorer.QueryArgs) (*gosdkexplorer.QueryResult, error) {
	return across[*gosdkexplorer.QueryResult](ctx, args, g.H.Query)
}

// across calls f with args re-encoded as f's argument type (from the
// go-sdk package's type to the mcp-go package's) and returns its result
// re-encoded as an R.
func across[R, A1, A2, R2 any](ctx context.Context, args A1, f func(context.Context, A2) (R2, error)) (R, error) {
	var out R
	var in A2
	b, err := gosdkexplorer.Marshal(args)
	if err == nil {
		err = sqliteexplorer.Unmarshal(b, &in)
	}
	if err != nil {
		return out, err
	}
	r, err := f(ctx, in)
	if err != nil {
		return out, err
	}
	if b, err = sqliteexplorer.Marshal(r); err == nil {
		err = gosdkexplorer.Unmarshal(b, &out)
	}
	return out, err
}
