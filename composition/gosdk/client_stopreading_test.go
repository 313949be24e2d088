package gosdk_test

import (
	"bufio"
	"bytes"
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

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// stopReaderEnv makes the test binary, started again as a child, the stdio
// server of TestCallReturnsWhenTheServerStopsReading.
const stopReaderEnv = "MCPBIND_GOSDK_STOP_READER"

// TestCallReturnsWhenTheServerStopsReading: a stdio server that answers
// initialize, reads the start of the first tools/call request and then
// never reads its input again makes go-sdk's write of that large request
// block, and go-sdk alone would hold the caller there past its ctx. The
// call returns when its ctx ends (ended once the server has said, on its
// stderr, that it stopped reading: the write has begun and cannot end),
// and so does a second one, whose Call.Peer names stdio: the first request
// went out on the wrapped connection, though its write never returned.
// Once the server's process is gone, Close returns and no goroutine is left
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
	stopped := make(chan struct{})
	cmd.Stderr = &lineSignal{line: stoppedReading, c: stopped}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
		gosdk.Transport(&mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	peers := make(chan string, 2) // each call's Call.Peer.Transport, as it starts
	s, err := gosdk.NewSession(ctx, cs, composition.WithInterceptor(func(ctx context.Context, call composition.Call, next composition.Invoker) (*composition.Result, error) {
		peers <- call.Peer.Transport
		return next(ctx, call)
	}))
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"a":"` + strings.Repeat("x", 8<<20) + `"}`) // more than a pipe holds
	// peer is each call's Call.Peer.Transport.
	var peer [2]string
	for i := range 2 {
		returned := make(chan error, 1)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			_, err := s.CallResult(cctx, "t", args)
			returned <- err
		}()
		peer[i] = testenv.Receive(t, 30*time.Second, peers) // the call has started
		if i == 0 {
			// Its write has begun: the server read part of it. The second
			// call's write waits behind it.
			testenv.Receive(t, 30*time.Second, stopped)
		}
		cancel()
		select {
		case err := <-returned:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("call %d: %v; want its ctx's cancellation", i, err)
			}
		case <-time.After(30 * time.Second): // a hang bound, not a speed claim
			t.Fatalf("call %d: still running 30s after its ctx ended: a server that stops reading holds the caller", i)
		}
	}
	if peer[1] != composition.TransportStdio { // peer[0]: no request had passed yet
		t.Errorf("the second call's Call.Peer.Transport = %q; want %q (the first request went out on the wrapped connection)", peer[1], composition.TransportStdio)
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

// stoppedReading is the line the child writes on its stderr once it has
// stopped reading its input.
const stoppedReading = "stopped reading"

// stopReader is the child's server: it answers initialize at 2025-06-18,
// reads its input up to the start of a tools/call request (at most a
// buffer's worth of it: the request is larger than the buffer and the
// pipe), says so on stderr (stoppedReading), then waits, without reading
// stdin, until it is killed: on a pipe of its own that nothing writes to.
func stopReader() {
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
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
	for { // notifications/initialized, then the first piece of tools/call
		piece, err := in.ReadSlice('\n')
		if bytes.Contains(piece, []byte(`"tools/call"`)) {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			os.Exit(1)
		}
	}
	os.Stderr.WriteString(stoppedReading + "\n")
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(1)
	}
	defer w.Close()
	_, _ = r.Read(make([]byte, 1))
}

// lineSignal is an io.Writer for a child's stderr (os/exec copies it from
// one goroutine) that closes c once what was written holds line.
type lineSignal struct {
	line string
	c    chan struct{}
	seen bytes.Buffer
	done bool
}

// Write records p and closes c the first time line appears.
func (w *lineSignal) Write(p []byte) (int, error) {
	w.seen.Write(p)
	if !w.done && strings.Contains(w.seen.String(), w.line) {
		w.done = true
		close(w.c)
	}
	return len(p), nil
}
