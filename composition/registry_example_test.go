package composition_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/composer/sqliteexplorer"
)

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
