package serverconfig_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/composition/serverconfig"
	"github.com/mcpbind/mcpbind/examples/composer/sqliteexplorer"
)

// A program whose downstream servers are listed in a servers.yaml (the file
// `mcpbind export --config` reads; here testdata/servers.yaml, which starts
// the sqlite-explorer example with go run), called through generated clients
// bound by server id. The registry connects each server on first use and
// reconnects it when its session is lost.
func ExampleLoadRegistry() {
	reg, err := serverconfig.LoadRegistry("testdata/servers.yaml",
		composition.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))),
		composition.WithBackoff(200*time.Millisecond, 10*time.Second),
		composition.WithDiscoverTimeout(-1)) // go run compiles first: wait for the server
	if err != nil {
		log.Fatal(err) // names the file, line, server and field
	}
	defer reg.Close()
	// Fail calls of a tool whose definition changed since the bundle.
	if err := reg.Use("sqlite-explorer", pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail)); err != nil {
		log.Fatal(err)
	}
	db := sqliteexplorer.FromRegistry(reg)
	n, err := db.CountRows(context.Background(), sqliteexplorer.CountRowsArgs{Table: "books"})
	if err != nil {
		log.Fatal(err) // a *composition.CallLostError when the call may have run on a lost session
	}
	fmt.Println(n)
	for _, st := range reg.Status() {
		fmt.Println(st.ID, st.State, st.ProtocolVersion, st.Reconnects, st.LastError)
	}
	// Output:
	// 24
	// sqlite-explorer connected 2026-07-28 0
}
