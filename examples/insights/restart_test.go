//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/insights/insights"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// urlWriter is insights' stderr in the test: it hands the URL of the
// "listening on" line to found and keeps the rest for failure messages.
// The downstream servers' stderr reaches it from other goroutines.
type urlWriter struct {
	found chan<- string
	mu    sync.Mutex
	log   strings.Builder
	sent  bool
}

// String returns what was written so far.
func (w *urlWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}

func (w *urlWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log.Write(p)
	if !w.sent {
		for _, line := range strings.Split(w.log.String(), "\n") {
			if u, ok := strings.CutPrefix(line, "listening on "); ok && strings.HasSuffix(u, "/mcp") {
				w.found <- u
				w.sent = true
				break
			}
		}
	}
	return len(p), nil
}

// TestDownstreamRestart runs insights (over streamable HTTP, in this
// process) on the real sqlite-explorer and server-memory, kills
// sqlite-explorer between two calls and checks that insights' next calls
// succeed on a new process: the registry restarts the server and sends the
// lost read-only call again. The servers config is servers.yaml's, except
// that sqlite-explorer is started through a shell that writes its pid to a
// file and execs it, so the test can kill the very process.
func TestDownstreamRestart(t *testing.T) {
	node, memArgs := testenv.ServerMemory(t)
	explorer := testenv.Build(t, "./examples/sqlite-explorer")
	dir := t.TempDir()
	wrapped, pid := testenv.PIDWrapped(t, explorer)
	config := filepath.Join(dir, "servers.yaml")
	yaml := fmt.Sprintf("servers:\n"+
		"  sqlite-explorer:\n"+
		"    command: [%q, %q, %q, %q, %q]\n"+
		"  memory:\n"+
		"    command: [%q, %q]\n", wrapped[0], wrapped[1], strings.ReplaceAll(wrapped[2], "$", "$$"), wrapped[3], wrapped[4], node, memArgs[0])
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	found := make(chan string, 1)
	stderr := &urlWriter{found: found}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--config", config, "--memory", filepath.Join(dir, "memory.jsonl"), "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, stderr)
	}()
	var url string
	select {
	case url = <-found:
	case err := <-done:
		t.Fatalf("insights stopped before listening: %v\nstderr:\n%s", err, stderr.String())
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("insights: %v", err)
		}
	}()

	s, err := composition.Connect(ctx, composition.HTTP(url))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	report := func() insights.TableReport {
		t.Helper()
		res, err := s.CallResult(ctx, "table_report", insights.TableReportArgs{Tables: []string{"books"}, SampleRows: 1})
		if err != nil {
			t.Fatalf("table_report: %v", err)
		}
		var r insights.TableReport
		if err := res.DecodeJSON(&r); err != nil {
			t.Fatal(err)
		}
		if len(r.Tables) != 1 || r.Tables[0].RowCount != 24 {
			t.Fatalf("table_report: %+v", r)
		}
		return r
	}

	report()
	first := pid()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	report() // on a new sqlite-explorer process
	if second := pid(); second == first {
		t.Errorf("sqlite-explorer still has pid %d; want a new process", first)
	}

	res, err := s.CallResult(ctx, "remember_finding", insights.RememberFindingArgs{Table: "books", Observation: "Survived a restart."})
	if err != nil {
		t.Fatalf("remember_finding after the restart: %v\ninsights' stderr:\n%s", err, stderr.String())
	}
	var f insights.Finding
	if err := res.DecodeJSON(&f); err != nil || f.RowCount != 24 || len(f.Observations) != 1 {
		t.Errorf("remember_finding after the restart: %+v, %v", f, err)
	}
}
