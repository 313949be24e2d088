// Command barelist is the reference point of the export benchmark: a bare
// mcp-go client that starts a stdio MCP server, initializes, lists every
// tool (following pages) and prints the result as JSON on stdout. It does
// what `mcpbind export` must do at least, and nothing else.
//
// Usage: barelist COMMAND [ARG...]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: barelist COMMAND [ARG...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "barelist:", err)
		os.Exit(3)
	}
}

func run(command string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.NewStdioMCPClient(command, os.Environ(), args...)
	if err != nil {
		return err
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "barelist", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
