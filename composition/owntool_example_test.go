package composition_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// GreetArgs is the arguments of the example's tool greet.
type GreetArgs struct {
	Names []string `json:"names" jsonschema:"Who to greet."`
	Shout bool     `json:"shout,omitempty" jsonschema:"Greet in capitals."`
}

// greetTool is a server's own tool, declared with its Go types; its result
// is a []string (so it is wrapped as {"result": …} toward clients before
// 2026-07-28).
var greetTool = composition.NewTool[GreetArgs, []string]("greet", "Greet people.",
	composition.WithAnnotations(composition.Annotations{ReadOnly: true, Idempotent: true}))

// A server declares its own tool with Go types, serves it with
// composition.Serve, and a test calls it typed, in process, with no export:
// the same argument check, envelopes and decoding as a client over stdio.
func ExampleNewTool() {
	srv := server.NewMCPServer("greeter", "1.0.0", server.WithToolCapabilities(false))
	err := composition.Serve(srv, []composition.ServedTool{
		greetTool.Serve(func(ctx context.Context, a GreetArgs) ([]string, error) {
			var out []string
			for _, n := range a.Names {
				g := "hello, " + n
				if a.Shout {
					g = strings.ToUpper(g)
				}
				out = append(out, g)
			}
			return out, nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}

	// In a test:
	ctx := context.Background()
	s, err := composition.Connect(ctx, composition.InProcess(srv))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	greetings, err := greetTool.Call(ctx, s, GreetArgs{Names: []string{"Ada", "Grace"}, Shout: true})
	fmt.Println(greetings, err)
	// A nil list is sent as [], in the arguments and in the result.
	none, err := greetTool.Call(ctx, s, GreetArgs{Names: nil})
	fmt.Println(none == nil, len(none), err)
	// Arguments that do not match the inputSchema never reach the handler.
	_, err = s.CallResult(ctx, "greet", map[string]any{"name": "Ada"})
	var te *composition.ToolError
	fmt.Println(errors.As(err, &te), te.Text)
	// Output:
	// [HELLO, ADA HELLO, GRACE] <nil>
	// false 0 <nil>
	// true invalid arguments for tool "greet" at /: missing property 'names'
}
