package golden

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/testservers/servecheck"
)

// TestServeListsEveryGoldenTool serves every tool of every golden bundle
// and every bundle of the examples (server-memory, insights, …) from what
// generate --server writes into server.go (testservers/servecheck reads its
// Register), and lists them in a session of the bundle's own era: each
// tool must come back as the bundle holds it (servecheck.CheckListing
// says what that means, including the one envelope generate adds toward
// legacy clients for a natural non-object output schema).
func TestServeListsEveryGoldenTool(t *testing.T) {
	matches, err := filepath.Glob("*/bundle.json")
	if err != nil || len(matches) == 0 {
		t.Fatalf("no golden bundles: %v", err)
	}
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	matches = append(matches, examples...)
	g, err := gen.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		b, err := bundle.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := g.Bundle(b, gen.Options{Server: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, out := range outs {
			srv := &b.Servers[i]
			t.Run(strings.TrimPrefix(filepath.ToSlash(m), "../")+"/"+srv.ID, func(t *testing.T) {
				served, err := servecheck.Tools(out.IR, serverFile(t, out.Files))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				for _, err := range servecheck.CheckListing(ctx, srv, servecheck.Era(srv), served) {
					t.Error(err)
				}
			})
		}
	}
}

// serverFile returns the content of server.go among files.
func serverFile(t *testing.T, files []gen.File) []byte {
	t.Helper()
	for _, f := range files {
		if f.Name == "server.go" {
			return f.Content
		}
	}
	t.Fatal("generate --server wrote no server.go")
	return nil
}
