// Package owntools declares the own tools of composition's tests with
// composition.NewTool: a report (a plain object result holding lists and
// maps that the handler leaves nil), a list of names (a []string result:
// listed and answered as an envelope before 2026-07-28) and a count (an int
// result, a nullable pointer argument). The tests serve them in process and
// over HTTP; command serve serves them over stdio for the TypeScript SDK
// clients.
package owntools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// ReportArgs is the arguments of report.
type ReportArgs struct {
	Tables []string `json:"tables,omitempty" jsonschema:"The tables to report on."`
	Sample int      `json:"sample,omitempty" jsonschema:"Rows per table."`
}

// Report is the result of report.
type Report struct {
	Tables []TableRow `json:"tables" jsonschema:"One row per table."`
	Notes  []string   `json:"notes,omitempty"`
}

// TableRow is one table of a Report.
type TableRow struct {
	Name    string            `json:"name"`
	Columns []string          `json:"columns"`
	Raw     json.RawMessage   `json:"raw"`
	Extra   map[string][]int  `json:"extra"`
	Cells   [][]any           `json:"cells"`
	Ptr     *Children         `json:"ptr"`
	Tags    map[string]string `json:"tags"`
}

// Children is a nullable member of a TableRow.
type Children struct {
	Kids []string `json:"kids"`
}

// NamesArgs is the arguments of names.
type NamesArgs struct {
	Prefix string `json:"prefix"`
}

// CountArgs is the arguments of count.
type CountArgs struct {
	Table *string `json:"table"`
	Limit int     `json:"limit,omitempty"`
}

// The tools.
var (
	// ReportTool answers a Report: an error for the table "nope", a nil
	// *Report for "nil", else one row whose lists and maps are nil.
	ReportTool = composition.NewTool[ReportArgs, *Report]("report", "Report the tables.",
		composition.WithTitle("Report"),
		composition.WithAnnotations(composition.Annotations{ReadOnly: true, Idempotent: true}),
		composition.WithToolMeta(`{"example.com/owner":"tests"}`))
	// NamesTool answers [prefix+"1", prefix+"2"], or a nil slice for the
	// prefix "none".
	NamesTool = composition.NewTool[NamesArgs, []string]("names", "List the names with a prefix.")
	// CountTool answers the length of table, -1 when it is null.
	CountTool = composition.NewTool[CountArgs, int]("count", "Count.",
		composition.WithAnnotations(composition.Annotations{Destructive: true, OpenWorld: true}))
)

// Served returns the three tools bound to their handlers; calls counts the
// handler runs (nil: not counted).
func Served(calls *atomic.Int64) []composition.ServedTool {
	ran := func() {
		if calls != nil {
			calls.Add(1)
		}
	}
	return []composition.ServedTool{
		ReportTool.Serve(func(ctx context.Context, a ReportArgs) (*Report, error) {
			ran()
			if slices.Contains(a.Tables, "nope") {
				return nil, errors.New(`no table "nope"`)
			}
			if slices.Contains(a.Tables, "nil") {
				return nil, nil
			}
			// Nil slices and maps everywhere one is required: sent as [] and {}.
			return &Report{Tables: []TableRow{{Name: "books", Extra: map[string][]int{"a": nil}, Ptr: &Children{}}}}, nil
		}),
		NamesTool.Serve(func(ctx context.Context, a NamesArgs) ([]string, error) {
			ran()
			if a.Prefix == "none" {
				return nil, nil
			}
			return []string{a.Prefix + "1", a.Prefix + "2"}, nil
		}),
		CountTool.Serve(func(ctx context.Context, a CountArgs) (int, error) {
			ran()
			if a.Table == nil {
				return -1, nil
			}
			return len(*a.Table), nil
		}),
	}
}

// NewServer returns an mcp-go server with the three tools, opts passed to
// composition.Serve.
func NewServer(calls *atomic.Int64, opts ...composition.ServerOption) (*server.MCPServer, error) {
	srv := server.NewMCPServer("own", "1", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, Served(calls), opts...); err != nil {
		return nil, err
	}
	return srv, nil
}
