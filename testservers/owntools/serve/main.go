// Command serve serves package owntools' tools over stdio
// (composition.ServeStdio) until its stdin closes or it gets SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/testservers/owntools"
)

func main() {
	srv, err := owntools.NewServer(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := composition.ServeStdio(ctx, srv, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
