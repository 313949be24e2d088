package pinning_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/examples/composer/sqliteexplorer"
)

// A client that pins the tools of its generated package: a call of a tool
// whose definition changed since the bundle was exported fails (and is not
// sent), while the other tools keep working.
func ExampleDigestCheck() {
	ctx := context.Background()
	s, err := composition.Connect(ctx, composition.Stdio("go", "run", "github.com/mcpbind/mcpbind/examples/sqlite-explorer"),
		pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail),
		composition.WithDiscoverTimeout(-1)) // go run compiles first: wait for the server
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	n, err := sqliteexplorer.NewClient(s).CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "books"})
	var changed *composition.ToolChangedError
	if errors.As(err, &changed) {
		for _, c := range changed.Changes {
			log.Printf("%s: %s %s at %q (%s)", changed.Tool, c.Class, c.Where, c.Pointer, c.Code)
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n)
	// Output: 24
}
