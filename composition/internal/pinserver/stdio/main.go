// Command stdio serves package pinserver's server over stdio.
package main

import (
	"log"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition/internal/pinserver"
)

func main() {
	if err := server.ServeStdio(pinserver.New()); err != nil {
		log.Fatal(err)
	}
}
