// Command toolmodule shows mcpbind used from a module of one's own, with
// the tool directive of Go 1.24 and later:
//
//	go get -tool github.com/mcpbind/mcpbind/cmd/mcpbind
//
// records mcpbind in go.mod (a "tool" line, its requirements and go.sum
// entries), so that "go tool mcpbind" runs the version the module pins,
// and go generate needs nothing installed (see the go:generate line below).
//
// tools.json is a bundle written by "go tool mcpbind export -o tools.json --
// COMMAND" (here: the sqlite-explorer example server of this repository).
// Run this command with the server's command line, e.g.:
//
//	(cd ../.. && go build ./examples/sqlite-explorer)
//	go run . -- ../../sqlite-explorer --dir "$(mktemp -d)"
package main

//go:generate go tool mcpbind generate tools.json -o internal/mcp

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcpbind/mcpbind/composition"

	"example.com/toolmodule/internal/mcp/sqliteexplorer"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: toolmodule [--] COMMAND [ARG...]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := composition.Connect(ctx, composition.Stdio(args[0], args[1:]...))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	db := sqliteexplorer.NewClient(s)
	tables, err := db.ListTables(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, table := range tables {
		n, err := db.CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: table})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%-8s %d rows\n", table, n)
	}
}
