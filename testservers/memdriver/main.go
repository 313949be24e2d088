// Command memdriver measures the memory a large tool result costs a
// composing server (issue 16). On exit it prints its own peak RSS (VmHWM
// of /proc/self/status) to stderr; /usr/bin/time -f %M would also count the
// stdio server it starts and reaps.
//
//	memdriver -mode call -k K [-sessions S] [-budget BYTES] -tool T -- COMMAND [ARG...]
//
// connects to the stdio server COMMAND (S times: S sessions, sharing a
// composition.ResultBudget of BYTES if given) and calls its tool T K times
// at once through composition.Session.CallResult (a composing server that
// receives a result), call i on session i mod S, then exits.
//
//	memdriver -mode serve [-server mcp-go] [-http ADDR] -tool T -- COMMAND [ARG...]
//
// is a composing server on stdio: its tool "fwd" calls T on COMMAND and
// forwards the result as is (composition.Serve), served by
// composition.ServeStdio, or by mcp-go's server.ServeStdio with -server
// mcp-go (to compare). With -http ADDR it serves streamable HTTP on ADDR
// at /mcp instead, until stdin ends: mcp-go's server.StreamableHTTPServer
// through composition.StreamableHTTPHandler, or alone with -server mcp-go.
//
//	memdriver -mode client -k K [-url URL] -- COMMAND [ARG...]
//
// calls "fwd" on COMMAND (a memdriver -mode serve) K times at once and
// prints the sizes of the results; with -url it calls the streamable HTTP
// server at URL instead (COMMAND is not run).
//
// Messages up to 256 MiB are accepted. For a test server that returns a
// large result, see testservers/hostileserver ("repeat").
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

func main() {
	err := run()
	if status, rerr := os.ReadFile("/proc/self/status"); rerr == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Fprintf(os.Stderr, "memdriver %s: peak RSS %s\n", strings.Join(os.Args[1:3], " "), strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")))
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memdriver:", err)
		os.Exit(1)
	}
}

func run() error {
	mode := flag.String("mode", "call", "call, serve or client")
	k := flag.Int("k", 1, "calls at once (call, client)")
	tool := flag.String("tool", "big", "the downstream tool (call, serve)")
	nsessions := flag.Int("sessions", 1, "sessions to the server, call i going to session i mod sessions (call)")
	budget := flag.Int64("budget", 0, "bytes of a composition.ResultBudget the sessions share (0: none)")
	serverKind := flag.String("server", "ours", "ours (composition.ServeStdio, composition.StreamableHTTPHandler) or mcp-go (server.ServeStdio, server.StreamableHTTPServer alone) (serve)")
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio (serve)")
	url := flag.String("url", "", "call the streamable HTTP server at this URL (client)")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 && *url == "" {
		return fmt.Errorf("no command after the flags")
	}
	ctx := context.Background()
	opts := []composition.Option{composition.WithMaxResponseBytes(256 << 20), composition.WithStderr(os.Stderr)}
	if *budget > 0 {
		opts = append(opts, composition.WithResultBudget(composition.NewResultBudget(*budget)))
	}
	sessions := make([]*composition.Session, max(*nsessions, 1))
	for i := range sessions {
		tr := composition.HTTP(*url)
		if *url == "" {
			tr = composition.Stdio(argv[0], argv[1:]...)
		}
		si, err := composition.Connect(ctx, tr, opts...)
		if err != nil {
			return err
		}
		defer si.Close()
		sessions[i] = si
	}
	s := sessions[0]
	switch *mode {
	case "call", "client":
		name := *tool
		if *mode == "client" {
			name = "fwd"
		}
		var wg sync.WaitGroup
		errs := make([]error, *k)
		sizes := make([]int, *k)
		for i := range *k {
			wg.Go(func() {
				res, err := sessions[i%len(sessions)].CallResult(ctx, name, nil)
				if err == nil {
					for _, c := range res.Content {
						sizes[i] += len(c.Raw)
					}
					sizes[i] += len(res.StructuredContent)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return err
			}
			fmt.Printf("result %d: %d bytes\n", i, sizes[i])
		}
		return nil
	case "serve":
		srv := server.NewMCPServer("memdriver", "1", server.WithToolCapabilities(false))
		fwd := bindimpl.HandleNoArgs(bindimpl.Tool{Name: "fwd"}, `{"name":"fwd","inputSchema":{"type":"object"}}`,
			func(ctx context.Context) (*composition.Result, error) { return s.CallResult(ctx, *tool, nil) })
		if err := composition.Serve(srv, []composition.ServedTool{fwd}); err != nil {
			return err
		}
		switch {
		case *httpAddr != "":
			var h http.Handler = server.NewStreamableHTTPServer(srv)
			switch *serverKind {
			case "ours":
				h = composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(srv))
			case "mcp-go":
			default:
				return fmt.Errorf("unknown -server %q", *serverKind)
			}
			mux := http.NewServeMux()
			mux.Handle("/mcp", h)
			hs := &http.Server{Addr: *httpAddr, Handler: mux}
			errc := make(chan error, 1)
			go func() { errc <- hs.ListenAndServe() }()
			go func() { _, _ = io.Copy(io.Discard, os.Stdin); errc <- nil }()
			err := <-errc
			_ = hs.Shutdown(ctx)
			return err
		case *serverKind == "mcp-go":
			return server.ServeStdio(srv)
		case *serverKind == "ours":
			return composition.ServeStdio(ctx, srv, os.Stdin, os.Stdout)
		}
		return fmt.Errorf("unknown -server %q", *serverKind)
	}
	return fmt.Errorf("unknown mode %q", *mode)
}
