package explorer

// The Go types below are the tools' contract: every input and output schema
// the server advertises is inferred from them by github.com/google/jsonschema-go
// (see schemaOf). A `jsonschema` tag becomes the property's description.

// NoArgs is the arguments of a tool that takes none.
type NoArgs struct{}

// QueryArgs is the arguments of the query tool.
type QueryArgs struct {
	SQL    string `json:"sql" jsonschema:"One SQL statement, run read-only (SELECT, WITH, PRAGMA, EXPLAIN). Use ? placeholders for values."`
	Params []any  `json:"params,omitempty" jsonschema:"Values bound to the statement's ? placeholders, in order."`
}

// QueryResult is the result of the query tool.
type QueryResult struct {
	Columns  []string `json:"columns" jsonschema:"The result's column names, in order."`
	Rows     [][]any  `json:"rows" jsonschema:"The rows, each a list of values in column order."`
	RowCount int      `json:"row_count" jsonschema:"The number of rows."`
}

// TableArgs names a table.
type TableArgs struct {
	Table string `json:"table" jsonschema:"The table's name, as list_tables gives it."`
}

// TableDescription is the result of the describe_table tool.
type TableDescription struct {
	Table   string   `json:"table" jsonschema:"The table's name."`
	Columns []Column `json:"columns" jsonschema:"The columns, in declaration order."`
}

// Column describes one column of a table.
type Column struct {
	Name       string `json:"name" jsonschema:"The column's name."`
	Type       string `json:"type" jsonschema:"The declared SQL type, e.g. INTEGER or TEXT; empty when undeclared."`
	NotNull    bool   `json:"not_null" jsonschema:"Whether the column is declared NOT NULL."`
	PrimaryKey bool   `json:"primary_key" jsonschema:"Whether the column is part of the primary key."`
}

// FindRowArgs is the arguments of the find_row tool.
type FindRowArgs struct {
	Table string `json:"table" jsonschema:"The table's name, as list_tables gives it."`
	ID    int64  `json:"id" jsonschema:"The row's primary key (its rowid when the table has no single primary key column)."`
}

// Row is one table row: column name to value.
type Row map[string]any

// InsertRowArgs is the arguments of the insert_row tool.
type InsertRowArgs struct {
	Table  string         `json:"table" jsonschema:"The table's name, as list_tables gives it."`
	Values map[string]any `json:"values" jsonschema:"Column name to value (string, number, boolean or null). Columns left out get their defaults."`
}

// InsertResult is the result of the insert_row tool.
type InsertResult struct {
	ID int64 `json:"id" jsonschema:"The new row's rowid (its INTEGER PRIMARY KEY when it has one)."`
}
