package gosdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// stopReaderEnv makes the test binary, started again as a child, the stdio
// server of TestCallReturnsWhenTheServerStopsReading.
const stopReaderEnv = "MCPBIND_GOSDK_STOP_READER"

// TestCallReturnsWhenTheServerStopsReading: a stdio server that answers
// initialize and then never reads its input again makes go-sdk's write of
// a large request block, and go-sdk alone would hold the caller there past
// its ctx. The call returns when its ctx ends, and so does a second one;
// once the server's process is gone, Close returns and no goroutine is left
// behind. The child is this test binary (stopReaderEnv).
func TestCallReturnsWhenTheServerStopsReading(t *testing.T) {
	if os.Getenv(stopReaderEnv) == "1" {
		stopReader()
		return
	}
	ctx := context.Background()
	before := runtime.NumGoroutine()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCallReturnsWhenTheServerStopsReading$")
	cmd.Env = append(os.Environ(), stopReaderEnv+"=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
		gosdk.Transport(&mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := gosdk.NewSession(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"a":"` + strings.Repeat("x", 8<<20) + `"}`) // more than a pipe holds
	for i := range 2 {
		returned := make(chan error, 1)
		go func() {
			cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			_, err := s.CallResult(cctx, "t", args)
			returned <- err
		}()
		select {
		case err := <-returned:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("call %d: %v; want its ctx's deadline", i, err)
			}
		case <-time.After(30 * time.Second): // a hang bound, not a speed claim
			t.Fatalf("call %d: still running 30s after its ctx ended: a server that stops reading holds the caller", i)
		}
	}
	_ = cmd.Process.Kill() // the blocked write fails, and the calls left behind end
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close still running 30s after the server's process was killed")
	}
	testenv.Goroutines(t, 30*time.Second, before)
}

// stopReader is the child's server: it answers initialize at 2025-06-18,
// then waits, without reading stdin, until it is killed: on a pipe of its
// own that nothing writes to.
func stopReader() {
	line, err := bufio.NewReader(os.Stdin).ReadBytes('\n')
	if err != nil {
		os.Exit(1)
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &req) != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stopper","version":"0"}}}` + "\n")
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(1)
	}
	defer w.Close()
	_, _ = r.Read(make([]byte, 1))
}
