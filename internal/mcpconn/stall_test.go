//go:build unix

package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestStalledStdin: a stdio server stopped with SIGSTOP does not read its
// stdin; once a write to it has made no progress for the stall bound (here
// 100 ms instead of 30 s), the session is lost with a *StallError, the call
// whose frame was being written fails as a *LostError, and the process is
// ended (SIGKILL ends a stopped process).
func TestStalledStdin(t *testing.T) {
	bin := testenv.Build(t, "./testservers/hostileserver")
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"serverInfo":{"name":"h","version":"1"},"tools":[{"name":"pid","pid":true}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	stall := Option{func(c *config) { c.stdinStall = 100 * time.Millisecond }}
	s, err := Dial(ctx, Stdio(bin), WithEnv("MCPBIND_HOSTILE_SPEC="+spec), stall)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, err := s.CallToolRaw(ctx, RawCall{Name: "pid", Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("pid result %s: %v", raw, err)
	}
	pid, err := strconv.Atoi(res.Content[0].Text)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGCONT) }()

	// 1 MiB of arguments: far more than the pipe holds.
	args, _ := json.Marshal(map[string]string{"pad": strings.Repeat("p", 1<<20)})
	_, err = s.CallToolRaw(ctx, RawCall{Name: "pid", Args: args})
	var lost *LostError
	var se *StallError
	if !errors.As(err, &lost) || !lost.Sent || !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *LostError (sent) with a *StallError", err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("Done was not closed")
	}
	if !errors.As(s.Err(), &se) {
		t.Errorf("Err() = %v, want a *StallError", s.Err())
	}
	testenv.WaitExit(t, pid, time.Minute)
}

// TestStallCauseSurvivesTheKill: when giving up on a stalled stdin ends
// the server before the writer records why (the kill wins the race: the
// server's stdout ends and the reader fails with io.EOF first, as on a
// loaded machine), the request in flight still fails with the
// *StallError, not with a closed transport.
func TestStallCauseSurvivesTheKill(t *testing.T) {
	stdinR, stdinW, err := os.Pipe() // nobody reads stdinR: writes stall
	if err != nil {
		t.Fatal(err)
	}
	defer stdinR.Close()
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	tr := newStdioTransport(stdoutR, stdinW, 50*time.Millisecond)
	defer tr.Close()
	tr.lost = func(error) {
		_ = stdoutW.Close() // the server is gone
		<-tr.done           // and the reader has seen it
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)), Method: "tools/call",
		Params: map[string]string{"pad": strings.Repeat("p", 1<<20)}}
	_, err = tr.SendRequest(ctx, req)
	var se *StallError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *StallError", err)
	}
}
