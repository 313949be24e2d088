package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// requireServerMemory fails the test (never skips) when node or the npm
// package @modelcontextprotocol/server-memory, which servers.yaml starts, is
// missing.
func requireServerMemory(t *testing.T) {
	t.Helper()
	testenv.ServerMemory(t)
}

// TestTwoLevelsDeep runs analyst against the real insights server, which
// calls the real sqlite-explorer and server-memory that
// examples/insights/servers.yaml starts: over stdio at the newest protocol
// version, then over streamable HTTP at 2025-06-18 (the initialize era) with
// the same memory file, so the second run also shows that the
// findings persisted in server-memory and that remembering one again adds
// nothing.
func TestTwoLevelsDeep(t *testing.T) {
	requireServerMemory(t)
	bin := testenv.Build(t, "./examples/insights")
	config := filepath.Join(testenv.ModuleRoot(t), "examples", "insights", "servers.yaml")
	mem := filepath.Join(t.TempDir(), "memory.jsonl")

	want := []string{
		"connected to insights 0.1.0 at protocol version ",
		"authors    10 rows  (id, name, born, country)\n",
		"           1 | \"Jane Austen\" | 1775 | \"United Kingdom\"\n",
		"books      24 rows  (id, title, author_id, published, genre, copies)\n",
		"loans      14 rows  (id, book_id, borrower, loaned_on, due_on, returned_on)\n",
		"remembered about books (entity \"sqlite-explorer:books\"): 1 observation(s)\n",
		"findings (2 tables):\n" +
			"  authors (10 rows now):\n" +
			"    - Every book's author_id refers to a row of authors.\n" +
			"  books (24 rows now):\n" +
			"    - books is the largest table (24 rows at the first report).\n",
		"remember_finding no_such_table: tool error: no table \"no_such_table\" in the database (tables: authors, books, loans)\n",
	}
	check := func(t *testing.T, out string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("the output lacks %q; it is:\n%s", w, out)
			}
		}
	}

	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var out, stderr bytes.Buffer
		if err := run(ctx, []string{"--", bin, "--config", config, "--memory", mem}, &out, &stderr); err != nil {
			t.Fatalf("analyst: %v\nstderr:\n%s", err, stderr.String())
		}
		check(t, out.String())
		if !strings.Contains(out.String(), " at protocol version 2026-07-28 over stdio\n") {
			t.Errorf("want a stdio session at 2026-07-28; the output is:\n%s", out.String())
		}
		// The real server-memory wrote the graph where insights told it to.
		data, err := os.ReadFile(mem)
		if err != nil {
			t.Fatalf("server-memory's file: %v", err)
		}
		if !strings.Contains(string(data), `"name":"sqlite-explorer:books"`) {
			t.Errorf("server-memory's file lacks the books entity:\n%s", data)
		}
	})

	t.Run("streamable HTTP", func(t *testing.T) {
		url := testenv.StartHTTP(t, bin, "--config", config, "--memory", mem, "--http", "127.0.0.1:0")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var out, stderr bytes.Buffer
		if err := run(ctx, []string{"--url", url, "--protocol-version", "2025-06-18"}, &out, &stderr); err != nil {
			t.Fatalf("analyst: %v\nstderr:\n%s", err, stderr.String())
		}
		// Same findings as after the stdio run: they persisted, and
		// remembering them again (remember_finding is idempotent) added
		// nothing.
		check(t, out.String())
		if !strings.Contains(out.String(), " at protocol version 2025-06-18 over streamable-http\n") {
			t.Errorf("want a streamable HTTP session at 2025-06-18; the output is:\n%s", out.String())
		}
	})
}

// TestInsightsContractUpToDate exports the live insights server again and
// generates its package, as go generate does, and compares both with the
// checked-in insights.json and insights/: insights' schemas come from its Go
// types, so a change to them must come with `go generate ./examples/analyst`.
func TestInsightsContractUpToDate(t *testing.T) {
	requireServerMemory(t)
	mcpbind := testenv.Build(t, "./cmd/mcpbind")
	bin := testenv.Build(t, "./examples/insights")
	config := filepath.Join(testenv.ModuleRoot(t), "examples", "insights", "servers.yaml")
	dir := t.TempDir()
	bundle := filepath.Join(dir, "insights.json")
	mcpbindRun := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(mcpbind, args...).CombinedOutput(); err != nil {
			t.Fatalf("mcpbind %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	mcpbindRun("export", "--probe-eras", "--timeout", "5m", "-q", "-o", bundle, "--", bin, "--config", config)
	mcpbindRun("generate", "--type-name", "Table=TableSummary", bundle, "-o", dir)
	for _, f := range []string{"insights.json", "insights/client.go", "insights/schemas.go", "insights/types.go"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `go generate ./examples/analyst`", f)
		}
	}
}
