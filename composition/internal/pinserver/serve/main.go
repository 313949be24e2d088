// Command serve serves package pinserver's server over stdio, or over
// Streamable HTTP with -http ADDR (it then prints "URL http://HOST:PORT/mcp"
// on stdout once it listens).
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition/internal/pinserver"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()
	s := pinserver.New()
	if *httpAddr == "" {
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
