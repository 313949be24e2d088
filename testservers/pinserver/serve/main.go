// Command serve serves package pinserver's server over stdio, over
// Streamable HTTP with -http ADDR (it then prints "URL http://HOST:PORT/mcp"
// on stdout once it listens), or over the legacy HTTP+SSE transport with
// -sse ADDR (printing "URL http://HOST:PORT/sse").
//
// With -state FILE it appends each change that mutate makes to FILE, one per
// line, and on start makes the changes FILE lists: a server restarted after
// a change comes back changed. Its tool "exit" (stdio only) ends the process
// with status 3, as a crashing server does.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/testservers/pinserver"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	sseAddr := flag.String("sse", "", "serve the legacy HTTP+SSE transport on this address instead of stdio")
	state := flag.String("state", "", "file recording mutate's changes, replayed on start")
	flag.Parse()
	var record func(string)
	if *state != "" {
		record = func(change string) {
			f, err := os.OpenFile(*state, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			if _, err := fmt.Fprintln(f, change); err != nil {
				log.Fatal(err)
			}
		}
	}
	s := pinserver.New(record)
	if *state != "" {
		if f, err := os.Open(*state); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if err := pinserver.Mutate(s, sc.Text()); err != nil {
					log.Fatal(err)
				}
			}
			f.Close()
		}
	}
	if *sseAddr != "" {
		ln, err := net.Listen("tcp", *sseAddr)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("URL http://%s/sse\n", ln.Addr())
		log.Fatal(http.Serve(ln, server.NewSSEServer(s)))
	}
	if *httpAddr == "" {
		s.AddTool(mcp.NewTool("exit", mcp.WithDescription("Ends the server process with status 3.")),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				os.Exit(3)
				return nil, nil
			})
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	fmt.Printf("URL http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
