package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/composition/pinning"
	explorer "github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// A program that already talks to a server through go-sdk calls it through
// a generated client: connect over gosdk.Transport (exact results, pins
// re-checked on notifications/tools/list_changed), make a composition
// session of the go-sdk session, and hand it to the generated NewClient.
func ExampleNewSession() {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "app", Version: "1.0.0"},
		// At 2026-07-28 go-sdk subscribes to list_changed only with a handler.
		&mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}})
	cmd := exec.Command("go", "run", "github.com/mcpbind/mcpbind/examples/sqlite-explorer")
	cs, err := client.Connect(ctx, gosdk.Transport(&mcp.CommandTransport{Command: cmd}), nil)
	if err != nil {
		log.Fatal(err)
	}
	s, err := gosdk.NewSession(ctx, cs, pinning.DigestCheck(explorer.Pins, composition.DigestFail), composition.WithArgsValidation())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close() // closes cs too

	c := explorer.NewClient(s)
	n, err := c.CountRows(ctx, explorer.CountRowsArgs{Table: "books"})
	var te *composition.ToolError
	switch {
	case errors.As(err, &te):
		fmt.Println("the tool said:", te.Text)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(n, "books")
	}
	// Output: 24 books
}
