// Command composer uses the typed client that mcpbind generated from the
// sqlite-explorer server's bundle (package sqliteexplorer, beside this file)
// to do what a user of that server would: list the tables, count their rows,
// describe the largest one and print its first rows, then look a row up by
// id — all with Go types, no hand-written JSON.
//
// By default it starts the example server over stdio with
// "go run github.com/mcpbind/mcpbind/examples/sqlite-explorer"; --url talks to
// one already serving streamable HTTP, and arguments after -- name another
// stdio command. --protocol-version pins an older protocol version: the
// generated client then unwraps the {"result": v} envelopes the server adds
// for such clients, so the output is the same.
//
// The generated package is checked in and refreshed by go generate:
//
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind export --probe-eras --timeout 5m -o sqlite-explorer.json -- go run github.com/mcpbind/mcpbind/examples/sqlite-explorer
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind generate sqlite-explorer.json -o .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/composer/sqliteexplorer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "composer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("composer", flag.ContinueOnError)
	url := fs.String("url", "", "streamable HTTP URL of a running sqlite-explorer (default: start one over stdio)")
	version := fs.String("protocol-version", "", "pin this protocol version (default: the newest both sides speak)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long (the first run compiles the server)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	t := composition.Stdio("go", "run", "github.com/mcpbind/mcpbind/examples/sqlite-explorer")
	switch {
	case *url != "":
		t = composition.HTTP(*url)
	case fs.NArg() > 0:
		t = composition.Stdio(fs.Arg(0), fs.Args()[1:]...)
	}
	s, err := composition.Connect(ctx, t, composition.WithProtocolVersion(*version), composition.WithStderr(os.Stderr))
	if err != nil {
		return err
	}
	defer s.Close()
	var info struct{ Name, Version string }
	_ = json.Unmarshal(s.ServerInfo(), &info)
	fmt.Fprintf(w, "connected to %s %s at protocol version %s\n", info.Name, info.Version, s.ProtocolVersion())

	db := sqliteexplorer.NewClient(s)
	tables, err := db.ListTables(ctx)
	if err != nil {
		return err
	}
	largest, most := "", int64(-1)
	for _, table := range tables {
		n, err := db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: table})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-10s %4d rows\n", table, n)
		if n > most {
			largest, most = table, n
		}
	}
	if largest == "" {
		return errors.New("the database has no tables")
	}

	desc, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: largest})
	if err != nil {
		return err
	}
	var cols []string
	for _, c := range desc.Columns {
		cols = append(cols, c.Name+" "+c.Type)
	}
	fmt.Fprintf(w, "largest table: %s (%s)\n", largest, strings.Join(cols, ", "))

	res, err := db.Query(ctx, sqliteexplorer.QueryArgs{
		SQL:    "SELECT * FROM " + largest + " ORDER BY rowid LIMIT ?",
		Params: []json.RawMessage{json.RawMessage("3")},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "first %d rows of %s: %s\n", res.RowCount, largest, strings.Join(res.Columns, " | "))
	for _, row := range res.Rows {
		var cells []string
		for _, v := range row {
			cells = append(cells, string(v))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(cells, " | "))
	}

	row, err := db.FindRow(ctx, sqliteexplorer.FindRowArgs{Table: largest, ID: 1})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "find_row %s 1: %d columns\n", largest, len(row))
	missing, err := db.FindRow(ctx, sqliteexplorer.FindRowArgs{Table: largest, ID: 1 << 40})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "find_row %s %d: null=%v\n", largest, int64(1)<<40, missing == nil)

	// A tool error comes back as a typed error, not as a decoded value.
	_, err = db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "no_such_table"})
	var te *composition.ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("count_rows of a missing table: want a *composition.ToolError, got %v", err)
	}
	fmt.Fprintf(w, "count_rows no_such_table: tool error: %s\n", te.Text)
	return nil
}
