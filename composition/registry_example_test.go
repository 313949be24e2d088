package composition_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/examples/composer/sqliteexplorer"
)

// A program whose downstream servers are listed in a servers.yaml (the file
// `mcpbind export --config` reads; here testdata/servers.yaml, which starts
// the sqlite-explorer example with go run), called through generated clients
// bound by server id. The registry connects each server on first use and
// reconnects it when its session is lost.
func ExampleLoadRegistry() {
	reg, err := composition.LoadRegistry("testdata/servers.yaml",
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

// An interceptor that measures every call, as a tracing or metrics library
// would; the first interceptor added is the outermost. (The server here is
// the sqlite-explorer example's, in this process.)
func ExampleWithInterceptor() {
	timing := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		start := time.Now()
		res, err := next(ctx, c)
		log.Printf("%s/%s took %s (error: %v)", c.Server, c.Tool, time.Since(start), err)
		return res, err
	}
	srv, stop := newExplorer()
	defer stop()
	reg := composition.NewRegistry(composition.WithInterceptor(timing))
	defer reg.Close()
	if err := reg.Add("sqlite-explorer", composition.InProcess(srv)); err != nil {
		log.Fatal(err)
	}
	tables, err := sqliteexplorer.FromRegistry(reg).ListTables(context.Background())
	fmt.Println(tables, err)
	// Output: [authors books loans] <nil>
}
