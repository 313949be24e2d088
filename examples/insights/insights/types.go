package insights

// The Go types below are the tools' contract: composition.NewTool infers
// every input and output schema the server advertises from them (with
// github.com/google/jsonschema-go). A `jsonschema` tag becomes the
// property's description; a field with omitempty is optional, any other is
// required; a list is typed "array", and a nil one is sent as [].

// TableReportArgs is the arguments of the table_report tool.
type TableReportArgs struct {
	Tables     []string `json:"tables,omitempty" jsonschema:"The tables to report on, as sqlite-explorer's list_tables names them. Default: every table."`
	SampleRows int      `json:"sample_rows,omitempty" jsonschema:"How many rows of each table to include, 0 to 20. Default: 3."`
}

// TableReport is the result of the table_report tool.
type TableReport struct {
	Tables []TableSummary `json:"tables" jsonschema:"One summary per table, in the order of list_tables."`
}

// TableSummary describes one table: its size and its first rows.
type TableSummary struct {
	Table    string   `json:"table" jsonschema:"The table's name."`
	RowCount int64    `json:"row_count" jsonschema:"The number of rows now in the table."`
	Columns  []string `json:"columns" jsonschema:"The table's column names, in order."`
	Sample   [][]any  `json:"sample" jsonschema:"The table's first rows (by rowid), each a list of values in column order."`
}

// RememberFindingArgs is the arguments of the remember_finding tool.
type RememberFindingArgs struct {
	Table       string `json:"table" jsonschema:"The table the finding is about; it must exist."`
	Observation string `json:"observation" jsonschema:"The finding, in one sentence."`
}

// Finding is what insights knows about one table: the observations kept in
// server-memory and the table's live row count.
type Finding struct {
	Table        string   `json:"table" jsonschema:"The table's name."`
	Entity       string   `json:"entity" jsonschema:"The name of the server-memory entity that holds the observations."`
	Observations []string `json:"observations" jsonschema:"Every observation remembered about the table, oldest first."`
	Exists       bool     `json:"exists" jsonschema:"Whether the table still exists in the database."`
	RowCount     int64    `json:"row_count" jsonschema:"The number of rows now in the table; 0 when it no longer exists."`
}

// FindingsArgs is the arguments of the findings tool.
type FindingsArgs struct {
	Table string `json:"table,omitempty" jsonschema:"Only the findings about this table. Default: every table."`
}

// Findings is the result of the findings tool.
type Findings struct {
	Findings []Finding `json:"findings" jsonschema:"One entry per table with remembered observations, sorted by table name."`
}
