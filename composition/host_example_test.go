package composition_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// A composing server is served over streamable HTTP on the loopback: a
// client calls it at host.URL(), /readyz reports readiness from the
// registry, and the end of ctx (signal.NotifyContext(ctx, os.Interrupt,
// syscall.SIGTERM) in a program) lets calls in flight finish, then closes
// the registry.
func ExampleListenHTTP() {
	srv := server.NewMCPServer("greeter", "1.0.0", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, []composition.ServedTool{
		greetTool.Serve(func(_ context.Context, a GreetArgs) ([]string, error) {
			return []string{"hello, " + strings.Join(a.Names, " and ")}, nil
		}),
	}); err != nil {
		log.Fatal(err)
	}
	reg := composition.NewRegistry() // its downstream servers, if any

	ctx, stop := context.WithCancel(context.Background())
	host, err := composition.ListenHTTP(srv, composition.HostOptions{Registry: reg}) // 127.0.0.1, a free port
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- host.Serve(ctx) }()

	s, err := composition.Connect(ctx, composition.HTTP(host.URL()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(greetTool.Call(ctx, s, GreetArgs{Names: []string{"Ada"}}))
	s.Close()

	resp, err := http.Get(strings.TrimSuffix(host.URL(), "/mcp") + composition.ReadinessPath)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("readyz:", resp.StatusCode)

	stop()
	fmt.Println("served:", <-served)
	// Output:
	// [hello, Ada] <nil>
	// readyz: 200
	// served: <nil>
}
