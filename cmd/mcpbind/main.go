// Command mcpbind exports live MCP servers' tool schemas into a versioned,
// deterministic bundle and generates typed Go clients from it.
//
//	mcpbind export [flags] -- COMMAND [ARG…]      # a stdio server
//	mcpbind export [flags] URL                    # a streamable HTTP server
//	mcpbind export --config servers.yaml [flags]  # several servers, one bundle
//	mcpbind generate BUNDLE -o DIR [--package NAME]
//	mcpbind call [flags] TOOL [--args JSON] (-- COMMAND [ARG…] | URL)
//	mcpbind diff OLD NEW | mcpbind check BUNDLE (-- COMMAND [ARG…] | URL)
//	mcpbind validate BUNDLE… | mcpbind show BUNDLE [TOOL]
//	mcpbind completion bash|zsh|fish|powershell | mcpbind --version
//
// Exit codes: 0 ok · 1 breaking change found · 2 usage or input error ·
// 3 server or transport error. Progress and warnings go to stderr; results
// to stdout or files.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &cli{stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv})
	stop()
	os.Exit(code)
}
